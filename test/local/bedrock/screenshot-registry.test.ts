import { readFileSync } from 'node:fs';
import jpeg from 'jpeg-js';
import { GifWriter } from 'omggif';
import { describe, expect, it } from 'vitest';
import { readWebpSize } from '../../../local/bedrock/offline-responder/image-pixels.js';
import type { OfflineImage } from '../../../local/bedrock/offline-responder/offline-request.js';
import {
  decodePng,
  encodePng,
  type Pixels,
} from '../../../local/bedrock/offline-responder/png-pixels.js';
import {
  readScreenshotsOffline,
  recognizeScreenshot,
} from '../../../local/bedrock/offline-responder/screenshots/screenshot-registry.js';
import { halfSizePixels } from '../../support/half-size-pixels.js';

// The offline vision step recognises its fixture screenshot whatever the browser re-encoded it
// as: PNG, JPEG and GIF by their pixels, WebP by its size.

const fixture = decodePng(
  readFileSync(
    new URL(
      '../../../local/bedrock/offline-responder/screenshots/outlook-552-message-size.png',
      import.meta.url,
    ),
  ),
) as Pixels;
const OUTLOOK_ERROR = '552 5.3.4 Message size exceeds fixed maximum message size';

const asJpeg = (pixels: Pixels, quality: number): OfflineImage => ({
  format: 'jpeg',
  bytes: jpeg.encode({ width: pixels.width, height: pixels.height, data: pixels.rgba }, quality)
    .data,
});

/** A GIF of an image with at most 256 colours (the fixture has 8). */
function asGif(pixels: Pixels): OfflineImage {
  const palette: number[] = [];
  const indexed: number[] = [];
  for (let at = 0; at < pixels.rgba.length; at += 4) {
    const colour =
      ((pixels.rgba[at] ?? 0) << 16) |
      ((pixels.rgba[at + 1] ?? 0) << 8) |
      (pixels.rgba[at + 2] ?? 0);
    let index = palette.indexOf(colour);
    if (index < 0) index = palette.push(colour) - 1;
    indexed.push(index);
  }
  while (palette.length < 2 || (palette.length & (palette.length - 1)) !== 0) palette.push(0);
  const buffer = Buffer.alloc(pixels.width * pixels.height * 2 + 1024);
  const writer = new GifWriter(buffer, pixels.width, pixels.height, { palette });
  writer.addFrame(0, 0, pixels.width, pixels.height, indexed);
  return { format: 'gif', bytes: buffer.subarray(0, writer.end()) };
}

/** A WebP's header as an encoder writes it: RIFF, then a lossless (VP8L) frame's size. */
function losslessWebpHeader(width: number, height: number): OfflineImage {
  const bytes = Buffer.alloc(40);
  bytes.write('RIFF', 0, 'latin1');
  bytes.writeUInt32LE(32, 4);
  bytes.write('WEBPVP8L', 8, 'latin1');
  bytes.writeUInt32LE(20, 16);
  bytes[20] = 0x2f;
  bytes.writeUInt32LE((width - 1) | ((height - 1) << 14), 21);
  return { format: 'webp', bytes };
}

/** The fixture downscaled and re-encoded as a browser would send it (once: jpeg-js builds its tables per encode). */
const halfSizeJpeg = asJpeg(halfSizePixels(fixture), 60);

describe('recognizeScreenshot', () => {
  it('reads the fixture downscaled and re-encoded as JPEG', () => {
    expect(recognizeScreenshot(halfSizeJpeg)?.visibleErrorText).toBe(OUTLOOK_ERROR);
  });

  it('reads the fixture as a GIF', () => {
    expect(recognizeScreenshot(asGif(fixture))?.visibleErrorText).toBe(OUTLOOK_ERROR);
  });

  it('reads a WebP by its size: the fixture’s own or its ratio at half, nothing else', () => {
    expect(recognizeScreenshot(losslessWebpHeader(720, 220))?.visibleErrorText).toBe(OUTLOOK_ERROR);
    expect(recognizeScreenshot(losslessWebpHeader(360, 110))?.visibleErrorText).toBe(OUTLOOK_ERROR);
    expect(recognizeScreenshot(losslessWebpHeader(700, 220))).toBeUndefined();
    expect(recognizeScreenshot(losslessWebpHeader(180, 55))).toBeUndefined();
    expect(recognizeScreenshot(losslessWebpHeader(1440, 440))).toBeUndefined();
  });

  it('knows no other picture, and a damaged file is no error', () => {
    const gradient: Pixels = {
      width: 64,
      height: 48,
      rgba: Uint8Array.from({ length: 64 * 48 * 4 }, (_, at) =>
        at % 4 === 3 ? 255 : ((at >> 2) % 64) * 4,
      ),
    };
    expect(recognizeScreenshot({ format: 'png', bytes: encodePng(gradient) })).toBeUndefined();
    const cut = asJpeg(fixture, 85);
    expect(
      recognizeScreenshot({ format: 'jpeg', bytes: cut.bytes.subarray(0, 300) }),
    ).toBeUndefined();
    expect(recognizeScreenshot({ format: 'gif', bytes: Buffer.from('GIF89a') })).toBeUndefined();
    expect(recognizeScreenshot({ format: 'webp', bytes: Buffer.from('RIFF') })).toBeUndefined();
  });

  it('describes an unknown image by its format and size', () => {
    const reading = readScreenshotsOffline({
      messages: [{ role: 'user', text: '', images: [losslessWebpHeader(100, 100)] }],
    } as unknown as Parameters<typeof readScreenshotsOffline>[0]);
    expect(reading.visibleErrorText).toBe('');
    expect(reading.description).toMatch(/^Unrecognised screenshot \(WEBP 1 KB\)/);
  });
});

describe('readWebpSize', () => {
  it('reads the lossless, lossy and extended headers', () => {
    expect(readWebpSize(losslessWebpHeader(720, 220).bytes)).toEqual({ width: 720, height: 220 });
    const lossy = Buffer.alloc(30);
    lossy.write('RIFF', 0, 'latin1');
    lossy.write('WEBPVP8 ', 8, 'latin1');
    lossy.set([0x9d, 0x01, 0x2a], 23);
    lossy.writeUInt16LE(360, 26);
    lossy.writeUInt16LE(110, 28);
    expect(readWebpSize(lossy)).toEqual({ width: 360, height: 110 });
    const extended = Buffer.alloc(30);
    extended.write('RIFF', 0, 'latin1');
    extended.write('WEBPVP8X', 8, 'latin1');
    extended.writeUIntLE(719, 24, 3);
    extended.writeUIntLE(219, 27, 3);
    expect(readWebpSize(extended)).toEqual({ width: 720, height: 220 });
  });
});
