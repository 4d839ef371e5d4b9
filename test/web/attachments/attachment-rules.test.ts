import { describe, expect, it } from 'vitest';
import {
  DOWNSCALE_LONG_EDGE_PIXELS,
  MAX_ATTACHMENTS_PER_MESSAGE,
  MAX_TEXT_ATTACHMENT_BYTES,
} from '../../../functions/contract/attachments.js';
import {
  ACCEPTED_FILES,
  admitFiles,
  classifyFile,
  fitWithin,
  MAX_IMAGE_FILE_BYTES,
} from '../../../web/src/attachments/attachment-rules.js';

const file = (name: string, type: string, size = 1000) => ({ name, type, size });

describe('classifyFile', () => {
  it.each([
    ['image.png', 'image/png', { kind: 'image', type: 'image/png' }],
    ['photo.JPG', 'image/jpeg', { kind: 'image', type: 'image/jpeg' }],
    ['photo.jpeg', '', { kind: 'image', type: 'image/jpeg' }],
    ['shot.webp', 'image/webp', { kind: 'image', type: 'image/webp' }],
    ['anim.gif', '', { kind: 'image', type: 'image/gif' }],
    ['error.log', '', { kind: 'text', type: 'text/plain' }],
    ['notes.TXT', 'text/plain', { kind: 'text', type: 'text/plain' }],
    ['export.csv', 'application/vnd.ms-excel', { kind: 'text', type: 'text/csv' }],
    ['settings.json', 'application/json', { kind: 'text', type: 'application/json' }],
  ])('accepts %s (%s)', (name, type, kind) => {
    expect(classifyFile(file(name, type))).toEqual(kind);
  });

  it.each([
    ['drawing.svg', 'image/svg+xml'],
    ['page.html', 'text/html'],
    ['setup.exe', 'application/x-msdownload'],
    ['logs.zip', 'application/zip'],
    ['photo.heic', 'image/heic'],
    ['no-extension', ''],
    // The type is the browser's word for the bytes' source; an image called .txt is not text.
    ['screen.txt', 'image/bmp'],
  ])('refuses %s (%s) as the wrong type', (name, type) => {
    expect(classifyFile(file(name, type))).toEqual({ code: 'wrong_type' });
  });

  it('refuses an empty file', () => {
    expect(classifyFile(file('empty.log', '', 0))).toEqual({ code: 'empty' });
  });

  it('holds text files to the server limit and images to the larger pre-downscale limit', () => {
    expect(classifyFile(file('a.log', '', MAX_TEXT_ATTACHMENT_BYTES))).toMatchObject({
      kind: 'text',
    });
    expect(classifyFile(file('a.log', '', MAX_TEXT_ATTACHMENT_BYTES + 1))).toEqual({
      code: 'too_large',
      limit: MAX_TEXT_ATTACHMENT_BYTES,
    });
    // A 12 MP photo is larger than the upload limit, and is downscaled before it is sent.
    expect(classifyFile(file('a.jpg', 'image/jpeg', 8 * 1024 * 1024))).toMatchObject({
      kind: 'image',
    });
    expect(classifyFile(file('a.png', 'image/png', MAX_IMAGE_FILE_BYTES + 1))).toEqual({
      code: 'too_large',
      limit: MAX_IMAGE_FILE_BYTES,
    });
  });

  it('offers exactly the accepted types and extensions in the file picker', () => {
    expect(ACCEPTED_FILES.split(',').sort()).toEqual(
      [
        'image/png',
        'image/jpeg',
        'image/webp',
        'image/gif',
        '.png',
        '.jpg',
        '.jpeg',
        '.webp',
        '.gif',
        '.txt',
        '.log',
        '.csv',
        '.json',
      ].sort(),
    );
  });
});

describe('admitFiles', () => {
  it(`admits up to ${MAX_ATTACHMENTS_PER_MESSAGE} files per message, counting those already attached`, () => {
    const files = Array.from({ length: 4 }, (_, index) => file(`s${index}.png`, 'image/png'));
    const { admitted, refused } = admitFiles(files, 2);
    expect(admitted.map((a) => a.file.name)).toEqual(['s0.png', 's1.png', 's2.png']);
    expect(refused).toEqual([
      { name: 's3.png', problem: { code: 'too_many', limit: MAX_ATTACHMENTS_PER_MESSAGE } },
    ]);
  });

  it('refuses each bad file with its own reason and does not count it against the limit', () => {
    const { admitted, refused } = admitFiles(
      [file('a.svg', 'image/svg+xml'), file('b.log', ''), file('c.log', '', 300_000)],
      4,
    );
    expect(admitted.map((a) => a.file.name)).toEqual(['b.log']);
    expect(refused).toEqual([
      { name: 'a.svg', problem: { code: 'wrong_type' } },
      { name: 'c.log', problem: { code: 'too_large', limit: MAX_TEXT_ATTACHMENT_BYTES } },
    ]);
  });
});

describe('fitWithin', () => {
  it('brings a 12 MP photo to the model long edge, keeping its ratio', () => {
    expect(fitWithin({ width: 4000, height: 3000 })).toEqual({ width: 1568, height: 1176 });
    expect(fitWithin({ width: 3000, height: 4000 })).toEqual({ width: 1176, height: 1568 });
  });

  it('never enlarges an image already small enough', () => {
    expect(fitWithin({ width: 1280, height: 720 })).toEqual({ width: 1280, height: 720 });
    expect(fitWithin({ width: 1568, height: 1568 })).toEqual({ width: 1568, height: 1568 });
  });

  it('keeps the long edge exactly at the limit and the short edge at least one pixel', () => {
    expect(fitWithin({ width: 1569, height: 1569 })).toEqual({ width: 1568, height: 1568 });
    expect(fitWithin({ width: 20_000, height: 3 })).toEqual({ width: 1568, height: 1 });
    expect(fitWithin({ width: 2, height: 9000 }, 100)).toEqual({ width: 1, height: 100 });
  });

  it('uses the contract long edge by default', () => {
    const { width, height } = fitWithin({ width: 10_000, height: 5_000 });
    expect(Math.max(width, height)).toBe(DOWNSCALE_LONG_EDGE_PIXELS);
  });
});
