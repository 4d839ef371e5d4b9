import {
  ATTACHMENT_NAME_HEADER,
  type AttachmentRef,
  type AttachmentType,
  attachmentUploadResponseSchema,
} from '../../../functions/contract/attachments.js';
import { callApi } from './api-error.js';

/**
 * The attachment routes (ADR 0030). `fetch` is the identity-adding one from `createApiFetch`,
 * which also signs the bytes for CloudFront; every refusal rejects with an `ApiError` carrying
 * the server's code (415 type, 413 size or pixels, 400 corrupt, 404 not found).
 */
export interface AttachmentApi {
  /** `POST /attachments`: the bytes as they are, declared as `type`; what the server stored. */
  upload(
    bytes: Blob,
    options: {
      readonly type: AttachmentType;
      readonly name?: string;
      readonly signal?: AbortSignal;
    },
  ): Promise<AttachmentRef>;
  /** `GET /attachments/{id}`: the stored bytes, typed as the server sniffed them. */
  download(id: string, signal?: AbortSignal): Promise<Blob>;
}

export function createAttachmentApi(apiBase: string, apiFetch: typeof fetch): AttachmentApi {
  return {
    async upload(bytes, { type, name, signal }) {
      const response = await callApi(apiFetch, `${apiBase}/attachments`, {
        method: 'POST',
        headers: {
          'content-type': type,
          ...(name !== undefined ? { [ATTACHMENT_NAME_HEADER]: encodeURIComponent(name) } : {}),
        },
        body: bytes,
        ...(signal ? { signal } : {}),
      });
      const {
        attachmentId,
        textEncoding: _encoding,
        ...facts
      } = attachmentUploadResponseSchema.parse(await response.json());
      return { id: attachmentId, ...facts };
    },
    async download(id, signal) {
      const response = await callApi(
        apiFetch,
        `${apiBase}/attachments/${encodeURIComponent(id)}`,
        signal ? { signal } : {},
      );
      return response.blob();
    },
  };
}
