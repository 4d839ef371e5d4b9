import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { languageOf, scrubPersonalData } from '../../functions/knowledge/personal-data-scrub.js';
import {
  findAwsSecretKeys,
  findCardNumbers,
  findMyNumbers,
  findSecretPhrases,
  isCardIssuerRange,
  isValidMyNumber,
  passesLuhn,
} from '../../functions/knowledge/personal-identifiers.js';

function scrub(text: string) {
  return scrubPersonalData(text, { language: languageOf(text) }).text;
}

/** A valid My Number from 11 digits: the check digit computed as the ordinance says. */
function withCheckDigit(eleven: string): string {
  let sum = 0;
  for (let n = 1; n <= 11; n += 1) sum += Number(eleven[11 - n]) * (n <= 6 ? n + 1 : n - 5);
  const remainder = sum % 11;
  return `${eleven}${remainder <= 1 ? 0 : 11 - remainder}`;
}

/** A Luhn-valid number from a prefix, padded with `fill` to `length`. */
function withLuhn(prefix: string, length: number, fill = '0'): string {
  const body = prefix.padEnd(length - 1, fill);
  for (let check = 0; check <= 9; check += 1)
    if (passesLuhn(`${body}${check}`)) return `${body}${check}`;
  throw new Error('unreachable');
}

describe('My Numbers', () => {
  it('are valid only with their check digit', () => {
    expect(isValidMyNumber('123456789018')).toBe(true);
    expect(isValidMyNumber('123456789012')).toBe(false);
    fc.assert(
      fc.property(fc.stringMatching(/^\d{11}$/), (eleven) => {
        const valid = withCheckDigit(eleven);
        expect(isValidMyNumber(valid)).toBe(true);
        const wrong = `${eleven}${(Number(valid[11]) + 1) % 10}`;
        expect(isValidMyNumber(wrong)).toBe(false);
      }),
    );
  });

  it('are removed spaced, hyphenated, bare or full-width, with or without a label', () => {
    expect(scrub('マイナンバーは 1234 5678 9018 です')).toBe('マイナンバーは [個人番号] です');
    expect(scrub('扶養家族の 123456789018 を送付')).toBe('扶養家族の [個人番号] を送付');
    expect(scrub('番号 1234-5678-9018 を控えた')).toBe('番号 [個人番号] を控えた');
    expect(scrub('１２３４５６７８９０１８を入力')).toBe('[個人番号]を入力');
    expect(scrub('My Number: 123456789018')).toBe('My Number: [My Number]');
  });

  it('keep a mistyped check digit only when nothing says it is a My Number', () => {
    expect(scrub('個人番号 123456789012 を削除して')).toBe('個人番号 [個人番号] を削除して');
    expect(scrub('伝票 123456789012 の件')).toBe('伝票 123456789012 の件');
  });

  it('leave AWS account ids, longer numbers and dates alone', () => {
    expect(findMyNumbers('AWS account 123456789018 billing')).toEqual([]);
    expect(findMyNumbers('アカウントID 123456789018')).toEqual([]);
    expect(findMyNumbers('12345678901845 and 2024-05-01 and v1.123456789018')).toEqual([]);
  });
});

