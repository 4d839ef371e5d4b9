import { RequestRefusedError } from '../chat/errors.js';

/**
 * What knowledge capture refuses on purpose (ADR 0011), as the core's other refusals
 * (`chat/errors.ts`): a code from the wire contract, no HTTP status.
 */

/** The inquiry already became a ticket; the conflict names it so the page can link to it. */
export class KnowledgeAlreadyPublishedError extends RequestRefusedError {
  readonly code = 'already_published' as const;
  constructor(readonly issueId: string) {
    super(`This inquiry was already published as ticket #${issueId}`);
    this.name = 'KnowledgeAlreadyPublishedError';
  }
}

export class InquiryNotSolvedError extends RequestRefusedError {
  readonly code = 'inquiry_not_solved' as const;
  constructor() {
    super(
      'Only a solved inquiry can become knowledge: its last answer must be complete results ' +
        '(not a clarification, an answer in progress, or a failed or stopped answer)',
    );
    this.name = 'InquiryNotSolvedError';
  }
}

/** The document bucket refused a write: nothing was recorded; trying again is safe. */
export class KnowledgeStoreUnavailableError extends RequestRefusedError {
  readonly code = 'knowledge_store_unavailable' as const;
  /** What `Retry-After` tells the client. */
  readonly retryAfterSeconds = 5;
  constructor(options?: { cause?: unknown }) {
    super('The Knowledge Base documents could not be written. Please try again.', options);
    this.name = 'KnowledgeStoreUnavailableError';
  }
}
