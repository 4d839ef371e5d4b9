import { describe, expect, it } from 'vitest';
import { readImageSize } from '../../../web/src/attachments/read-image-size.js';

const bytes = (...parts: (number[] | string)[]) =>
  new Uint8Array(
    parts.flatMap((part) =>
      typeof part === 'string' ? Array.from(part, (character) => character.charCodeAt(0)) : part,
    ),
  );
const u32be = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const u16be = (n: number) => [(n >> 8) & 255, n & 255];
const u16le = (n: number) => [n & 255, (n >> 8) & 255];
const u24le = (n: number) => [n & 255, (n >> 8) & 255, (n >> 16) & 255];

const png = (width: number, height: number) =>
  bytes([0x89], 'PNG\r\n\x1a\n', u32be(13), 'IHDR', u32be(width), u32be(height), [8, 6, 0, 0, 0]);

describe('readImageSize', () => {
  it('reads a PNG header, a decompression bomb included', () => {
    expect(readImageSize(png(1280, 720))).toEqual({ width: 1280, height: 720 });
    expect(readImageSize(png(20_000, 20_000))).toEqual({ width: 20_000, height: 20_000 });
  });

  it('reads a GIF logical screen', () => {
    expect(readImageSize(bytes('GIF89a', u16le(640), u16le(480), [0, 0, 0]))).toEqual({
      width: 640,
      height: 480,
    });
  });

  it('reads a JPEG frame header behind an EXIF segment and fill bytes', () => {
    const exif = bytes([0xff, 0xe1], u16be(2 + 10), 'Exif\0\0GPS\0');
    const jpeg = bytes(
      [0xff, 0xd8],
      [...exif],
      [0xff, 0xff],
      [0xff, 0xc2],
      u16be(17),
      [8],
      u16be(3000),
      u16be(4000),
      [3],
    );
    expect(readImageSize(jpeg)).toEqual({ width: 4000, height: 3000 });
  });

  it('reads the three WebP flavours', () => {
    const riff = (chunk: string, body: number[]) =>
      bytes('RIFF', [0, 0, 0, 0], 'WEBP', chunk, [0, 0, 0, 0], body);
    expect(readImageSize(riff('VP8X', [0, 0, 0, 0, ...u24le(1919), ...u24le(1079)]))).toEqual({
      width: 1920,
      height: 1080,
    });
    expect(
      readImageSize(riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, ...u16le(800), ...u16le(600)])),
    ).toEqual({ width: 800, height: 600 });
    const bits = (1024 - 1) | ((768 - 1) << 14);
    expect(readImageSize(riff('VP8L', [0x2f, ...u32be(bits).reverse()]))).toEqual({
      width: 1024,
      height: 768,
    });
  });

  it('knows nothing of other bytes or of a header cut short', () => {
    expect(readImageSize(bytes('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeUndefined();
    expect(readImageSize(png(100, 100).subarray(0, 20))).toBeUndefined();
    expect(readImageSize(bytes([0xff, 0xd8, 0xff, 0xe1, 0, 200]))).toBeUndefined();
    expect(readImageSize(new Uint8Array())).toBeUndefined();
  });
});
