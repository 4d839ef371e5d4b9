import {
  DOWNSCALE_LONG_EDGE_PIXELS,
  MAX_ATTACHMENT_BYTES,
  MAX_IMAGE_PIXELS,
} from '../../../functions/contract/attachments.js';
import { fitWithin, type ImageType } from './attachment-rules.js';
import { decodeJpegReduced } from './decode-jpeg-reduced.js';
import { readImageSize } from './read-image-size.js';

const JPEG_QUALITY = 0.85;
/** Enough for every header the size reader looks at (JPEG's EXIF segment comes first). */
const HEADER_BYTES = 256 * 1024;

export interface DownscaledImage {
  readonly blob: Blob;
  readonly type: 'image/png' | 'image/jpeg' | 'image/webp';
  readonly width: number;
  readonly height: number;
}

/** Why an image could not be prepared; the composer names it to staff. */
export class ImagePreparationError extends Error {
  override readonly name = 'ImagePreparationError';
  constructor(
    readonly reason: 'too_many_pixels' | 'unreadable',
    options?: { cause?: unknown },
  ) {
    super(
      reason === 'too_many_pixels' ? 'image has too many pixels' : 'image cannot be decoded',
      options,
    );
  }
}

/**
 * Decodes an image (its EXIF orientation applied), draws it with its long edge at most
 * {@link DOWNSCALE_LONG_EDGE_PIXELS} px and encodes it again — which also leaves every piece of metadata
 * behind (EXIF with a camera's GPS position, PNG text chunks). Screenshots stay PNG (sharp text),
 * photos JPEG, WebP WebP; a GIF becomes a PNG of its first frame. A large JPEG is decoded
 * straight to a reduced scale where the browser can (most of the time went to decoding pixels
 * that were then thrown away); `reducedJpegDecode: false` always decodes the whole image (the
 * benchmark's reference). An OffscreenCanvas where the browser has one, a canvas element
 * otherwise.
 */
export async function downscaleImage(
  file: Blob,
  sourceType: ImageType,
  options: { readonly reducedJpegDecode: boolean } = { reducedJpegDecode: true },
): Promise<DownscaledImage> {
  const declared = readImageSize(new Uint8Array(await file.slice(0, HEADER_BYTES).arrayBuffer()));
  // The server's decoder bound holds for the browser's too (the downscale decodes every pixel).
  if (declared && declared.width * declared.height > MAX_IMAGE_PIXELS)
    throw new ImagePreparationError('too_many_pixels');
  const reduced =
    options.reducedJpegDecode && sourceType === 'image/jpeg' && declared
      ? await decodeJpegReduced(file, declared)
      : undefined;
  let bitmap: ImageBitmap;
  try {
    bitmap = reduced ?? (await createImageBitmap(file, { imageOrientation: 'from-image' }));
  } catch (cause) {
    throw new ImagePreparationError('unreadable', { cause });
  }
  try {
    const { width, height } = fitWithin(bitmap);
    const wanted: DownscaledImage['type'] =
      sourceType === 'image/jpeg' || sourceType === 'image/webp' ? sourceType : 'image/png';
    let blob = await encode(bitmap, width, height, wanted);
    // A browser that cannot encode the type asked for encodes PNG (the canvas rule).
    let type: DownscaledImage['type'] = blob.type === wanted ? wanted : 'image/png';
    if (blob.size > MAX_ATTACHMENT_BYTES && type !== 'image/jpeg') {
      blob = await encode(bitmap, width, height, 'image/jpeg');
      type = 'image/jpeg';
    }
    return { blob, type, width, height };
  } finally {
    bitmap.close();
  }
}

async function encode(
  bitmap: ImageBitmap,
  width: number,
  height: number,
  type: DownscaledImage['type'],
): Promise<Blob> {
  const quality = type === 'image/png' ? undefined : JPEG_QUALITY;
  if (typeof OffscreenCanvas !== 'undefined') {
    const canvas = new OffscreenCanvas(width, height);
    draw(canvas.getContext('2d'), bitmap, width, height, type);
    return canvas.convertToBlob({ type, ...(quality !== undefined ? { quality } : {}) });
  }
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  draw(canvas.getContext('2d'), bitmap, width, height, type);
  return new Promise((resolve, reject) =>
    canvas.toBlob(
      (blob) => (blob ? resolve(blob) : reject(new ImagePreparationError('unreadable'))),
      type,
      quality,
    ),
  );
}

function draw(
  context: OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D | null,
  bitmap: ImageBitmap,
  width: number,
  height: number,
  type: DownscaledImage['type'],
): void {
  if (!context) throw new ImagePreparationError('unreadable');
  // JPEG has no transparency: transparent pixels would turn black.
  if (type === 'image/jpeg') {
    context.fillStyle = '#fff';
    context.fillRect(0, 0, width, height);
  }
  context.imageSmoothingEnabled = true;
  context.imageSmoothingQuality = 'high';
  context.drawImage(bitmap, 0, 0, width, height);
}
