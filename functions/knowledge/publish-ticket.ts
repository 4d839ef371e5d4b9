import {
  type ConversationStore,
  KnowledgeAlreadyPublishedError,
  type Owner,
} from '../chat/ports.js';
import {
  isSolvedInquiry,
  type PublishKnowledgeRequest,
  type PublishKnowledgeResponse,
} from '../contract/knowledge.js';
import type { SyncBacklog } from './owed-sync.js';
import type { ScrubSettings } from './personal-data-scrub.js';
import {
  renderTicketDocuments,
  type TicketDocumentFiles,
  type TicketDocumentNames,
} from './ticket-document.js';
import { draftScrubOptions, inquiryTranscript, scrubDraft } from './ticket-draft.js';

/**
 * Publishing a solved inquiry as a knowledge ticket (ADR 0011), in an order where every failure
 * leaves nothing half-written: check, take a number, write the documents, record the ticket on
 * the conversation, start the sync. The documents are written before the record so that a
 * recorded ticket always exists; a record refused afterwards removes them again. The edited
 * draft is scrubbed of personal data again before anything is written (ADR 0019): the editor
 * may have typed a name or an address back in place of a placeholder.
 */

/** The Knowledge Base's documents (the S3 data source in AWS; the local one locally). */
export interface KnowledgeDocuments {
  /** Writes the sidecar, then the document (a document is never visible without its metadata). */
  write(files: TicketDocumentFiles): Promise<void>;
  /** Removes the document, then the sidecar. */
  remove(names: TicketDocumentNames): Promise<void>;
  /** Starts a sync of the data source: `pending` when one is running and does not make way. */
  startSync(): Promise<PublishKnowledgeResponse['ingestion']>;
}

/** Ticket numbers for published tickets, never handed out twice. */
export interface IssueNumbers {
  next(tenantId: string): Promise<string>;
}

export interface PublishDependencies {
  readonly store: ConversationStore;
  readonly documents: KnowledgeDocuments;
  readonly issueNumbers: IssueNumbers;
  readonly syncBacklog: SyncBacklog;
  readonly now: () => Date;
  /** The deployment's scrub settings (patterns, dictionary, keep); default none. */
  readonly scrubSettings?: ScrubSettings;
}

export class InquiryNotFoundError extends Error {
  readonly statusCode = 404;
  readonly code = 'inquiry_not_found';
  constructor() {
    super('No such inquiry in this conversation');
    this.name = 'InquiryNotFoundError';
  }
}

export class InquiryNotSolvedError extends Error {
  readonly statusCode = 409;
  readonly code = 'inquiry_not_solved';
  constructor() {
    super(
      'Only a solved inquiry can become knowledge: its last answer must be complete results ' +
        '(not a clarification, an answer in progress, or a failed or stopped answer)',
    );
    this.name = 'InquiryNotSolvedError';
  }
}

/** The document bucket refused a write: nothing was recorded; trying again is safe. */
export class KnowledgeStoreUnavailableError extends Error {
  readonly statusCode = 503;
  readonly code = 'knowledge_store_unavailable';
  /** What `Retry-After` tells the client. */
  readonly retryAfterSeconds = 5;
  constructor(options?: { cause?: unknown }) {
    super('The Knowledge Base documents could not be written. Please try again.', options);
    this.name = 'KnowledgeStoreUnavailableError';
  }
}

/**
 * Checks that `inquiryId` is a solved inquiry of the owner's conversation and not yet published;
 * returns the conversation's turns for the caller (the draft reads them). Throws the 404/409s.
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

export async function publishTicket(
  owner: Owner,
  request: PublishKnowledgeRequest,
  dependencies: PublishDependencies,
): Promise<Omit<PublishKnowledgeResponse, 'unverifiedLinks'>> {
  const { store, documents } = dependencies;
  const { conversationId, inquiryId } = request;
  const { turns } = await loadSolvedInquiry(store, owner, conversationId, inquiryId);
  // The same person fields as the draft's: the owner and everyone the inquiry names.
  const { draft: scrubbed, counts: personalDataRemoved } = scrubDraft(
    request,
    draftScrubOptions(owner, inquiryTranscript(turns, inquiryId), dependencies.scrubSettings),
  );

  const issueId = await dependencies.issueNumbers.next(owner.tenantId);
  const publishedAt = dependencies.now();
  const files = renderTicketDocuments(issueId, scrubbed, {
    conversationId,
    inquiryId,
    author: owner,
    publishedAt,
  });
  try {
    await documents.write(files);
  } catch (error) {
    await removeQuietly(documents, files);
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
    if (isDefiniteRefusal(error)) await removeQuietly(documents, files);
    else await oweSync(dependencies, publishedAt);
    throw error;
  }

  let ingestion: PublishKnowledgeResponse['ingestion'];
  try {
    ingestion = await documents.startSync();
  } catch (error) {
    // The ticket is stored and recorded; failing the publish now would invite a duplicate.
    console.error('could not start the Knowledge Base sync after a publish', error);
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
    .catch((error: unknown) => console.error('could not note the owed sync', error));
}

function isDefiniteRefusal(error: unknown): boolean {
  const status = (error as { statusCode?: unknown })?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

async function removeQuietly(documents: KnowledgeDocuments, files: TicketDocumentFiles) {
  await documents
    .remove(files)
    .catch((error: unknown) => console.error('could not remove a half-published ticket', error));
}
