import { DOWNSCALE_LONG_EDGE_PIXELS } from '../../../functions/contract/attachments.js';

/**
 * A JPEG decoded straight to a reduced size: libjpeg(-turbo) can run its inverse DCT at M/8 of
 * the full size (1/8 … 8/8), so a 12 MP photo decodes to 2,000 × 1,500 px without ever
 * producing the 12 MP of pixels the composer would throw away. Chromium's WebCodecs
 * `ImageDecoder` does so when given `desiredWidth`/`desiredHeight`, and picks the largest of
 * those scales that fits within the size asked for — so the size asked for is that of the
 * smallest scale whose long edge still reaches the model's {@link DOWNSCALE_LONG_EDGE_PIXELS}
 * (never below it: the canvas then only shrinks, never enlarges).
 */

/**
 * The M/8 size to ask the decoder for, or `undefined` when no reduced scale keeps the long edge
 * at the model's size (the image is already small enough, or only 8/8 reaches it).
 *
 * @example
 * reducedJpegDecodeSize({ width: 4000, height: 3000 }) // { width: 2000, height: 1500 }
 */
export function reducedJpegDecodeSize(size: {
  readonly width: number;
  readonly height: number;
}): { readonly width: number; readonly height: number } | undefined {
  const longEdge = Math.max(size.width, size.height);
  if (longEdge <= DOWNSCALE_LONG_EDGE_PIXELS) return undefined;
  const eighths = Math.ceil((8 * DOWNSCALE_LONG_EDGE_PIXELS) / longEdge);
  if (eighths >= 8) return undefined;
  // libjpeg rounds a scaled dimension up.
  return {
    width: Math.ceil((size.width * eighths) / 8),
    height: Math.ceil((size.height * eighths) / 8),
  };
}

/**
 * The JPEG `file` (whose header declares `size`) decoded at a reduced scale, its EXIF
 * orientation applied — or `undefined` when this browser cannot (no `ImageDecoder`, as in
 * Safari), no reduced scale helps, or the decoder fails or comes back smaller than
 * the model's size; the caller then decodes the whole image as before.
 */
export async function decodeJpegReduced(
  file: Blob,
  size: { readonly width: number; readonly height: number },
): Promise<ImageBitmap | undefined> {
  const desired = reducedJpegDecodeSize(size);
  if (!desired || typeof ImageDecoder === 'undefined') return undefined;
  let decoder: ImageDecoder | undefined;
  try {
    decoder = new ImageDecoder({
      data: file.stream(),
      type: 'image/jpeg',
      desiredWidth: desired.width,
      desiredHeight: desired.height,
    });
    const { image } = await decoder.decode();
    // An ImageBitmap of the frame draws faster than the VideoFrame itself, and keeps the
    // frame's rotation (the EXIF orientation) as a plain bitmap does.
    let bitmap: ImageBitmap;
    try {
      bitmap = await createImageBitmap(image);
    } finally {
      image.close();
    }
    if (Math.max(bitmap.width, bitmap.height) < DOWNSCALE_LONG_EDGE_PIXELS) {
      bitmap.close();
      return undefined;
    }
    return bitmap;
  } catch {
    // Unsupported or unreadable here: the full decode decides (and names a corrupt file).
    return undefined;
  } finally {
    decoder?.close();
  }
}
