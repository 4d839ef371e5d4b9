import { useCallback, useMemo, useRef, useState } from 'react';
import type { PublishedKnowledge } from '../../../functions/contract/knowledge.js';
import { type KnowledgeCapture, useKnowledgeCaptureContext } from '../app/use-knowledge-capture.js';
import type { TicketDraftTarget } from '../app/use-ticket-draft.js';
import { useI18n } from '../i18n/i18n-context.js';
import { KnowledgeDraftPanel } from './knowledge-draft-panel.js';
import { LinkWarningList } from './link-warning-list.js';
import { useFocusAfterCommit } from './use-focus-after-commit.js';

interface KnowledgeActionsProps {
  readonly inquiryId: string;
  /** The ticket the inquiry was published as. */
  readonly published?: PublishedKnowledge;
  /** Solved and not yet published. */
  readonly canSave: boolean;
}

/**
 * Under an inquiry's last answer: "Save as knowledge" (editors only, on a solved inquiry), which
 * opens the draft form; once published, the ticket's number instead.
 */
export function KnowledgeActions({ inquiryId, published, canSave }: KnowledgeActionsProps) {
  const { t } = useI18n();
  const capture = useKnowledgeCaptureContext();
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const badge = useRef<HTMLParagraphElement>(null);
  const focusAfterCommit = useFocusAfterCommit();
  if (!capture) return null;
  const { conversationId } = capture;
  const saveable = canSave && capture.canPublish && conversationId !== undefined;
  if (!published && !saveable && !open) return null;

  const close = (done: boolean) => {
    setOpen(false);
    // Focus goes back where it came from; after publishing the button is gone, so to the badge.
    focusAfterCommit(done ? badge : opener);
  };
  return (
    <div className="knowledge-actions">
      {published ? (
        <>
          <p ref={badge} className="knowledge-badge" tabIndex={-1}>
            {t('knowledgePublished', { id: published.issueId })}
            {published.restricted && (
              <span className="knowledge-badge__restricted"> ({t('knowledgeRestrictedMark')})</span>
            )}
          </p>
          <PublishedLinksNote links={capture.unverifiedLinks.get(inquiryId)} />
          <PublishedPersonalDataNote removed={capture.personalDataRemoved.get(inquiryId)} />
          {capture.ingestionPending.has(inquiryId) && (
            <p className="knowledge-actions__note" role="status">
              {t('knowledgeIngestionPending')}
            </p>
          )}
        </>
      ) : (
        saveable && (
          <button
            ref={opener}
            type="button"
            className="button button--small"
            aria-haspopup="dialog"
            onClick={() => setOpen(true)}
          >
            {t('saveAsKnowledge')}
          </button>
        )
      )}
      {open && conversationId && (
        // Stays open when a 409 reload reveals the inquiry's ticket, to say which one it is.
        <InquiryDraftPanel
          capture={capture}
          conversationId={conversationId}
          inquiryId={inquiryId}
          existing={published}
          onClose={close}
        />
      )}
    </div>
  );
}

/** The draft form bound to this staff member's own inquiry (ADR 0011's routes). */
function InquiryDraftPanel({
  capture,
  conversationId,
  inquiryId,
  existing,
  onClose,
}: {
  readonly capture: KnowledgeCapture;
  readonly conversationId: string;
  readonly inquiryId: string;
  readonly existing?: PublishedKnowledge;
  readonly onClose: (published: boolean) => void;
}) {
  const { api, published, alreadyPublished } = capture;
  const draft = useCallback<TicketDraftTarget['draft']>(
    (options) => api.draft(conversationId, inquiryId, options),
    [api, conversationId, inquiryId],
  );
  const target = useMemo<TicketDraftTarget>(
    () => ({
      draft,
      publish: (ticket) => api.publish({ conversationId, inquiryId, ...ticket }),
      published: (ticket, response) => published(inquiryId, ticket, response),
      alreadyPublished,
    }),
    [draft, api, conversationId, inquiryId, published, alreadyPublished],
  );
  return (
    <KnowledgeDraftPanel
      target={target}
      allowedLinkDomains={capture.allowedLinkDomains}
      ticketCategories={capture.ticketCategories}
      desks={capture.desks}
      existing={existing}
      onClose={onClose}
    />
  );
}

/** The 201's `unverifiedLinks`: published, and these links stay out of what requesters receive. */
export function PublishedLinksNote({ links }: { links: readonly string[] | undefined }) {
  const { t } = useI18n();
  if (!links || links.length === 0) return null;
  return (
    <div className="knowledge-actions__note link-warning" role="status">
      <p>{t('knowledgePublishedUnverifiedLinks')}</p>
      <LinkWarningList links={links} />
    </div>
  );
}

/** The 201's `personalDataRemoved`: what the publish scrub took out again, counted per kind. */
export function PublishedPersonalDataNote({
  removed,
}: {
  removed: Readonly<Record<string, number>> | undefined;
}) {
  const { t } = useI18n();
  if (!removed) return null;
  // A fixed order (name, e-mail, phone, secret, then configured kinds), whatever the server's.
  const list = Object.entries(removed)
    .sort(([a], [b]) => kindOrder(a) - kindOrder(b))
    .map(([kind, n]) =>
      isBuiltInKind(kind)
        ? t(`personalDataKind_${kind}`, { n })
        : t('personalDataKind_other', { kind, n }),
    )
    .join(t('listSeparator'));
  return (
    <p className="knowledge-actions__note" role="status">
      {t('knowledgePublishedPersonalData', { list })}
    </p>
  );
}

const BUILT_IN_KINDS = ['name', 'email', 'phone', 'secret'] as const;

function kindOrder(kind: string): number {
  const index = (BUILT_IN_KINDS as readonly string[]).indexOf(kind);
  return index === -1 ? BUILT_IN_KINDS.length : index;
}

function isBuiltInKind(kind: string): kind is (typeof BUILT_IN_KINDS)[number] {
  return (BUILT_IN_KINDS as readonly string[]).includes(kind);
}
