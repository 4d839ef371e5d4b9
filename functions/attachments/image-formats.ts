import { crc32, createInflate } from 'node:zlib';
import {
  type AttachmentType,
  type IMAGE_MEDIA_TYPES,
  MAX_IMAGE_EDGE_PIXELS,
  MAX_IMAGE_PIXELS,
} from '../contract/attachments.js';
import { AttachmentRefusedError } from './errors.js';

/**
 * The accepted image formats, read from their bytes (ADR 0030): PNG, JPEG, WebP and GIF — each
 * one's header and structure checked, its size refused before any pixel is decoded, and its
 * metadata (EXIF, text chunks, comments) removed from the bytes that are stored.
 */

type ImageType = (typeof IMAGE_MEDIA_TYPES)[number];

export const startsWith = (body: Buffer, bytes: readonly number[], at = 0) =>
  bytes.every((byte, index) => body[at + index] === byte);
export const ascii = (body: Buffer, at: number, length: number) =>
  body.subarray(at, at + length).toString('latin1');

export function sniffImageType(body: Buffer): ImageType | undefined {
  if (startsWith(body, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(body, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (ascii(body, 0, 4) === 'RIFF' && ascii(body, 8, 4) === 'WEBP') return 'image/webp';
  if (ascii(body, 0, 6) === 'GIF87a' || ascii(body, 0, 6) === 'GIF89a') return 'image/gif';
  return undefined;
}

function corrupt(type: ImageType, why: string): AttachmentRefusedError {
  return new AttachmentRefusedError('corrupt_image', `The ${type} image cannot be read: ${why}`);
}

/** Refuses an image larger than the limits from its header, before any pixel is decoded. */
function checkDimensions(type: ImageType, width: number, height: number): void {
  if (width < 1 || height < 1) throw corrupt(type, 'it has no pixels');
  if (
    width > MAX_IMAGE_EDGE_PIXELS ||
    height > MAX_IMAGE_EDGE_PIXELS ||
    width * height > MAX_IMAGE_PIXELS
  ) {
    throw new AttachmentRefusedError(
      'image_too_many_pixels',
      `The image is ${width} × ${height} pixels; at most ${MAX_IMAGE_EDGE_PIXELS} on each side are accepted`,
    );
  }
}

export async function inspectImage(
  type: ImageType,
  body: Buffer,
): Promise<{ type: AttachmentType; bytes: Buffer; width: number; height: number }> {
  switch (type) {
    case 'image/png':
      return { type, ...(await inspectPng(body)) };
    case 'image/jpeg':
      return { type, ...inspectJpeg(body) };
    case 'image/webp':
      return { type, ...inspectWebp(body) };
    case 'image/gif':
      return { type, ...inspectGif(body) };
  }
}

interface Image {
  readonly bytes: Buffer;
  readonly width: number;
  readonly height: number;
}

/**
 * PNG chunks kept: the critical ones, transparency, colour and the animation chunks (APNG).
 * Text (`tEXt`, `zTXt`, `iTXt`), EXIF (`eXIf`), time and every other ancillary chunk are dropped,
 * as is anything after `IEND` (where polyglot files hide an archive).
 */
const PNG_KEPT_CHUNKS = new Set([
  'IHDR',
  'PLTE',
  'IDAT',
  'IEND',
  'tRNS',
  'gAMA',
  'cHRM',
  'sRGB',
  'iCCP',
  'sBIT',
  'acTL',
  'fcTL',
  'fdAT',
]);

const PNG_CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

async function inspectPng(body: Buffer): Promise<Image> {
  const type = 'image/png';
  const kept: Buffer[] = [body.subarray(0, 8)];
  const compressed: Buffer[] = [];
  let offset = 8;
  let header: { width: number; height: number; rawBytes: number; interlaced: boolean } | undefined;
  let ended = false;
  while (!ended) {
    if (offset + 12 > body.length) throw corrupt(type, 'it ends before its IEND chunk');
    const length = body.readUInt32BE(offset);
    const name = ascii(body, offset + 4, 4);
    const end = offset + 12 + length;
    if (end > body.length) throw corrupt(type, `its ${name} chunk is cut off`);
    const data = body.subarray(offset + 8, offset + 8 + length);
    if (crc32(body.subarray(offset + 4, offset + 8 + length)) !== body.readUInt32BE(end - 4)) {
      throw corrupt(type, `its ${name} chunk fails its checksum`);
    }
    if (header === undefined && name !== 'IHDR') throw corrupt(type, 'it does not start with IHDR');
    if (name === 'IHDR') {
      if (length !== 13) throw corrupt(type, 'its IHDR chunk has the wrong length');
      const width = data.readUInt32BE(0);
      const height = data.readUInt32BE(4);
      checkDimensions(type, width, height);
      const bitDepth = data[8] ?? 0;
      const channels = PNG_CHANNELS[data[9] ?? -1];
      if (channels === undefined || ![1, 2, 4, 8, 16].includes(bitDepth)) {
        throw corrupt(type, 'its colour type or bit depth is not one PNG defines');
      }
      const rowBytes = Math.ceil((width * channels * bitDepth) / 8);
      header = { width, height, rawBytes: (rowBytes + 1) * height, interlaced: data[12] === 1 };
    } else if (name === 'IDAT') {
      compressed.push(data);
    } else if (name === 'IEND') {
      ended = true;
    } else if (!PNG_KEPT_CHUNKS.has(name) && (name.charCodeAt(0) & 0x20) === 0) {
      throw corrupt(type, `its critical chunk ${name} is unknown`);
    }
    if (PNG_KEPT_CHUNKS.has(name)) kept.push(body.subarray(offset, end));
    offset = end;
  }
  if (header === undefined || compressed.length === 0) throw corrupt(type, 'it has no image data');
  await checkInflatedLength(Buffer.concat(compressed), header);
  return { bytes: Buffer.concat(kept), width: header.width, height: header.height };
}

/**
 * The image data must inflate completely to at least the rows IHDR promises (an interlaced image
 * a little more), and no further than a bounded margin: a truncated stream is corrupt, and a
 * stream that inflates past its size is refused before it fills memory. Output is counted and
 * dropped, never kept.
 */
function checkInflatedLength(
  compressed: Buffer,
  header: { rawBytes: number; interlaced: boolean },
): Promise<void> {
  const type = 'image/png';
  // Adam7 adds a filter byte per row of each pass: at most 15 rows' worth over the whole image.
  const limit = header.rawBytes * (header.interlaced ? 2 : 1) + 1024;
  return new Promise((resolve, reject) => {
    let inflated = 0;
    const inflate = createInflate();
    inflate.on('data', (chunk: Buffer) => {
      inflated += chunk.length;
      if (inflated > limit) {
        inflate.destroy();
        reject(corrupt(type, 'its image data inflates beyond its size'));
      }
    });
    inflate.on('error', () => reject(corrupt(type, 'its image data is damaged or cut off')));
    inflate.on('end', () => {
      if (inflated < header.rawBytes && !header.interlaced) {
        reject(corrupt(type, 'its image data is shorter than its size'));
      } else resolve();
    });
    inflate.end(compressed);
  });
}

/** JPEG segments without a length. */
const isStandalone = (marker: number) =>
  marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0xd8 || marker === 0xd9;
/** Start-of-frame markers (those that give the size): C0–CF but DHT, JPG and DAC. */
const isStartOfFrame = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
/** APP0 (JFIF), APP2 (ICC profile) and APP14 (Adobe colour transform) are needed to show it. */
const JPEG_KEPT_APP = new Set([0xe0, 0xe2, 0xee]);

function inspectJpeg(body: Buffer): Image {
  const type = 'image/jpeg';
  const kept: Buffer[] = [body.subarray(0, 2)];
  let offset = 2;
  let size: { width: number; height: number } | undefined;
  for (;;) {
    if (offset + 2 > body.length) throw corrupt(type, 'it ends before its end marker');
    if (body[offset] !== 0xff) throw corrupt(type, 'a segment does not start with a marker');
    const marker = body[offset + 1] ?? 0;
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    if (marker === 0xd9) {
      kept.push(body.subarray(offset, offset + 2));
      break;
    }
    if (isStandalone(marker)) {
      kept.push(body.subarray(offset, offset + 2));
      offset += 2;
      continue;
    }
    if (offset + 4 > body.length) throw corrupt(type, 'a segment is cut off');
    const end = offset + 2 + body.readUInt16BE(offset + 2);
    if (end > body.length) throw corrupt(type, 'a segment is cut off');
    if (isStartOfFrame(marker)) {
      if (end - offset < 9) throw corrupt(type, 'its frame header is too short');
      size = { height: body.readUInt16BE(offset + 5), width: body.readUInt16BE(offset + 7) };
      checkDimensions(type, size.width, size.height);
    }
    const isApp = marker >= 0xe0 && marker <= 0xef;
    const dropped = (isApp && !JPEG_KEPT_APP.has(marker)) || marker === 0xfe;
    if (!dropped) kept.push(body.subarray(offset, end));
    offset = end;
    if (marker === 0xda) {
      if (size === undefined) throw corrupt(type, 'its scan comes before its frame header');
      // Entropy-coded data: up to the next marker that is not a stuffed byte or a restart.
      let scan = offset;
      while (
        scan + 1 < body.length &&
        !(
          body[scan] === 0xff &&
          body[scan + 1] !== 0x00 &&
          !((body[scan + 1] ?? 0) >= 0xd0 && (body[scan + 1] ?? 0) <= 0xd7)
        )
      ) {
        scan += 1;
      }
      if (scan + 1 >= body.length) throw corrupt(type, 'its image data is cut off');
      kept.push(body.subarray(offset, scan));
      offset = scan;
    }
  }
  if (size === undefined) throw corrupt(type, 'it has no frame header');
  return { bytes: Buffer.concat(kept), ...size };
}

/** WebP chunks kept: the image, alpha, colour profile and animation; EXIF and XMP are dropped. */
const WEBP_KEPT_CHUNKS = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ICCP', 'ANIM', 'ANMF']);
const VP8X_EXIF_AND_XMP_FLAGS = 0x08 | 0x04;

function inspectWebp(body: Buffer): Image {
  const type = 'image/webp';
  const declaredEnd = 8 + body.readUInt32LE(4);
  if (declaredEnd > body.length) throw corrupt(type, 'it is shorter than its RIFF header says');
  const kept: Buffer[] = [];
  let offset = 12;
  let size: { width: number; height: number } | undefined;
  let hasImage = false;
  while (offset < declaredEnd) {
    if (offset + 8 > declaredEnd) throw corrupt(type, 'a chunk header is cut off');
    const name = ascii(body, offset, 4);
    const length = body.readUInt32LE(offset + 4);
    const end = offset + 8 + length + (length % 2);
    if (offset + 8 + length > declaredEnd) throw corrupt(type, `its ${name} chunk is cut off`);
    const data = body.subarray(offset + 8, offset + 8 + length);
    if (name === 'VP8X') {
      if (length < 10) throw corrupt(type, 'its VP8X chunk is too short');
      size = { width: data.readUIntLE(4, 3) + 1, height: data.readUIntLE(7, 3) + 1 };
      const chunk = Buffer.from(body.subarray(offset, Math.min(end, declaredEnd)));
      chunk[8] = (chunk[8] ?? 0) & ~VP8X_EXIF_AND_XMP_FLAGS;
      kept.push(chunk);
    } else {
      if (name === 'VP8 ') {
        if (length < 10 || !startsWith(data, [0x9d, 0x01, 0x2a], 3)) {
          throw corrupt(type, 'its VP8 frame header is wrong');
        }
        size ??= { width: data.readUInt16LE(6) & 0x3fff, height: data.readUInt16LE(8) & 0x3fff };
        hasImage = true;
      } else if (name === 'VP8L') {
        if (length < 5 || data[0] !== 0x2f) throw corrupt(type, 'its VP8L header is wrong');
        const bits = data.readUInt32LE(1);
        size ??= { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
        hasImage = true;
      } else if (name === 'ANMF') {
        hasImage = true;
      }
      if (WEBP_KEPT_CHUNKS.has(name)) kept.push(body.subarray(offset, Math.min(end, declaredEnd)));
    }
    offset = end;
  }
  if (size === undefined || !hasImage) throw corrupt(type, 'it has no image data');
  checkDimensions(type, size.width, size.height);
  const chunks = Buffer.concat(kept);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(chunks.length + 4, 4);
  riff.write('WEBP', 8, 'latin1');
  return { bytes: Buffer.concat([riff, chunks]), ...size };
}

function inspectGif(body: Buffer): Image {
  const type = 'image/gif';
  if (body.length < 13) throw corrupt(type, 'its header is cut off');
  const width = body.readUInt16LE(6);
  const height = body.readUInt16LE(8);
  checkDimensions(type, width, height);
  const packed = body[10] ?? 0;
  let offset = 13 + (packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0);
  const kept: Buffer[] = [body.subarray(0, offset)];
  /** The end of the data sub-blocks starting at `at`. */
  const skipSubBlocks = (at: number): number => {
    let position = at;
    for (;;) {
      if (position >= body.length) throw corrupt(type, 'a data block is cut off');
      const length = body[position] ?? 0;
      position += 1 + length;
      if (length === 0) return position;
    }
  };
  let frames = 0;
  for (;;) {
    if (offset >= body.length) throw corrupt(type, 'it ends before its trailer');
    const introducer = body[offset];
    if (introducer === 0x3b) {
      kept.push(body.subarray(offset, offset + 1));
      break;
    }
    if (introducer === 0x2c) {
      if (offset + 10 > body.length) throw corrupt(type, 'an image descriptor is cut off');
      const frameWidth = body.readUInt16LE(offset + 5);
      const frameHeight = body.readUInt16LE(offset + 7);
      checkDimensions(type, frameWidth, frameHeight);
      const framePacked = body[offset + 9] ?? 0;
      const tableEnd = offset + 10 + (framePacked & 0x80 ? 3 * 2 ** ((framePacked & 0x07) + 1) : 0);
      const end = skipSubBlocks(tableEnd + 1);
      kept.push(body.subarray(offset, end));
      offset = end;
      frames += 1;
    } else if (introducer === 0x21) {
      const label = body[offset + 1];
      const end = skipSubBlocks(offset + 2);
      // Comments and application data (XMP …) go; the loop count (NETSCAPE2.0) and frame timing stay.
      const isLoop = label === 0xff && ascii(body, offset + 3, 11) === 'NETSCAPE2.0';
      if (label === 0xf9 || label === 0x01 || isLoop) kept.push(body.subarray(offset, end));
      offset = end;
    } else {
      throw corrupt(type, 'a block has an unknown introducer');
    }
  }
  if (frames === 0) throw corrupt(type, 'it has no image');
  return { bytes: Buffer.concat(kept), width, height };
}
