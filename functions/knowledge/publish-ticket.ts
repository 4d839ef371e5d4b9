import {
  InquiryNotFoundError,
  RequestRefusedError,
  StoreUnavailableError,
} from '../chat/errors.js';
import type { Log } from '../chat/log.js';
import type { ConversationStore, Owner } from '../chat/ports.js';
import {
  isSolvedInquiry,
  type PublishKnowledgeRequest,
  type PublishKnowledgeResponse,
} from '../contract/knowledge.js';
import {
  InquiryNotSolvedError,
  KnowledgeAlreadyPublishedError,
  KnowledgeStoreUnavailableError,
} from '../knowledge/errors.js';
import type { ScrubSettings } from './personal-data-scrub.js';
import type { IssueNumbers, KnowledgeDocuments, SyncBacklog } from './ports.js';
import { renderTicketDocuments, type TicketDocumentFiles } from './ticket-document.js';
import { draftScrubOptions, inquiryTranscript, scrubDraft } from './ticket-draft.js';

/**
 * Publishing a solved inquiry as a knowledge ticket (ADR 0011), in an order where every failure
 * leaves nothing half-written: check, take a number, write the documents, record the ticket on
 * the conversation, start the sync. The documents are written before the record so that a
 * recorded ticket always exists; a record refused afterwards removes them again. The edited
 * draft is scrubbed of personal data again before anything is written (ADR 0019): the editor
 * may have typed a name or an address back in place of a placeholder.
 */

export interface PublishDependencies {
  readonly store: ConversationStore;
  readonly documents: KnowledgeDocuments;
  readonly issueNumbers: IssueNumbers;
  readonly syncBacklog: SyncBacklog;
  readonly now: () => Date;
  /** The deployment's scrub settings (patterns, dictionary, keep); default none. */
  readonly scrubSettings?: ScrubSettings;
  /** Where failures after the ticket is stored (its sync, a clean-up) are reported. */
  readonly log: Log;
}

/**
 * Checks that `inquiryId` is a solved inquiry of the owner's conversation and not yet published;
 * returns the conversation's turns for the caller (the draft reads them). Throws
 * `InquiryNotFoundError`, `KnowledgeAlreadyPublishedError` or `InquiryNotSolvedError`.
 */
export async function loadSolvedInquiry(
  store: ConversationStore,
  owner: Owner,
  conversationId: string,
  inquiryId: string,
) {
  const loaded = await store.loadConversation(owner, conversationId);
  if (!loaded.turns.some((turn) => turn.inquiryId === inquiryId)) throw new InquiryNotFoundError();
  const published = loaded.conversation.knowledge?.find((entry) => entry.inquiryId === inquiryId);
  if (published) throw new KnowledgeAlreadyPublishedError(published.issueId);
  if (!isSolvedInquiry(loaded.turns, inquiryId)) throw new InquiryNotSolvedError();
  return loaded;
}

/**
 * Publishes `request`'s inquiry of `owner`'s conversation. `publishedBy` is who publishes it when
 * that is not the owner — a service-desk lead drafting from a gap example (ADR 0022): the ticket's
 * `author_hash` is theirs, they are scrubbed as a person too, and the ticket is recorded on the
 * owner's conversation as any other.
 */
export async function publishTicket(
  owner: Owner,
  request: PublishKnowledgeRequest,
  dependencies: PublishDependencies,
  publishedBy: Owner = owner,
): Promise<Omit<PublishKnowledgeResponse, 'unverifiedLinks'>> {
  const { store, documents } = dependencies;
  const { conversationId, inquiryId } = request;
  const { turns } = await loadSolvedInquiry(store, owner, conversationId, inquiryId);
  // The same person fields as the draft's: the owner, the publisher and everyone the inquiry names.
  const { draft: scrubbed, counts: personalDataRemoved } = scrubDraft(
    request,
    await draftScrubOptions(
      owner,
      inquiryTranscript(turns, inquiryId),
      dependencies.scrubSettings,
      publishedBy,
    ),
  );

  const issueId = await dependencies.issueNumbers.next(owner.tenantId);
  const publishedAt = dependencies.now();
  const files = renderTicketDocuments(issueId, scrubbed, {
    conversationId,
    inquiryId,
    author: publishedBy,
    publishedAt,
  });
  try {
    await documents.write(files);
  } catch (error) {
    await removeQuietly(documents, files, dependencies.log);
    throw new KnowledgeStoreUnavailableError({ cause: error });
  }

  try {
    await store.recordPublishedKnowledge(owner, conversationId, {
      inquiryId,
      issueId,
      subject: scrubbed.subject,
      restricted: request.restricted,
      publishedAt: publishedAt.toISOString(),
    });
  } catch (error) {
    // Refused for certain (published meanwhile by another tab, conversation deleted): the
    // documents must go. An unknown outcome (store unavailable) leaves them — the record may
    // exist, and a ticket without a record is still a correct ticket — so it is owed a sync.
    if (isDefiniteRefusal(error)) await removeQuietly(documents, files, dependencies.log);
    else await oweSync(dependencies, publishedAt);
    throw error;
  }

  let ingestion: PublishKnowledgeResponse['ingestion'];
  try {
    ingestion = await documents.startSync();
  } catch (error) {
    // The ticket is stored and recorded; failing the publish now would invite a duplicate.
    dependencies.log.error('could not start the Knowledge Base sync after a publish', { error });
    ingestion = 'pending';
  }
  if (ingestion === 'pending') await oweSync(dependencies, publishedAt);
  return { issueId, ingestion, personalDataRemoved };
}

/**
 * Marks a sync as owed: the sync catch-up starts it within minutes. Should even the mark fail,
 * the next publish, deploy or `npm run ingest` still embeds the ticket.
 */
async function oweSync(dependencies: PublishDependencies, at: Date): Promise<void> {
  await dependencies.syncBacklog
    .markPending(at)
    .catch((error: unknown) => dependencies.log.error('could not note the owed sync', { error }));
}

/**
 * The store said no, so the record surely did not land (the conversation is gone, the inquiry
 * was published meanwhile): any refusal but an outage, after which the write may have landed.
 */
function isDefiniteRefusal(error: unknown): boolean {
  return (
    error instanceof RequestRefusedError &&
    !(error instanceof StoreUnavailableError) &&
    !(error instanceof KnowledgeStoreUnavailableError)
  );
}

async function removeQuietly(documents: KnowledgeDocuments, files: TicketDocumentFiles, log: Log) {
  await documents
    .remove(files)
    .catch((error: unknown) => log.error('could not remove a half-published ticket', { error }));
}
