import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  findPersonalData,
  type Person,
  peopleNamedIn,
} from '../../functions/knowledge/personal-data-detectors.js';
import { languageOf, scrubPersonalData } from '../../functions/knowledge/personal-data-scrub.js';
import {
  anyCredential,
  anyEmail,
  anyPhone,
  embedded,
  FILLER_WORDS,
  fold,
  JAPANESE_GIVEN_NAMES,
  JAPANESE_SURNAMES,
  japaneseNameMention,
  LATIN_GIVEN_NAMES,
  LATIN_SURNAMES,
  latinNameMention,
} from './personal-data-generators.js';

// What counts as personal data, rule by rule. The detectors are driven through the scrub, so
// each rule is shown by what leaves the text; the spans themselves: findPersonalData below.

function scrub(text: string, people: readonly Person[] = []) {
  return scrubPersonalData(text, { language: languageOf(text), people });
}

describe('personal-data detectors (properties)', () => {
  it('the filler vocabulary holds none of the generated names, so a surviving name is a leak', () => {
    const filler = FILLER_WORDS.join(' ').toLowerCase();
    for (const name of [...JAPANESE_SURNAMES, ...JAPANESE_GIVEN_NAMES])
      expect(filler).not.toContain(name);
    for (const name of [...LATIN_SURNAMES, ...LATIN_GIVEN_NAMES])
      expect(filler).not.toMatch(new RegExp(`\\b${name.toLowerCase()}\\b`));
  });
  it('leaves no e-mail address, in any width, in ticket text', () => {
    fc.assert(
      fc.property(embedded(anyEmail), ({ value, text }) => {
        const result = scrub(text);
        // Neither the address nor its local part with the `@` survives, in any width or case.
        const localPart = fold(value).toLowerCase().split('@')[0] ?? '';
        expect(fold(result.text).toLowerCase()).not.toContain(`${localPart}@`);
        expect(result.text).not.toContain(value);
        expect(result.counts.email).toBe(1);
      }),
      { numRuns: 400 },
    );
  });
  it('leaves no phone number, in any width, separators or spacing, in ticket text', () => {
    fc.assert(
      fc.property(embedded(anyPhone), ({ value, text }) => {
        const result = scrub(text);
        const digitsOf = (phone: string) => fold(phone).replace(/\D/g, '');
        expect(result.text).not.toContain(value);
        // No run of the number's last 7 digits survives, however the output is spaced.
        expect(digitsOf(result.text)).not.toContain(digitsOf(value).slice(-7));
        expect(result.counts.phone).toBe(1);
      }),
      { numRuns: 600 },
    );
  });
  it('leaves no pasted credential in ticket text', () => {
    fc.assert(
      fc.property(
        embedded(anyCredential, (credential) => credential.pasted),
        ({ value, text }) => {
          const result = scrub(text);
          expect(result.text).not.toContain(value.secret);
          expect(result.counts.secret).toBeGreaterThanOrEqual(1);
        },
      ),
      { numRuns: 400 },
    );
  });
  it('leaves no Japanese person-field name, in any of its variants', () => {
    fc.assert(
      fc.property(
        embedded(japaneseNameMention, (mention) => mention.mention),
        ({ value, text }) => {
          const result = scrub(text, [value.person]);
          for (const part of value.gone) {
            if (part.length >= 2) expect(result.text).not.toContain(part);
            else expect(result.text).not.toMatch(new RegExp(`${part}[ 　]?(?:さん|様|氏|部長)`));
          }
          expect(result.counts.name).toBeGreaterThanOrEqual(1);
        },
      ),
      { numRuns: 500 },
    );
  });
  it('leaves no Latin person-field name or user id, in any of its variants, case or width', () => {
    fc.assert(
      fc.property(
        embedded(latinNameMention, (mention) => mention.mention),
        ({ value, text }) => {
          const result = scrub(text, [value.person]);
          const folded = fold(result.text).toLowerCase();
          for (const part of value.gone) expect(folded).not.toContain(part.toLowerCase());
          expect(result.counts.name).toBeGreaterThanOrEqual(1);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('personal-data detectors (examples)', () => {
  const people: Person[] = [
    {
      names: ['山田 太郎', 'Taro Yamada'],
      userIds: ['tyamada'],
      emails: ['taro.yamada@example.co.jp'],
    },
    { names: ['林 一'] },
  ];

  it('keeps role mailboxes (exactly: helpdesk@, support@), unless keepRoleMailboxes is false', () => {
    const text = 'helpdesk@example.co.jp、Support＠example.com、sales-support@example.co.jp';
    expect(scrubPersonalData(text, { language: 'ja' }).text).toBe(
      'helpdesk@example.co.jp、Support＠example.com、[メール]',
    );
    expect(scrubPersonalData(text, { language: 'ja', keepRoleMailboxes: false }).text).toBe(
      '[メール]、[メール]、[メール]',
    );
  });

  it('removes every variant of a person field', () => {
    const text =
      '山田 太郎 / 山田太郎 / 山田　太郎 / 山田さん / 山田様 / 山田氏 / 太郎さん / Taro Yamada / Yamada Taro / Yamada / T. Yamada / yamada.taro / taro.yamada / TYAMADA / Ｙａｍａｄａ';
    const result = scrubPersonalData(text, { language: 'ja', people });
    expect(result.text).toBe(
      '[氏名] / [氏名] / [氏名] / [氏名]さん / [氏名]様 / [氏名]氏 / [氏名]さん / [氏名] / [氏名] / [氏名] / [氏名] / [氏名] / [氏名] / [氏名] / [氏名]',
    );
  });

  it('takes a one-character surname only before an honorific or as a whole token', () => {
    const result = scrubPersonalData('林さんが森林公園の林檎の件で連絡。林部長に確認、担当 林 へ', {
      language: 'ja',
      people: [{ names: ['林 一'] }],
    });
    expect(result.text).toBe(
      '[氏名]さんが森林公園の林檎の件で連絡。[氏名]部長に確認、担当 [氏名] へ',
    );
  });

  it('guesses the surname of an unspaced Japanese name only before an honorific', () => {
    const result = scrubPersonalData('山田太郎の件。山田さんに連絡。山田町の支店', {
      language: 'ja',
      people: [{ names: ['山田太郎'] }],
    });
    expect(result.text).toBe('[氏名]の件。[氏名]さんに連絡。山田町の支店');
  });

  it('leaves ordinary ticket text alone: dates, times, ticket numbers, versions, IPs, amounts, URLs', () => {
    const text = [
      '2024-01-09 10:30〜12:00 に INC0012345 と #1001、RITM0012345、ITSD-123 を確認。',
      'Windows 10.0.19045.3803 / Office 16.0.17328.20142 / v1.2.3 / build 20240109',
      '192.168.1.10 と 10.0.0.1 に ping、MAC 00:1A:2B:3C:4D:5E、金額 ¥1,000,000、1,234,567円',
      'https://support.microsoft.com/ja-jp/office/outlook-1234 と https://example.com/a?b=1&c=2',
      'ポート 443/8080、KB5034441、エラー 0x80070005、0x800CCC0E、社員番号 E123456',
      'The password policy requires 12 characters; passwords expire after 90 days.',
      'パスワードポリシーは12文字以上。初期パスワードは「O（オー）と0（ゼロ）」に注意。',
      'パスワードは http://evil.example/reset でリセット、パスワードは https://aka.ms/sspr から。',
    ].join('\n');
    const result = scrubPersonalData(text, { language: 'ja', people });
    expect(result.text).toBe(text);
    expect(result.counts).toEqual({ name: 0, email: 0, phone: 0, secret: 0, myNumber: 0, card: 0 });
  });

  it.each([
    'パスワード',
    '暗証番号',
    'パスコード',
    'password',
    'passwd',
    'passphrase',
    'PW',
    'pwd',
    'PIN',
    'secret',
    'secret_key',
    'client_secret',
    'api_key',
    'apikey',
    'access_token',
    'auth_token',
    'refresh_token',
    'private_key',
    'token',
  ])('takes the value after the label %s, with = and with :', (label) => {
    expect(scrubPersonalData(`${label}=Zq8vW2xL`, { language: 'en' }).text).toBe(
      `${label}=[secret]`,
    );
    expect(scrubPersonalData(`${label}: Zq8vW2xL`, { language: 'en' }).text).toBe(
      `${label}: [secret]`,
    );
  });

  it('removes private key blocks, Authorization headers and vendor keys, keeping the labels', () => {
    const text = [
      'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.abcdefghijkl',
      'AKIAIOSFODNN7EXAMPLE / aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'psql "host=db user=app password=s3cr3t!" ; mysql://root:hunter22@db.internal/app',
      '-----BEGIN OPENSSH PRIVATE KEY-----',
      'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
      '-----END OPENSSH PRIVATE KEY-----',
      'done',
    ].join('\n');
    expect(scrubPersonalData(text, { language: 'en' }).text).toBe(
      [
        'Authorization: Bearer [secret]',
        '[secret] / aws_secret_access_key = [secret]',
        'psql "host=db user=app password=[secret]" ; mysql://root:[secret]/app',
        '[secret]',
        'done',
      ].join('\n'),
    );
  });

  it('changes only the e-mail addresses of the 171 sample tickets', () => {
    const directory = join(import.meta.dirname, '../../data/tickets');
    const files = readdirSync(directory).filter((file) => file.endsWith('.md'));
    expect(files).toHaveLength(171);
    const totals: Record<string, number> = {};
    const changed: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(directory, file), 'utf8');
      const result = scrubPersonalData(text, { language: languageOf(text) });
      for (const [kind, count] of Object.entries(result.counts))
        totals[kind] = (totals[kind] ?? 0) + count;
      if (result.text !== text) changed.push(file);
      // Nothing but the addresses changed: putting them back gives the ticket again.
      const addresses = text.match(/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g) ?? [];
      let restored = result.text;
      for (const address of addresses) restored = restored.replace(/\[(?:email|メール)\]/, address);
      expect(restored).toBe(text);
    }
    expect(totals).toEqual({ name: 0, email: 6, phone: 0, secret: 0, myNumber: 0, card: 0 });
    expect(changed).toEqual(['1012.md', '1050.md', '1140.md', '1156.md', '1234.md']);
  });
});

describe('findPersonalData', () => {
  it('gives sorted spans, overlaps merged under the kind of the higher-priority detector', () => {
    expect(
      findPersonalData('山田さん（taro@example.co.jp）', { people: [{ names: ['山田 太郎'] }] }),
    ).toEqual([
      { start: 0, end: 2, kind: 'name' },
      { start: 5, end: 23, kind: 'email' },
    ]);
    // The address is inside the password line's value: one span, a secret, not an e-mail.
    expect(findPersonalData('password: taro@example.co.jp')).toEqual([
      { start: 10, end: 28, kind: 'secret' },
    ]);
    // A password phrase matched inside the address (`pw` then `.a@aa.com`): the address is the
    // span, an e-mail (fast-check found it: seed 1338449620).
    expect(findPersonalData(' pw.a@aa.com ')).toEqual([{ start: 1, end: 12, kind: 'email' }]);
    // Glued to its label, a password is still one (the label kept, as ever).
    expect(findPersonalData('pw.Abc123 です')).toEqual([{ start: 2, end: 9, kind: 'secret' }]);
  });
});

describe('peopleNamedIn', () => {
  it('finds the names a text addresses with an honorific or title, not generic forms', () => {
    const people = peopleNamedIn(
      '営業部の佐藤さんから。お客様と皆様へ、担当者様。鈴木部長、スミスさん、Mr. Brown と John-san、ユーザーさん',
    );
    expect(people.flatMap((person) => person.names).sort()).toEqual(
      ['Brown', 'John', 'スミス', '佐藤', '鈴木'].sort(),
    );
  });

  it('makes the addressed name a person field: it goes also where it has no honorific', () => {
    const text = '佐藤さんから電話。佐藤が不在のため折り返し。';
    expect(scrub(text, peopleNamedIn(text)).text).toBe(
      '[氏名]さんから電話。[氏名]が不在のため折り返し。',
    );
  });
});
