import { describe, expect, it } from 'vitest';
import { AttachmentRefusedError } from '../../functions/attachments/errors.js';
import { inspectAttachment } from '../../functions/attachments/inspect-attachment.js';

// Metadata stripping per format, on hand-built files: what each keeps and what it drops.

const segment = (marker: number, payload: Buffer) => {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
};

function jpeg(width: number, height: number): Buffer {
  const frame = Buffer.from([8, 0, 0, 0, 0, 1, 1, 0x11, 0]);
  frame.writeUInt16BE(height, 1);
  frame.writeUInt16BE(width, 3);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1')),
    segment(0xe1, Buffer.from('Exif\0\0GPS 35.6,139.7', 'latin1')),
    segment(0xfe, Buffer.from('camera owner Taro', 'latin1')),
    segment(0xc0, frame),
    segment(0xda, Buffer.from([1, 1, 0, 0, 0x3f, 0])),
    Buffer.from([0x12, 0xff, 0x00, 0x34, 0xff, 0xd0, 0x56]),
    Buffer.from([0xff, 0xd9]),
    Buffer.from('PK\x03\x04 appended', 'latin1'),
  ]);
}

const chunk = (name: string, data: Buffer) => {
  const head = Buffer.alloc(8);
  head.write(name, 0, 'latin1');
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
};

function webp(): Buffer {
  const vp8x = Buffer.alloc(10);
  vp8x[0] = 0x08 | 0x04; // EXIF and XMP flags
  vp8x.writeUIntLE(99, 4, 3);
  vp8x.writeUIntLE(49, 7, 3);
  const vp8l = Buffer.alloc(5);
  vp8l[0] = 0x2f;
  vp8l.writeUInt32LE(99 | (49 << 14), 1);
  const chunks = Buffer.concat([
    chunk('VP8X', vp8x),
    chunk('VP8L', vp8l),
    chunk('EXIF', Buffer.from('GPS 35.6', 'latin1')),
    chunk('XMP ', Buffer.from('<x:xmpmeta/>', 'latin1')),
  ]);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(chunks.length + 4, 4);
  riff.write('WEBP', 8, 'latin1');
  return Buffer.concat([riff, chunks]);
}

const gif = Buffer.concat([
  Buffer.from('GIF89a', 'latin1'),
  Buffer.from([2, 0, 1, 0, 0, 0, 0]),
  Buffer.from([0x21, 0xfe, 5, ...Buffer.from('Taro!', 'latin1'), 0]),
  Buffer.from([0x2c, 0, 0, 0, 0, 2, 0, 1, 0, 0, 2, 2, 0x4c, 0x01, 0, 0x3b]),
]);

describe('inspectAttachment strips metadata', () => {
  it('JPEG: keeps JFIF, the frame and the scan; drops EXIF, comments and what follows EOI', async () => {
    const inspected = await inspectAttachment(jpeg(640, 480), 'image/jpeg');
    expect(inspected).toMatchObject({ type: 'image/jpeg', width: 640, height: 480 });
    const text = inspected.bytes.toString('latin1');
    expect(text).toContain('JFIF');
    expect(text).not.toContain('Exif');
    expect(text).not.toContain('Taro');
    expect(text).not.toContain('PK');
    expect(inspected.bytes.subarray(-2)).toEqual(Buffer.from([0xff, 0xd9]));
  });

  it('JPEG: refuses one over the pixel limit from its frame header', async () => {
    await expect(inspectAttachment(jpeg(9000, 10), 'image/jpeg')).rejects.toMatchObject({
      code: 'image_too_many_pixels',
    });
  });

  it('WebP: drops EXIF and XMP and clears their flags', async () => {
    const inspected = await inspectAttachment(webp(), 'image/webp');
    expect(inspected).toMatchObject({ type: 'image/webp', width: 100, height: 50 });
    const text = inspected.bytes.toString('latin1');
    expect(text).not.toContain('EXIF');
    expect(text).not.toContain('xmpmeta');
    expect((inspected.bytes[20] ?? 0) & 0x0c).toBe(0);
    expect(inspected.bytes.readUInt32LE(4)).toBe(inspected.bytes.length - 8);
  });

  it('GIF: drops comments', async () => {
    const inspected = await inspectAttachment(gif, 'image/gif');
    expect(inspected).toMatchObject({ type: 'image/gif', width: 2, height: 1 });
    expect(inspected.bytes.toString('latin1')).not.toContain('Taro');
  });

  it('refuses a JPEG cut before its end marker as corrupt', async () => {
    const cut = jpeg(10, 10).subarray(0, 40);
    const refused = await inspectAttachment(cut, 'image/jpeg').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AttachmentRefusedError);
    expect((refused as AttachmentRefusedError).code).toBe('corrupt_image');
  });
});
