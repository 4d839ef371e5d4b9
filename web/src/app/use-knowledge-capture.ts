import { createContext, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import type {
  PublishedKnowledge,
  PublishKnowledgeResponse,
} from '../../../functions/contract/knowledge.js';
import type { KnowledgeApi } from '../api/create-knowledge-api.js';
import { isDraftKey } from './use-active-conversation.js';
import type { ChatController } from './use-chat-controller.js';

/** What the "Save as knowledge" action and its form need from the app, for the open conversation. */
export interface KnowledgeCapture {
  readonly api: KnowledgeApi;
  /** The open conversation, once stored (a draft conversation has nothing to publish). */
  readonly conversationId?: string;
  /** `GET /api/me` said this staff member may publish; false until it answers or if it fails. */
  readonly canPublish: boolean;
  /**
   * The domains links may point to, from `GET /api/me` (editors only): the form warns about links
   * elsewhere. Undefined until it answers, or from a server older than the check.
   */
  readonly allowedLinkDomains?: readonly string[];
  /**
   * The categories a published ticket may take (the deployed tickets' set, `GET /api/me`):
   * the form's choices. Empty or undefined: none known, the form takes any category.
   */
  readonly ticketCategories?: readonly string[];
  /**
   * The desks a ticket may be published to (`GET /api/me`, ADR 0029), `all` first: the form's
   * choice. Undefined or one desk: no choice, the ticket is for everyone.
   */
  readonly desks?: readonly string[];
  /** Published inquiries whose 201 listed links outside the allow-list (`unverifiedLinks`). */
  readonly unverifiedLinks: ReadonlyMap<string, readonly string[]>;
  /**
   * Published inquiries whose publish removed personal data again (`personalDataRemoved` of the
   * 201, kinds with a count above 0): the editor typed something back that the scrub takes out.
   */
  readonly personalDataRemoved: ReadonlyMap<string, Readonly<Record<string, number>>>;
  /** Inquiries whose ticket waits for a Knowledge Base sync that was already running. */
  readonly ingestionPending: ReadonlySet<string>;
  /** The ticket was published (201). */
  published(
    inquiryId: string,
    ticket: { subject: string; restricted: boolean },
    response: PublishKnowledgeResponse,
  ): void;
  /** The server says the inquiry is published already (409): reload to learn its ticket. */
  alreadyPublished(): void;
}

export const KnowledgeCaptureContext = createContext<KnowledgeCapture | undefined>(undefined);

/** The knowledge capture of the open conversation, or undefined outside the signed-in app. */
export function useKnowledgeCaptureContext(): KnowledgeCapture | undefined {
  return useContext(KnowledgeCaptureContext);
}

/**
 * Asks `GET /api/me` once per signed-in session whether the user may publish (the app is keyed
 * by identity, so a switched user asks again), and ties publishing to the chat controller.
 */
export function useKnowledgeCapture(api: KnowledgeApi, chat: ChatController): KnowledgeCapture {
  // One state per source: what `GET /api/me` said, and what the 201s of this session said.
  const [caller, setCaller] = useState<CallerPermissions>(NOT_AN_EDITOR);
  const [followUps, setFollowUps] = useState<PublishFollowUps>(NO_FOLLOW_UPS);
  useEffect(() => {
    let current = true;
    api.caller().then(
      ({ canPublishKnowledge, allowedLinkDomains, ticketCategories, desks }) => {
        if (current) {
          setCaller({
            canPublish: canPublishKnowledge,
            allowedLinkDomains,
            ticketCategories,
            desks,
          });
        }
      },
      // Without an answer the action stays hidden; the server would refuse a non-editor anyway.
      (error: unknown) => console.warn('GET /api/me failed; knowledge capture hidden', error),
    );
    return () => {
      current = false;
    };
  }, [api]);

  const conversationId = isDraftKey(chat.activeKey) ? undefined : chat.activeKey;
  const { knowledgeChanged } = chat;
  const published = useCallback(
    (
      inquiryId: string,
      ticket: { subject: string; restricted: boolean },
      response: PublishKnowledgeResponse,
    ) => {
      if (!conversationId) return;
      setFollowUps((previous) => addFollowUps(previous, inquiryId, response));
      const entry: PublishedKnowledge = {
        inquiryId,
        issueId: response.issueId,
        subject: ticket.subject,
        restricted: ticket.restricted,
        publishedAt: new Date().toISOString(),
      };
      knowledgeChanged(conversationId, entry);
    },
    [conversationId, knowledgeChanged],
  );
  const alreadyPublished = useCallback(() => {
    if (conversationId) knowledgeChanged(conversationId);
  }, [conversationId, knowledgeChanged]);

  return useMemo(
    () => ({ api, conversationId, ...caller, ...followUps, published, alreadyPublished }),
    [api, conversationId, caller, followUps, published, alreadyPublished],
  );
}

type CallerPermissions = Pick<
  KnowledgeCapture,
  'canPublish' | 'allowedLinkDomains' | 'ticketCategories' | 'desks'
>;
type PublishFollowUps = Pick<
  KnowledgeCapture,
  'ingestionPending' | 'unverifiedLinks' | 'personalDataRemoved'
>;

const NOT_AN_EDITOR: CallerPermissions = { canPublish: false };
const NO_FOLLOW_UPS: PublishFollowUps = {
  ingestionPending: new Set(),
  unverifiedLinks: new Map(),
  personalDataRemoved: new Map(),
};

/**
 * Adds what a 201 leaves to show under its inquiry: a sync still to come, links kept out, personal
 * data removed at publish.
 */
function addFollowUps(
  { ingestionPending, unverifiedLinks, personalDataRemoved }: PublishFollowUps,
  inquiryId: string,
  response: PublishKnowledgeResponse,
): PublishFollowUps {
  return {
    ingestionPending:
      response.ingestion === 'pending'
        ? new Set(ingestionPending).add(inquiryId)
        : ingestionPending,
    unverifiedLinks:
      response.unverifiedLinks.length > 0
        ? new Map(unverifiedLinks).set(inquiryId, response.unverifiedLinks)
        : unverifiedLinks,
    personalDataRemoved: withRemovedPersonalData(
      personalDataRemoved,
      inquiryId,
      response.personalDataRemoved,
    ),
  };
}

function withRemovedPersonalData(
  previous: PublishFollowUps['personalDataRemoved'],
  inquiryId: string,
  counts: Readonly<Record<string, number>> | undefined,
): PublishFollowUps['personalDataRemoved'] {
  const removed = Object.fromEntries(Object.entries(counts ?? {}).filter(([, count]) => count > 0));
  return Object.keys(removed).length > 0 ? new Map(previous).set(inquiryId, removed) : previous;
}
