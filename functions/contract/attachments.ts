import * as z from 'zod';
import { ulidSchema } from './ids.js';

/**
 * Attachments (docs/adr/0030-attachments.md): screenshots and log files sent with an inquiry.
 * The bytes are uploaded first, each on its own, and a chat message names them by id:
 *
 * - `POST /api/attachments` — body: the file's bytes; `content-type`: its declared media type;
 *   `x-file-name` (optional): its name, percent-encoded UTF-8 (`encodeURIComponent`). The server
 *   decides the type from the bytes (a declared type that disagrees is refused), strips metadata
 *   and answers `201` {@link attachmentUploadResponseSchema}, or one of
 *   {@link ATTACHMENT_ERROR_CODES}; nothing is stored on a refusal.
 * - `GET /api/attachments/{id}` — the stored bytes, only to their owner (anyone else and an
 *   unknown id: 404 `attachment_not_found`), with `content-type` from the sniffed bytes,
 *   `x-content-type-options: nosniff` and `content-disposition: attachment`: nothing served here
 *   ever renders as a page (the page fetches the bytes with its token and shows a `blob:` URL).
 * - `POST /api/chat` — `attachmentIds` (at most {@link MAX_ATTACHMENTS_PER_MESSAGE}, the caller's
 *   own); the stored user turn keeps an {@link AttachmentRef} per id.
 *
 * Binary bodies are sent as they are; behind CloudFront the page signs them like JSON bodies
 * (`x-amz-content-sha256`: the hex SHA-256 of the bytes).
 */

/** Files one message may carry. */
export const MAX_ATTACHMENTS_PER_MESSAGE = 5;

/**
 * Bytes of one uploaded file, checked by the server. The Function URL takes at most 6 MB of
 * request, which holds 4 MB base64-encoded; the browser's downscale keeps screenshots far below.
 */
export const MAX_ATTACHMENT_BYTES = 4 * 1024 * 1024;

/**
 * Bytes an upload's body may have before the API refuses it unread: more than a file may have
 * (so a file over {@link MAX_ATTACHMENT_BYTES} gets the attachment's own 413 and message), and
 * more than the Function URL lets through (6 MB of request), so in production that front refuses
 * first.
 */
export const MAX_UPLOAD_BODY_BYTES = 8 * 1024 * 1024;

/** Bytes of one text file (a log excerpt, not a whole log). */
export const MAX_TEXT_ATTACHMENT_BYTES = 200 * 1024;

/**
 * Pixels along either edge of an image: the model's own limit. A larger image is refused (413)
 * from its header, before any pixel is decoded, which also stops decompression bombs.
 */
export const MAX_IMAGE_EDGE_PIXELS = 8000;

/** Pixels of an image in all (width × height): the decoder's memory bound. */
export const MAX_IMAGE_PIXELS = 8000 * 8000;

/** The long edge the browser downscales images to: what the model reads at full detail. */
export const DOWNSCALE_LONG_EDGE_PIXELS = 1568;

/** Image types accepted, as the bytes say (magic numbers); also the `content-type` to declare. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;

/** Text types accepted; a text file's bytes must be UTF-8 (or Shift_JIS, decoded to UTF-8). */
export const TEXT_MEDIA_TYPES = ['text/plain', 'text/csv', 'application/json'] as const;

/** The file-name endings the composer offers for text files, and the type each is declared as. */
export const TEXT_FILE_EXTENSIONS = {
  '.txt': 'text/plain',
  '.log': 'text/plain',
  '.csv': 'text/csv',
  '.json': 'application/json',
} as const satisfies Record<string, (typeof TEXT_MEDIA_TYPES)[number]>;

export const attachmentTypeSchema = z.enum([...IMAGE_MEDIA_TYPES, ...TEXT_MEDIA_TYPES]);
/** The media type of a stored attachment, from its bytes. */
export type AttachmentType = z.infer<typeof attachmentTypeSchema>;

export function isImageType(type: AttachmentType): type is (typeof IMAGE_MEDIA_TYPES)[number] {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(type);
}

/** The id of an attachment (a ULID), as in `/api/attachments/{id}` and `attachmentIds`. */
export const attachmentIdSchema = ulidSchema('attachmentId');

/** A file name as shown beside the attachment: no path, no controls, at most this long. */
export const MAX_ATTACHMENT_NAME_LENGTH = 200;

