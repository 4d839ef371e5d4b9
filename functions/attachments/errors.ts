import { RequestRefusedError } from '../chat/errors.js';
import type { AttachmentErrorCode } from '../contract/attachments.js';

/** An upload refused for what its bytes are; the code chooses the status (415, 413, 400). */
export class AttachmentRefusedError extends RequestRefusedError {
  constructor(
    readonly code: AttachmentErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AttachmentRefusedError';
  }
}
