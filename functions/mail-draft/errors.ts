import { RequestRefusedError } from '../chat/errors.js';

/** What the mail draft refuses on purpose (ADR 0023), as the core's other refusals (`chat/errors.ts`). */

/** An answer's mail draft already has its maximum of versions (ADR 0023). */
export class MailDraftFullError extends RequestRefusedError {
  readonly code = 'mail_draft_full' as const;
  constructor(maxVersions: number) {
    super(`This answer's mail draft already has ${maxVersions} versions besides the original`);
  }
}
