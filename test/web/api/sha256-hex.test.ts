import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../web/src/api/sha256-hex.js';

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 "abc" vector', async () => {
    expect(await sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('hashes the empty body to the well-known empty digest', async () => {
    expect(await sha256Hex('')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it('hashes UTF-8 bytes, not UTF-16 code units', async () => {
    const text = '{"message":"ログインできない"}';
    expect(await sha256Hex(text)).toBe(await sha256Hex(new TextEncoder().encode(text)));
    expect(await sha256Hex(text)).not.toBe(await sha256Hex(`${text} `));
  });
});