/** How a text file's bytes were read: UTF-8 as sent, or Shift_JIS decoded and stored as UTF-8. */
export const textEncodingSchema = z.enum(['utf-8', 'shift_jis']);
export type TextEncoding = z.infer<typeof textEncodingSchema>;

const attachmentFields = {
  type: attachmentTypeSchema,
  /** Bytes as stored (after metadata is stripped, or a text file re-encoded as UTF-8). */
  size: z.number().int().min(0),
  /** Images: pixels. */
  width: z.number().int().min(1).optional(),
  height: z.number().int().min(1).optional(),
  /** The name sent in `x-file-name`, sanitized; absent when none was sent. */
  name: z.string().max(MAX_ATTACHMENT_NAME_LENGTH).optional(),
};

/**
 * `201` of `POST /api/attachments`.
 * @example
 * { "attachmentId": "01J…", "type": "image/png", "size": 48213, "width": 1280, "height": 720 }
 */
export const attachmentUploadResponseSchema = z.object({
  attachmentId: z.string(),
  ...attachmentFields,
  /** Text files: how the bytes were read (`shift_jis`: decoded, served and stored as UTF-8). */
  textEncoding: textEncodingSchema.optional(),
});
export type AttachmentUploadResponse = z.infer<typeof attachmentUploadResponseSchema>;

/** What a stored user turn keeps of each attachment (`turns[].attachments`). */
export const attachmentRefSchema = z.object({ id: z.string(), ...attachmentFields });
export type AttachmentRef = z.infer<typeof attachmentRefSchema>;

/** `attachmentIds` of `POST /api/chat`: distinct ids, at most five. */
export const attachmentIdsSchema = z
  .array(attachmentIdSchema)
  .refine((ids) => ids.length <= MAX_ATTACHMENTS_PER_MESSAGE, {
    message: `attachmentIds has at most ${MAX_ATTACHMENTS_PER_MESSAGE} ids`,
    params: { code: 'too_many_attachments' },
  })
  .refine((ids) => new Set(ids).size === ids.length, 'attachmentIds must not repeat an id');

/** The vision step's forced tool (its definition: `functions/attachments/read-attachments.ts`). */
export const ATTACHMENT_READING_TOOL_NAME = 'read_screenshot';

/**
 * What the vision step read from the inquiry's images (one forced tool call): stored on the user
 * turn (`turns[].attachmentReading`); `description` is also what the archive of closed inquiries
 * keeps instead of the image.
 */
export const attachmentReadingSchema = z.object({
  /** The error text visible in the screenshot, verbatim (empty when there is none). */
  visibleErrorText: z.string().max(1000),
  /** The application showing it (`Outlook`, `Teams` …; empty when unknown). */
  application: z.string().max(100),
  /** Error codes and ticket references visible (`0x800CCC0E`, `INC0012345`). */
  errorCodes: z.array(z.string().max(100)).max(10),
  /** One line: what the images show. */
  description: z.string().max(300),
});
export type AttachmentReading = z.infer<typeof attachmentReadingSchema>;

/**
 * The codes of a refused upload or of `attachmentIds` (each also in `REQUEST_ERROR_CODES`):
 * - `attachment_type_refused` 415: the bytes are no accepted type (SVG, HTML, executables,
 *   archives, anything unknown), or not the declared one (a PNG sent as `text/plain`).
 * - `attachment_too_large` 413: over {@link MAX_ATTACHMENT_BYTES}, or a text file over
 *   {@link MAX_TEXT_ATTACHMENT_BYTES}.
 * - `image_too_many_pixels` 413: an edge over {@link MAX_IMAGE_EDGE_PIXELS} (decompression bombs).
 * - `corrupt_image` 400: the image's bytes cannot be read as the type they start as.
 * - `text_not_decodable` 400: a text file neither UTF-8 nor Shift_JIS.
 * - `too_many_attachments` 400: more than {@link MAX_ATTACHMENTS_PER_MESSAGE} ids.
 * - `attachment_not_found` 404: no such attachment of the caller's (another user's is the same).
 */
export const ATTACHMENT_ERROR_CODES = [
  'attachment_type_refused',
  'attachment_too_large',
  'image_too_many_pixels',
  'corrupt_image',
  'text_not_decodable',
  'too_many_attachments',
  'attachment_not_found',
] as const;
export type AttachmentErrorCode = (typeof ATTACHMENT_ERROR_CODES)[number];

/** The header that names an uploaded file (percent-encoded UTF-8). */
export const ATTACHMENT_NAME_HEADER = 'x-file-name';
