import { describe, expect, it } from 'vitest';
import { MAX_MAILTO_LENGTH, mailtoUrl } from '../../../web/src/components/mail-draft.js';

describe('mailtoUrl', () => {
  it('percent-encodes the subject and body, with line breaks as CRLF (RFC 6068)', () => {
    const url = mailtoUrl('Re: VPN & 認証', 'こんにちは\n1. 再起動 #1001?\r\n2. done') as string;
    expect(url).toBe(
      'mailto:?subject=Re%3A%20VPN%20%26%20%E8%AA%8D%E8%A8%BC&body=%E3%81%93%E3%82%93%E3%81%AB%E3%81%A1%E3%81%AF%0D%0A1.%20%E5%86%8D%E8%B5%B7%E5%8B%95%20%231001%3F%0D%0A2.%20done',
    );
    const parsed = new URL(url);
    expect(parsed.searchParams.get('subject')).toBe('Re: VPN & 認証');
    expect(parsed.searchParams.get('body')).toBe('こんにちは\r\n1. 再起動 #1001?\r\n2. done');
  });

  it('gives no URL beyond the limit, so staff are told to paste instead', () => {
    // Each Japanese character is nine URL characters (three percent-encoded UTF-8 bytes).
    const fits = 'あ'.repeat(Math.floor((MAX_MAILTO_LENGTH - 40) / 9));
    expect(mailtoUrl('Re: x', fits)?.length).toBeLessThanOrEqual(MAX_MAILTO_LENGTH);
    expect(mailtoUrl('Re: x', `${fits}${'あ'.repeat(10)}`)).toBeUndefined();
  });
});
