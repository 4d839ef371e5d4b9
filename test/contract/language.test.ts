import { describe, expect, it } from 'vitest';
import { detectLanguage } from '../../functions/contract/language.js';

describe('detectLanguage', () => {
  it('is Japanese with any kana, however much English surrounds it', () => {
    expect(detectLanguage('VPN に接続できない')).toBe('ja');
    expect(detectLanguage('Outlook のパスワード reset')).toBe('ja');
    expect(detectLanguage('ｱｶｳﾝﾄ locked')).toBe('ja'); // half-width katakana
    expect(detectLanguage('VPN に', { ideographsWithoutKana: 2 })).toBe('ja');
  });

  it('is Japanese with one ideograph by default, and with as many as a caller asks for', () => {
    expect(detectLanguage('障害 VPN')).toBe('ja');
    expect(detectLanguage('VPN 障')).toBe('ja');
    expect(detectLanguage('VPN 障', { ideographsWithoutKana: 2 })).toBe('en');
    expect(detectLanguage('障害 VPN', { ideographsWithoutKana: 2 })).toBe('ja');
    expect(detectLanguage('佐々木 VPN', { ideographsWithoutKana: 2 })).toBe('ja'); // 々 counts
    expect(detectLanguage('VPN 﨑')).toBe('ja'); // a compatibility ideograph
  });

  it('is English otherwise', () => {
    expect(detectLanguage('VPN fails after the update')).toBe('en');
    expect(detectLanguage('')).toBe('en');
    expect(detectLanguage('안녕하세요 Привет')).toBe('en');
  });
});
