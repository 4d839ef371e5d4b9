import { crc32, deflateSync, inflateSync } from 'node:zlib';

/**
 * PNG to and from pixels, for the offline responder's "reading" of screenshots and for the
 * fixture generator: 8-bit greyscale, RGB and RGBA (with or without alpha, with palette), not
 * interlaced — what browsers' canvases and screenshot tools write. Written with zlib alone so
 * the local stack needs no image library.
 */

/** An image as RGBA bytes, row by row. */
export interface Pixels {
  readonly width: number;
  readonly height: number;
  readonly rgba: Uint8Array;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(name: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(name, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

/**
 * Encodes RGBA pixels as an 8-bit RGBA PNG (filter type 0 on every row: deterministic bytes).
 * `textChunks` adds `tEXt` chunks (a test's metadata to be stripped).
 */
export function encodePng(
  pixels: Pixels,
  textChunks: Readonly<Record<string, string>> = {},
): Buffer {
  const { width, height, rgba } = pixels;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 6;
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y += 1) {
    Buffer.from(rgba.buffer, rgba.byteOffset + y * width * 4, width * 4).copy(
      raw,
      y * (width * 4 + 1) + 1,
    );
  }
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    ...Object.entries(textChunks).map(([key, value]) =>
      chunk('tEXt', Buffer.from(`${key}\0${value}`, 'latin1')),
    ),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** Decodes an 8-bit, non-interlaced PNG to RGBA; undefined for anything else. */
export function decodePng(bytes: Uint8Array): Pixels | undefined {
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (!body.subarray(0, 8).equals(SIGNATURE)) return undefined;
  let offset = 8;
  let width = 0;
  let height = 0;
  let colourType = -1;
  let palette: Buffer | undefined;
  const data: Buffer[] = [];
  while (offset + 12 <= body.length) {
    const length = body.readUInt32BE(offset);
    const name = body.toString('latin1', offset + 4, offset + 8);
    const content = body.subarray(offset + 8, offset + 8 + length);
    if (name === 'IHDR') {
      width = content.readUInt32BE(0);
      height = content.readUInt32BE(4);
      if (content[8] !== 8 || content[12] !== 0) return undefined;
      colourType = content[9] ?? -1;
    } else if (name === 'PLTE') palette = content;
    else if (name === 'IDAT') data.push(content);
    else if (name === 'IEND') break;
    offset += 12 + length;
  }
  const channels = CHANNELS[colourType];
  if (channels === undefined || width === 0) return undefined;
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const rows = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x += 1) {
      const value = raw[y * (stride + 1) + 1 + x] ?? 0;
      const left = x >= channels ? (rows[y * stride + x - channels] ?? 0) : 0;
      const up = y > 0 ? (rows[(y - 1) * stride + x] ?? 0) : 0;
      const upLeft = y > 0 && x >= channels ? (rows[(y - 1) * stride + x - channels] ?? 0) : 0;
      let predicted = 0;
      if (filter === 1) predicted = left;
      else if (filter === 2) predicted = up;
      else if (filter === 3) predicted = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        predicted = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      }
      rows[y * stride + x] = (value + predicted) & 0xff;
    }
  }
  const rgba = new Uint8Array(width * height * 4);
  for (let index = 0; index < width * height; index += 1) {
    const at = index * channels;
    let [r, g, b, a] = [0, 0, 0, 255];
    if (colourType === 0) r = g = b = rows[at] ?? 0;
    else if (colourType === 4)
      [r, g, b, a] = [rows[at] ?? 0, rows[at] ?? 0, rows[at] ?? 0, rows[at + 1] ?? 0];
    else if (colourType === 2) [r, g, b] = [rows[at] ?? 0, rows[at + 1] ?? 0, rows[at + 2] ?? 0];
    else if (colourType === 6)
      [r, g, b, a] = [rows[at] ?? 0, rows[at + 1] ?? 0, rows[at + 2] ?? 0, rows[at + 3] ?? 0];
    else if (colourType === 3) {
      const entry = (rows[at] ?? 0) * 3;
      [r, g, b] = [palette?.[entry] ?? 0, palette?.[entry + 1] ?? 0, palette?.[entry + 2] ?? 0];
    }
    rgba.set([r, g, b, a], index * 4);
  }
  return { width, height, rgba };
}

/**
 * A difference hash: the image shrunk to 9 × 8 grey cells (box-averaged, alpha over white), one
 * bit per cell brighter than its right neighbour — 64 bits as 16 hex digits. Downscaling and
 * re-encoding keep it (within a few bits), while metadata never touches it.
 */
export function differenceHash(pixels: Pixels): string {
  const columns = 9;
  const rows = 8;
  const grey = new Float64Array(columns * rows);
  const counts = new Float64Array(columns * rows);
  const { width, height, rgba } = pixels;
  for (let y = 0; y < height; y += 1) {
    const cellY = Math.min(rows - 1, Math.floor((y * rows) / height));
    for (let x = 0; x < width; x += 1) {
      const cellX = Math.min(columns - 1, Math.floor((x * columns) / width));
      const at = (y * width + x) * 4;
      const alpha = (rgba[at + 3] ?? 255) / 255;
      const luma =
        0.299 * (rgba[at] ?? 0) + 0.587 * (rgba[at + 1] ?? 0) + 0.114 * (rgba[at + 2] ?? 0);
      grey[cellY * columns + cellX] =
        (grey[cellY * columns + cellX] ?? 0) + luma * alpha + 255 * (1 - alpha);
      counts[cellY * columns + cellX] = (counts[cellY * columns + cellX] ?? 0) + 1;
    }
  }
  let bits = 0n;
  for (let y = 0; y < rows; y += 1) {
    for (let x = 0; x < columns - 1; x += 1) {
      const left = (grey[y * columns + x] ?? 0) / Math.max(1, counts[y * columns + x] ?? 1);
      const right =
        (grey[y * columns + x + 1] ?? 0) / Math.max(1, counts[y * columns + x + 1] ?? 1);
      bits = (bits << 1n) | (left > right ? 1n : 0n);
    }
  }
  return bits.toString(16).padStart(16, '0');
}

/** Bits in which two difference hashes differ. */
export function hashDistance(left: string, right: string): number {
  let difference = BigInt(`0x${left}`) ^ BigInt(`0x${right}`);
  let count = 0;
  while (difference > 0n) {
    count += Number(difference & 1n);
    difference >>= 1n;
  }
  return count;
}
