import type { ImageType } from './attachment-rules.js';
import { type DownscaledImage, downscaleImage, ImagePreparationError } from './downscale-image.js';

/**
 * The composer's downscale in a dedicated worker (`prepare-image.ts` starts it): one request,
 * one reply, matched by `id`.
 */

export interface DownscaleRequest {
  readonly id: number;
  readonly file: Blob;
  readonly sourceType: ImageType;
}

export type DownscaleReply =
  | { readonly id: number; readonly image: DownscaledImage }
  | { readonly id: number; readonly failure: ImagePreparationError['reason'] };

// A worker's global scope; the page's DOM typings describe a window's.
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<DownscaleRequest>) => void) | null;
  postMessage(reply: DownscaleReply): void;
};

scope.onmessage = async ({ data: { id, file, sourceType } }) => {
  try {
    scope.postMessage({ id, image: await downscaleImage(file, sourceType) });
  } catch (error) {
    scope.postMessage({
      id,
      failure: error instanceof ImagePreparationError ? error.reason : 'unreadable',
    });
  }
};
