/**
 * The pixel size an image declares in its header — PNG `IHDR`, GIF's logical screen, JPEG's
 * start-of-frame, WebP's `VP8 `/`VP8L`/`VP8X` chunk — read before the image is decoded, so a
 * decompression bomb (a small file declaring 20,000 × 20,000 px) is refused instead of
 * allocating gigabytes. `undefined` when the header is not one of these or is cut short: the
 * decoder then decides (and fails with a clear message).
 *
 * @example
 * readImageSize(new Uint8Array(await file.slice(0, 64 * 1024).arrayBuffer()))
 */
export function readImageSize(
  bytes: Uint8Array,
): { readonly width: number; readonly height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ascii = (offset: number, length: number) =>
    offset + length <= bytes.length
      ? String.fromCharCode(...bytes.subarray(offset, offset + length))
      : '';
  if (ascii(1, 3) === 'PNG' && ascii(12, 4) === 'IHDR' && bytes.length >= 24) {
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (ascii(0, 4) === 'GIF8' && bytes.length >= 10) {
    return { width: view.getUint16(6, true), height: view.getUint16(8, true) };
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return readJpegSize(bytes, view);
  if (ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') return readWebpSize(bytes, view, ascii);
  return undefined;
}

/** Start-of-frame markers (baseline, progressive, lossless …), not DHT/JPG/DAC. */
const JPEG_START_OF_FRAME = new Set([
  0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf,
]);

function readJpegSize(bytes: Uint8Array, view: DataView) {
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1] ?? 0;
    // Fill bytes and markers without a length (RSTn, TEM).
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      offset += 2;
      continue;
    }
    const length = view.getUint16(offset + 2);
    if (JPEG_START_OF_FRAME.has(marker)) {
      if (offset + 9 > bytes.length) return undefined;
      return { width: view.getUint16(offset + 7), height: view.getUint16(offset + 5) };
    }
    offset += 2 + length;
  }
  return undefined;
}

function readWebpSize(
  bytes: Uint8Array,
  view: DataView,
  ascii: (offset: number, length: number) => string,
) {
  const chunk = ascii(12, 4);
  const byte = (offset: number) => bytes[offset] ?? 0;
  if (chunk === 'VP8X' && bytes.length >= 30) {
    const width = 1 + (byte(24) | (byte(25) << 8) | (byte(26) << 16));
    const height = 1 + (byte(27) | (byte(28) << 8) | (byte(29) << 16));
    return { width, height };
  }
  if (chunk === 'VP8 ' && bytes.length >= 30) {
    return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  }
  if (chunk === 'VP8L' && bytes.length >= 25) {
    const bits = view.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  return undefined;
}
