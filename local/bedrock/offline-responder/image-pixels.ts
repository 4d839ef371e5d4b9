import jpeg from 'jpeg-js';
import { GifReader } from 'omggif';
import { decodePng, type Pixels } from './png-pixels.js';

/**
 * What the offline responder can see of an image in a ConverseStream `image` block (format
 * `png`, `jpeg`, `gif` or `webp`): its pixels where a pure-JS decoder exists — PNG by hand
 * (`png-pixels.ts`), JPEG with `jpeg-js`, a GIF's first frame with `omggif` — and for WebP,
 * which has none, only the size its header declares. Local tooling: the function never decodes
 * pixels (ADR 0030).
 */
export type ImageSight =
  | { readonly kind: 'pixels'; readonly pixels: Pixels }
  | { readonly kind: 'size'; readonly width: number; readonly height: number };

/** Undefined for another format or bytes the decoder cannot read. */
export function seeImage(format: string, bytes: Uint8Array): ImageSight | undefined {
  const pixels =
    format === 'png'
      ? decodePng(bytes)
      : format === 'jpeg'
        ? decodeJpeg(bytes)
        : format === 'gif'
          ? decodeGifFirstFrame(bytes)
          : undefined;
  if (pixels) return { kind: 'pixels', pixels };
  const size = format === 'webp' ? readWebpSize(bytes) : undefined;
  return size && { kind: 'size', ...size };
}

/** Larger than any image the function accepts (8,000 × 8,000 px): the decoder's own bound. */
const JPEG_MAX_MEGAPIXELS = 64;

function decodeJpeg(bytes: Uint8Array): Pixels | undefined {
  try {
    const { width, height, data } = jpeg.decode(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      maxResolutionInMP: JPEG_MAX_MEGAPIXELS,
    });
    return { width, height, rgba: data };
  } catch {
    return undefined;
  }
}

/** The first frame drawn on the logical screen; pixels it leaves out stay transparent. */
function decodeGifFirstFrame(bytes: Uint8Array): Pixels | undefined {
  try {
    const reader = new GifReader(bytes);
    const rgba = new Uint8Array(reader.width * reader.height * 4);
    reader.decodeAndBlitFrameRGBA(0, rgba);
    return { width: reader.width, height: reader.height, rgba };
  } catch {
    return undefined;
  }
}

/** The canvas size of a WebP: `VP8X`'s, or the lossy (`VP8 `) or lossless (`VP8L`) frame's. */
export function readWebpSize(
  bytes: Uint8Array,
): { readonly width: number; readonly height: number } | undefined {
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (body.toString('latin1', 0, 4) !== 'RIFF' || body.toString('latin1', 8, 12) !== 'WEBP') {
    return undefined;
  }
  const chunk = body.toString('latin1', 12, 16);
  if (chunk === 'VP8X' && body.length >= 30) {
    return { width: 1 + body.readUIntLE(24, 3), height: 1 + body.readUIntLE(27, 3) };
  }
  // A key frame: 3 bytes of frame tag, the start code 9d 01 2a, then 14-bit width and height.
  if (chunk === 'VP8 ' && body.length >= 30 && body.readUIntBE(23, 3) === 0x9d012a) {
    return { width: body.readUInt16LE(26) & 0x3fff, height: body.readUInt16LE(28) & 0x3fff };
  }
  // The signature 0x2f, then 14 bits of width - 1 and 14 of height - 1.
  if (chunk === 'VP8L' && body.length >= 25 && body[20] === 0x2f) {
    const bits = body.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  return undefined;
}