describe('card numbers', () => {
  it('pass Luhn and an issuer range', () => {
    expect(passesLuhn('4111111111111111')).toBe(true);
    expect(passesLuhn('4111111111111112')).toBe(false);
    expect(isCardIssuerRange('4111111111111111')).toBe(true); // Visa
    expect(isCardIssuerRange('5500000000000004')).toBe(true); // Mastercard
    expect(isCardIssuerRange('2221000000000009')).toBe(true); // Mastercard 2-series
    expect(isCardIssuerRange('378282246310005')).toBe(true); // Amex, 15
    expect(isCardIssuerRange('3530111333300000')).toBe(true); // JCB
    expect(isCardIssuerRange('9111111111111111')).toBe(false);
    expect(isCardIssuerRange('37828224631000')).toBe(false); // Amex with 14 digits
  });

  it('are removed labelled or not, in the groupings people write', () => {
    expect(scrub('カード番号 4111 1111 1111 1111 で決済')).toBe('カード番号 [カード番号] で決済');
    expect(scrub('charged to 4111-1111-1111-1111 twice')).toBe('charged to [card number] twice');
    expect(scrub('Amex 3782 822463 10005 expired')).toBe('Amex [card number] expired');
    expect(scrub('JCB 3530111333300000')).toBe('JCB [card number]');
  });

  it('never take a number that fails Luhn or no issuer uses', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{15}$/), (body) => {
        const number = withLuhn(`9${body.slice(1)}`, 16);
        expect(findCardNumbers(`order ${number}`)).toEqual([]);
      }),
    );
    expect(findCardNumbers('注文番号 4111 2222 3333 4444 の件')).toEqual([]);
    expect(findCardNumbers('serial 4111111111111112')).toEqual([]);
  });
});

describe('PIN and password phrases without a colon', () => {
  it('are removed in the issue’s phrasings, the label kept', () => {
    expect(scrub('暗証番号 4000')).toBe('暗証番号 [秘密]');
    expect(scrub('PWは Abc12345! です')).toBe('PWは [秘密] です');
    expect(scrub('仮パスワード Tmp#2025ab を伝えた')).toBe('仮パスワード [秘密] を伝えた');
  });

  it('are removed in other Japanese and English phrasings', () => {
    expect(scrub('PINは0502です。')).toBe('PINは[秘密]です。');
    expect(scrub('新しいパスワードを Qw8!zL2p にしました')).toBe(
      '新しいパスワードを [秘密] にしました',
    );
    expect(scrub('Wi-Fiのパスワード Guest@2025 を来客に')).toBe(
      'Wi-Fiのパスワード [秘密] を来客に',
    );
    expect(scrub('My PIN is 4821 but it fails')).toBe('My PIN is [secret] but it fails');
    expect(scrub('the temporary password Spring#2025 didn’t work')).toBe(
      'the temporary password [secret] didn’t work',
    );
    expect(scrub('I changed my password to Winter2025!! yesterday')).toBe(
      'I changed my password to [secret] yesterday',
    );
    expect(scrub('Set the kiosk PIN to 9021 please.')).toBe(
      'Set the kiosk PIN to [secret] please.',
    );
    expect(scrub('the PIN for the door is 2468, please')).toBe(
      'the PIN for the door is [secret], please',
    );
  });

  it('leave prose about passwords alone', () => {
    for (const text of [
      'パスワードポリシーは12文字以上です。',
      'パスワードを3回間違えてロックされました。',
      'Windows Hello の PIN を忘れました。',
      'Password reset for Windows does not send the code.',
      'The password policy requires 14 characters.',
      'I forgot my password again, sorry.',
      'PIN 4桁を入力してください',
      'パスワードは https://example.com/reset で再設定できます',
      'password manager 1Password is approved',
    ]) {
      expect(findSecretPhrases(text), text).toEqual([]);
    }
  });
});

describe('an AWS secret key beside its access key id', () => {
  const keyId = 'AKIAIOSFODNN7EXAMPLE';
  const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

  it('is removed without a label (and the key id as before)', () => {
    expect(scrub(`検証用キーです。${keyId} ${secret} を削除してください。`)).toBe(
      '検証用キーです。[秘密] [秘密] を削除してください。',
    );
    expect(scrub(`${keyId}\n${secret}`)).toBe('[secret]\n[secret]');
  });

  it('is not taken without a key id nearby, nor a lower-case commit id', () => {
    expect(findAwsSecretKeys(`commit ${secret}`)).toEqual([]);
    expect(findAwsSecretKeys(`${keyId} commit 3f786850e387550fdab836ed7e6dc881de23001b`)).toEqual(
      [],
    );
  });
});
