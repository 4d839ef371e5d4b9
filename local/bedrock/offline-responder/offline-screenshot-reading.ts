import type { AttachmentReading } from '../../../functions/contract/attachments.js';
import type { OfflineRequest } from './offline-request.js';
import { recognizeScreenshot } from './screenshots/screenshot-registry.js';

/**
 * The offline vision step (ADR 0030): the last user message's images read deterministically by
 * their pixels — a registered fixture screenshot gives its known reading, anything else is
 * described by its format and size — so upload, reading, retrieval and answer run without a model.
 */
export function readScreenshotsOffline(request: OfflineRequest): AttachmentReading {
  const images = request.messages.findLast((message) => message.role === 'user')?.images ?? [];
  for (const image of images) {
    const known = image.format === 'png' ? recognizeScreenshot(image.bytes) : undefined;
    if (known) return known;
  }
  const sizes = images.map(
    (image) =>
      `${image.format.toUpperCase()} ${Math.max(1, Math.round(image.bytes.length / 1024))} KB`,
  );
  return {
    visibleErrorText: '',
    application: '',
    errorCodes: [],
    description: `Unrecognised screenshot (${sizes.join(', ') || 'no image'}): the offline responder reads only its fixture screenshots`,
  };
}
