import { createContext, useCallback, useContext, useMemo, useRef, useState } from 'react';
import { knowledgeDraftEventSchemas } from '../../../functions/contract/chat-events.js';
import {
  type Caller,
  type PublishKnowledgeResponse,
  publishKnowledgeResponseSchema,
} from '../../../functions/contract/knowledge.js';
import { callApi } from '../api/api-error.js';
import type { TicketDraftTarget } from '../app/use-ticket-draft.js';
import { readApiEventStream } from '../chat/read-chat-stream.js';
import { PublishedLinksNote, PublishedPersonalDataNote } from '../components/knowledge-actions.js';
import { KnowledgeDraftPanel } from '../components/knowledge-draft-panel.js';
import { useFocusAfterCommit } from '../components/use-focus-after-commit.js';
import type { InsightsText } from './insights-messages.js';

/**
 * A lead's knowledge draft from a knowledge gap (issue #28, ADR 0022): under a gap with a solved
 * example (`draftFrom`), a button that opens the chat's knowledge form bound to the leads' routes
 * (`POST /api/insights/gap-examples/{exampleId}/knowledge-draft`, then `…/knowledge`), which
 * resolve the example to its conversation on the server. It lives in the insights page's lazy
 * chunk; the form itself is the chat's (already in the first load), so the chat carries nothing
 * of this.
 */

/** What the page gives its gaps' draft buttons: where the API is and who the caller is. */
export interface GapDraftContextValue {
  readonly apiBase: string;
  /** The identity-adding fetch (`createApiFetch`). */
  readonly apiFetch: typeof fetch;
  /** `GET /api/me`; undefined until it answers (or when it failed: no button). */
  readonly caller?: Caller;
}

export const GapDraftContext = createContext<GapDraftContextValue | undefined>(undefined);

/**
 * "この事例からナレッジを作成" for one gap: editors only (the server refuses anyone else, as in
 * the chat); for a lead who is not an editor, a note instead of a button that would be refused.
 * After a publish, the ticket's number in place of the button.
 */
export function GapDraftAction({
  exampleId,
  topic,
  text,
}: {
  readonly exampleId: string;
  /** The gap's topic as the page names it: the button's accessible name tells gaps apart. */
  readonly topic: string;
  readonly text: InsightsText;
}) {
  const context = useContext(GapDraftContext);
  const [open, setOpen] = useState(false);
  const [published, setPublished] = useState<PublishKnowledgeResponse>();
  const opener = useRef<HTMLButtonElement>(null);
  const badge = useRef<HTMLParagraphElement>(null);
  const focusAfterCommit = useFocusAfterCommit();
  const caller = context?.caller;
  if (!context || !caller) return null;
  if (!caller.canPublishKnowledge) {
    return <p className="insights-gap__draft-note">{text.t('draftEditorsOnly')}</p>;
  }

  const close = (done: boolean) => {
    setOpen(false);
    // Focus goes back where it came from; after publishing the button is gone, so to the badge.
    focusAfterCommit(done ? badge : opener);
  };
  return (
    <div className="insights-gap__draft">
      {published ? (
        <>
          <p ref={badge} className="knowledge-badge" tabIndex={-1} role="status">
            {text.t('draftPublishedAs', { id: published.issueId })}
            {published.ingestion === 'pending' && ` ${text.t('draftIngestionPending')}`}
          </p>
          {/* What the chat says under a published inquiry: links kept out, data removed again. */}
          <PublishedLinksNote links={published.unverifiedLinks} />
          <PublishedPersonalDataNote removed={removedKinds(published.personalDataRemoved)} />
        </>
      ) : (
        <button
          ref={opener}
          type="button"
          className="button button--small"
          aria-haspopup="dialog"
          aria-label={text.t('draftFromExampleFor', { topic })}
          onClick={() => setOpen(true)}
        >
          {text.t('draftFromExample')}
        </button>
      )}
      {open && (
        <GapDraftPanel
          context={context}
          caller={caller}
          exampleId={exampleId}
          onPublished={setPublished}
          onClose={close}
        />
      )}
    </div>
  );
}

/** The chat's knowledge form, bound to the leads' routes for one gap example. */
function GapDraftPanel({
  context,
  caller,
  exampleId,
  onPublished,
  onClose,
}: {
  readonly context: GapDraftContextValue;
  readonly caller: Caller;
  readonly exampleId: string;
  readonly onPublished: (response: PublishKnowledgeResponse) => void;
  readonly onClose: (published: boolean) => void;
}) {
  const { apiBase, apiFetch } = context;
  const path = `${apiBase}/insights/gap-examples/${encodeURIComponent(exampleId)}`;
  const draft = useCallback<TicketDraftTarget['draft']>(
    // An empty JSON body, so the edge sees a hashed body like every other POST.
    ({ signal, onEvent }) =>
      readApiEventStream({
        events: knowledgeDraftEventSchemas,
        url: `${path}/knowledge-draft`,
        body: {},
        signal,
        fetch: apiFetch,
        onEvent,
      }),
    [path, apiFetch],
  );
  const target = useMemo<TicketDraftTarget>(
    () => ({
      draft,
      async publish(ticket) {
        const response = await callApi(apiFetch, `${path}/knowledge`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(ticket),
        });
        return publishKnowledgeResponseSchema.parse(await response.json());
      },
      published: (_ticket, response) => onPublished(response),
      // The form says which ticket (the 409 names it); the page has nothing to reload.
      alreadyPublished: () => undefined,
    }),
    [draft, path, apiFetch, onPublished],
  );
  return (
    <KnowledgeDraftPanel
      target={target}
      allowedLinkDomains={caller.allowedLinkDomains}
      ticketCategories={caller.ticketCategories}
      desks={caller.desks}
      onClose={onClose}
    />
  );
}

/** The kinds a publish removed personal data of (count above 0), or undefined for none. */
function removedKinds(
  counts: Readonly<Record<string, number>> | undefined,
): Readonly<Record<string, number>> | undefined {
  const removed = Object.fromEntries(Object.entries(counts ?? {}).filter(([, n]) => n > 0));
  return Object.keys(removed).length > 0 ? removed : undefined;
}
