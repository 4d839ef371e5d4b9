import { ulid } from 'ulid';
import { type ApiRequest, type HttpResponse, jsonResponse } from '../api/http.js';
import type { Log } from '../chat/log.js';
import {
  ATTACHMENT_NAME_HEADER,
  type AttachmentUploadResponse,
  MAX_ATTACHMENT_NAME_LENGTH,
} from '../contract/attachments.js';
import { AttachmentRefusedError } from './errors.js';
import { inspectAttachment } from './inspect-attachment.js';
import type { AttachmentStore } from './ports.js';

export interface AttachmentRouteDependencies {
  readonly attachments: AttachmentStore;
  readonly log: Log;
}

/**
 * `POST /api/attachments` and `GET /api/attachments/{id}` (ADR 0030). An upload is inspected
 * whole (`inspect-attachment.ts`) before anything is stored, so a refusal stores nothing; a read
 * serves the owner's bytes under the type they were sniffed as, never as something a browser
 * would render as a page.
 */
export function createAttachmentRoutes(dependencies: AttachmentRouteDependencies) {
  const { attachments } = dependencies;
  return {
    async upload(request: ApiRequest): Promise<HttpResponse> {
      const name = fileNameOf(request.headers[ATTACHMENT_NAME_HEADER]);
      const inspected = await inspectAttachment(
        request.bodyBytes,
        request.headers['content-type'] ?? '',
        name,
      );
      const id = ulid();
      const ref = {
        id,
        type: inspected.type,
        size: inspected.bytes.length,
        ...(inspected.width !== undefined ? { width: inspected.width } : {}),
        ...(inspected.height !== undefined ? { height: inspected.height } : {}),
        ...(name !== undefined ? { name } : {}),
      };
      await attachments.put(request.owner, {
        ref,
        bytes: inspected.bytes,
        ...(inspected.textEncoding ? { textEncoding: inspected.textEncoding } : {}),
      });
      const { id: attachmentId, ...described } = ref;
      const body: AttachmentUploadResponse = {
        attachmentId,
        ...described,
        ...(inspected.textEncoding ? { textEncoding: inspected.textEncoding } : {}),
      };
      return jsonResponse(201, body, { location: `/api/attachments/${attachmentId}` });
    },

    async read(request: ApiRequest, id: string): Promise<HttpResponse> {
      const stored = await attachments.get(request.owner, id);
      if (stored === undefined) {
        throw new AttachmentRefusedError('attachment_not_found', 'Attachment not found');
      }
      const { ref } = stored;
      const isText = !ref.type.startsWith('image/');
      return {
        statusCode: 200,
        headers: {
          'content-type': isText ? `${ref.type}; charset=utf-8` : ref.type,
          'content-length': String(stored.bytes.length),
          'x-content-type-options': 'nosniff',
          // Never a page: a download, named without anything a header could be split on.
          'content-disposition': `attachment; filename="${asciiFileName(ref)}"${
            ref.name ? `; filename*=UTF-8''${encodeURIComponent(ref.name)}` : ''
          }`,
          'content-security-policy': "default-src 'none'; sandbox",
          'cache-control': 'private, max-age=3600, immutable',
        },
        // A stream body is written as bytes (a string body would be written as UTF-8 text).
        body: new Blob([Buffer.from(stored.bytes)]).stream(),
      };
    },
  };
}

/**
 * The file name from `x-file-name` (percent-encoded UTF-8): its last path segment, without
 * controls or bidirectional overrides, at most {@link MAX_ATTACHMENT_NAME_LENGTH} characters;
 * undefined when none (or nothing usable) was sent.
 */
function fileNameOf(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(header);
  } catch {
    decoded = header;
  }
  const name = (decoded.split(/[\\/]/).pop() ?? '')
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '')
    .trim()
    .slice(0, MAX_ATTACHMENT_NAME_LENGTH);
  return name === '' ? undefined : name;
}

function asciiFileName(ref: { id: string; type: string; name?: string }): string {
  const plain = ref.name?.replace(/[^\w.-]/g, '_');
  return plain && /[A-Za-z0-9]/.test(plain) ? plain : `${ref.id}.${ref.type.split('/')[1]}`;
}
