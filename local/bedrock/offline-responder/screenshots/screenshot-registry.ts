import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AttachmentReading } from '../../../../functions/contract/attachments.js';
import { seeImage } from '../image-pixels.js';
import type { OfflineImage, OfflineRequest } from '../offline-request.js';
import { decodePng, differenceHash, hashDistance } from '../png-pixels.js';
import type { ErrorDialog } from './draw-error-dialog.js';

/**
 * The screenshots the offline responder "reads" (ADR 0030): each a committed fixture PNG, drawn
 * by `generate-screenshots.ts`, with what a vision model would report of it. An image is matched
 * by its pixels — a difference hash within {@link MAX_HASH_DISTANCE} bits — so the browser's
 * downscale and re-encode (PNG, JPEG, GIF) still match, and metadata never matters; a WebP, which
 * the responder cannot decode, by its size (`recognizeScreenshot`).
 */
export interface ScreenshotFixture {
  /** The PNG beside this file. */
  readonly file: string;
  readonly dialog: ErrorDialog;
  readonly reading: AttachmentReading;
}

export const SCREENSHOT_FIXTURES: readonly ScreenshotFixture[] = [
  {
    // Ticket 1026 of the sample Knowledge Base: a mail refused for its size.
    file: 'outlook-552-message-size.png',
    dialog: {
      width: 720,
      height: 220,
      title: 'Microsoft Outlook',
      lines: [
        'Delivery has failed:',
        '552 5.3.4 Message size exceeds',
        'fixed maximum message size',
      ],
    },
    reading: {
      visibleErrorText: '552 5.3.4 Message size exceeds fixed maximum message size',
      application: 'Microsoft Outlook',
      errorCodes: ['552 5.3.4'],
      description:
        'Outlook のエラーダイアログ: 552 5.3.4 Message size exceeds fixed maximum message size（メールのサイズ上限超過で送信できない）',
    },
  },
];

/** Bits two hashes of the same screenshot may differ by after a downscale and re-encode. */
export const MAX_HASH_DISTANCE = 10;

interface KnownScreenshot {
  readonly hash: string;
  readonly width: number;
  readonly height: number;
  readonly reading: AttachmentReading;
}

let known: readonly KnownScreenshot[] | undefined;

function knownScreenshots(): readonly KnownScreenshot[] {
  known ??= SCREENSHOT_FIXTURES.map((fixture) => {
    const pixels = decodePng(readFileSync(join(import.meta.dirname, fixture.file)));
    if (!pixels) throw new Error(`${fixture.file} is not a PNG the responder decodes`);
    const { width, height } = pixels;
    return { hash: differenceHash(pixels), width, height, reading: fixture.reading };
  });
  return known;
}

/**
 * The fixture an image shows, if any. By its pixels where the responder decodes its format (PNG,
 * JPEG, GIF): the nearest difference hash within {@link MAX_HASH_DISTANCE} bits, whatever the
 * encoder, quality or scale. A WebP only by its size: a fixture's own, or its ratio (the short
 * edge within a pixel of rounding) at no less than half of it — what the browser's downscale
 * and re-encode of that fixture leave.
 */
export function recognizeScreenshot(image: OfflineImage): AttachmentReading | undefined {
  const sight = seeImage(image.format, image.bytes);
  if (sight === undefined) return undefined;
  if (sight.kind === 'size')
    return knownScreenshots().find((fixture) => fits(sight, fixture))?.reading;
  const hash = differenceHash(sight.pixels);
  const nearest = knownScreenshots()
    .map((fixture) => ({ ...fixture, distance: hashDistance(hash, fixture.hash) }))
    .sort((a, b) => a.distance - b.distance)[0];
  return nearest && nearest.distance <= MAX_HASH_DISTANCE ? nearest.reading : undefined;
}

function fits(
  size: { readonly width: number; readonly height: number },
  fixture: KnownScreenshot,
): boolean {
  if (size.width > fixture.width || size.width * 2 < fixture.width) return false;
  return Math.abs(size.height - (fixture.height * size.width) / fixture.width) <= 1;
}

/**
 * The offline vision step (ADR 0030): the last user message's images read deterministically by
 * their pixels — a registered fixture screenshot gives its known reading, anything else is
 * described by its format and size — so upload, reading, retrieval and answer run without a model.
 */
export function readScreenshotsOffline(request: OfflineRequest): AttachmentReading {
  const images = request.messages.findLast((message) => message.role === 'user')?.images ?? [];
  for (const image of images) {
    const reading = recognizeScreenshot(image);
    if (reading) return reading;
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
