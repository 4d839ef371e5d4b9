import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  languageOf,
  OPTIONAL_SCRUB_PATTERNS,
  type Person,
  parseScrubSettings,
  peopleNamedIn,
  ScrubSettingsError,
  scrubPersonalData,
} from '../../functions/knowledge/personal-data-scrub.js';

// ---------------------------------------------------------------------------------------------
// Generators

/** Ticket prose around the personal data: words that contain no generated name, digit or key. */
const FILLER_WORDS = [
  'VPN',
  'に接続できません',
  'Outlook',
  'が起動しない',
  '再起動したところ',
  '解決しました',
  'ご確認ください',
  'Please check',
  'the printer on floor 6',
  'Teams',
  'パスワードポリシー',
  'を変更',
  'sign-in fails',
  'お問い合わせありがとうございます',
  '対応しました',
  'proxy settings',
  'ネットワーク',
  'Wi-Fi',
  'reset',
  '連絡先',
  'contact',
  '担当',
  'from',
  'まで',
  'です',
] as const;

const SEPARATORS_AROUND = [
  ' ',
  '、',
  '。',
  '\n',
  '：',
  ': ',
  '（',
  '）',
  '「',
  '」',
  ' - ',
] as const;

/** Random ticket text with the item embedded somewhere, between separators or directly in Japanese. */
function embedded<T>(item: fc.Arbitrary<T>, textOf: (value: T) => string = String) {
  return fc
    .record({
      before: fc.array(fc.constantFrom(...FILLER_WORDS), { maxLength: 6 }),
      after: fc.array(fc.constantFrom(...FILLER_WORDS), { maxLength: 6 }),
      left: fc.constantFrom(...SEPARATORS_AROUND),
      right: fc.constantFrom(...SEPARATORS_AROUND),
      item,
    })
    .map(({ before, after, left, right, item: value }) => ({
      value,
      text: `${before.join(' ')}${left}${textOf(value)}${right}${after.join(' ')}`,
    }));
}

/** Full width for printable ASCII (U+FF01–U+FF5E) and the ideographic space. */
function toFullWidth(text: string): string {
  return text.replace(/[!-~ ]/g, (character) =>
    character === ' ' ? '\u3000' : String.fromCharCode(character.charCodeAt(0) + 0xfee0),
  );
}

function fold(text: string): string {
  return text.replace(/[\uff01-\uff5e\u3000]/g, (character) =>
    character === '\u3000' ? ' ' : String.fromCharCode(character.charCodeAt(0) - 0xfee0),
  );
}

const digit = fc.constantFrom(...'0123456789');
const digits = (length: number) =>
  fc.array(digit, { minLength: length, maxLength: length }).map((array) => array.join(''));
const nonZeroDigit = fc.constantFrom(...'123456789');

/** Japanese national numbers as digit groups (the plan's shapes). */
const japaneseNumberGroups = fc.oneof(
  // Landlines: area code (incl. 0) 2–5 digits, local 1–4, subscriber 4; 10 digits, not `0X0…`.
  fc
    .tuple(fc.integer({ min: 2, max: 5 }), nonZeroDigit, nonZeroDigit, digits(8))
    .map(([areaLength, second, third, rest]) => {
      const national = `0${second}${third}${rest}`.slice(0, 10);
      return [national.slice(0, areaLength), national.slice(areaLength, 6), national.slice(6)];
    }),
  // Mobile, IP phone: 0X0-XXXX-XXXX.
  fc
    .tuple(fc.constantFrom('090', '080', '070', '050'), digits(4), digits(4))
    .map((groups) => [...groups]),
  // Toll free and navi dial.
  fc.tuple(fc.constantFrom('0120', '0570'), digits(3), digits(3)).map((groups) => [...groups]),
  fc.tuple(fc.constant('0800'), digits(3), digits(4)).map((groups) => [...groups]),
);

const phoneSeparator = fc.constantFrom('-', ' ', '', '.', 'ー', '－', '‐', ' - ', '  ', '−');

const japanesePhone = fc
  .record({
    groups: japaneseNumberGroups,
    separator: phoneSeparator,
    style: fc.constantFrom('plain', 'parenthesized-area', 'parenthesized-local', '+81', '+81(0)'),
  })
  .map(({ groups, separator, style }) => {
    const [area = '', local = '', subscriber = ''] = groups;
    switch (style) {
      case 'parenthesized-area':
        return `(${area}) ${local}${separator}${subscriber}`;
      case 'parenthesized-local':
        return `${area}(${local})${subscriber}`;
      case '+81':
        return `+81${separator || ' '}${area.slice(1)}${separator}${local}${separator}${subscriber}`;
      case '+81(0)':
        return `+81 (0)${area.slice(1)}${separator}${local}${separator}${subscriber}`;
      default:
        return [area, local, subscriber].join(separator);
    }
  });

const internationalPhone = fc.oneof(
  fc
    .tuple(fc.integer({ min: 200, max: 999 }), fc.integer({ min: 200, max: 999 }), digits(4))
    .chain(([area, exchange, line]) =>
      fc.constantFrom(
        `+1 (${area}) ${exchange}-${line}`,
        `+1 ${area} ${exchange} ${line}`,
        `+1-${area}-${exchange}-${line}`,
        `(${area}) ${exchange}-${line}`,
        `${area}.${exchange}.${line}`,
      ),
    ),
  fc.tuple(digits(4), digits(4)).map(([a, b]) => `+44 20 ${a} ${b}`),
  fc.tuple(digits(3), digits(4)).map(([a, b]) => `+49 30 ${a}${b}`),
  fc.tuple(digits(2), digits(2), digits(2), digits(2)).map((pairs) => `+33 1 ${pairs.join(' ')}`),
);

const anyPhone = fc
  .tuple(fc.oneof(japanesePhone, internationalPhone), fc.constantFrom('half', 'full', 'digits'))
  .map(([phone, width]) =>
    width === 'full'
      ? toFullWidth(phone)
      : width === 'digits'
        ? phone.replace(/\d/g, (d) => String.fromCharCode(d.charCodeAt(0) + 0xfee0))
        : phone,
  );

const localPartCharacter = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789');
const word = (min: number, max: number) =>
  fc
    .array(localPartCharacter, { minLength: min, maxLength: max })
    .map((characters) => characters.join(''));

const anyEmail = fc
  .record({
    local: fc
      .array(word(1, 8), { minLength: 1, maxLength: 3 })
      .chain((parts) => fc.constantFrom('.', '_', '-', '+').map((joiner) => parts.join(joiner))),
    domain: fc.array(word(2, 10), { minLength: 1, maxLength: 3 }),
    tld: fc.constantFrom('com', 'co.jp', 'jp', 'org', 'example'),
    form: fc.constantFrom('plain', 'full-width', 'full-width-at', 'upper'),
  })
  .map(({ local, domain, tld, form }) => {
    const address = `${local}@${domain.join('.')}.${tld}`;
    if (form === 'full-width') return toFullWidth(address);
    if (form === 'full-width-at') return address.replace('@', '＠').replace(/\./g, '．');
    if (form === 'upper') return address.toUpperCase();
    return address;
  });

const secretValue = fc
  .array(fc.constantFrom(...'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!#$%*+-_'), {
    minLength: 8,
    maxLength: 20,
  })
  .map((characters) => characters.join(''));
const base64 = (length: number) =>
  fc
    .array(fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'), {
      minLength: length,
      maxLength: length,
    })
    .map((characters) => characters.join(''));
const upperAlphanumeric = (length: number) =>
  fc
    .array(fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'), {
      minLength: length,
      maxLength: length,
    })
    .map((characters) => characters.join(''));

/** A credential as it is pasted, and the secret part that must not survive. */
const anyCredential: fc.Arbitrary<{ pasted: string; secret: string }> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(
        'パスワード',
        'パスワード',
        'PW',
        'pw',
        'Password',
        'password',
        'passwd',
        'PIN',
      ),
      fc.constantFrom(':', '：', ' : ', ': ', '：　'),
      secretValue,
    )
    .map(([label, separator, secret]) => ({ pasted: `${label}${separator}${secret}`, secret })),
  fc
    .tuple(fc.constantFrom('pwd', 'password', 'api_key', 'apikey', 'token'), secretValue)
    .map(([label, secret]) => ({
      pasted: `https://app.example.com/login?user=a&${label}=${secret.replace(/[&;,]/g, 'x')}&lang=ja`,
      secret: secret.replace(/[&;,]/g, 'x'),
    })),
  fc
    .tuple(fc.constantFrom('Bearer', 'Basic'), base64(32))
    .map(([scheme, secret]) => ({ pasted: `Authorization: ${scheme} ${secret}`, secret })),
  word(24, 40).map((secret) => ({ pasted: `sk-${secret}`, secret })),
  word(36, 36).map((secret) => ({ pasted: `ghp_${secret}`, secret })),
  word(20, 30).map((secret) => ({ pasted: `xoxb-${secret}`, secret })),
  fc
    .tuple(fc.constantFrom('AKIA', 'ASIA'), upperAlphanumeric(16))
    .map(([prefix, rest]) => ({ pasted: `${prefix}${rest}`, secret: rest })),
  fc
    .tuple(
      fc.constantFrom('aws_secret_access_key = ', 'AWS_SECRET_ACCESS_KEY=', 'SecretAccessKey: '),
      base64(40),
    )
    .map(([label, secret]) => ({ pasted: `${label}${secret}`, secret })),
  fc
    .tuple(
      fc.constantFrom('RSA ', 'EC ', 'OPENSSH ', ''),
      fc.array(base64(64), { minLength: 1, maxLength: 4 }),
    )
    .map(([type, lines]) => ({
      pasted: `-----BEGIN ${type}PRIVATE KEY-----\n${lines.join('\n')}\n-----END ${type}PRIVATE KEY-----`,
      secret: lines[0] ?? '',
    })),
);

// Names. None of their characters' runs occur in FILLER_WORDS (checked below).
const JAPANESE_SURNAMES = [
  '山田',
  '佐藤',
  '鈴木',
  '高橋',
  '渡辺',
  '伊藤',
  '中村',
  '小林',
  '長谷川',
  '林',
  '森',
  '関',
];
const JAPANESE_GIVEN_NAMES = ['太郎', '花子', '一郎', '美咲', '健太', '由美子', '翔'];
const LATIN_SURNAMES = [
  'Yamada',
  'Sato',
  'Suzuki',
  'Takahashi',
  'Watanabe',
  'Nakamura',
  'Garcia',
  'Smith',
];
const LATIN_GIVEN_NAMES = ['Taro', 'Hanako', 'Ichiro', 'Misaki', 'Kenta', 'Emma', 'John'];

const japanesePerson = fc.record({
  surname: fc.constantFrom(...JAPANESE_SURNAMES),
  given: fc.constantFrom(...JAPANESE_GIVEN_NAMES),
});
const latinPerson = fc.record({
  surname: fc.constantFrom(...LATIN_SURNAMES),
  given: fc.constantFrom(...LATIN_GIVEN_NAMES),
});

/**
 * A Japanese name variant and what must not survive of it. A one-character surname alone is
 * only a name before an honorific or as a whole token (the module's rule), so that is how it is
 * embedded; everything else appears in every variant.
 */
const japaneseNameMention = fc
  .tuple(
    japanesePerson,
    fc.constantFrom('full-space', 'full-none', 'full-ideographic', 'reversed', 'surname', 'given'),
    fc.constantFrom('', 'さん', '様', '氏', '部長', ' さん'),
  )
  .map(([person, variant, honorific]) => {
    const { surname, given } = person;
    const mention = {
      'full-space': `${surname} ${given}`,
      'full-none': `${surname}${given}`,
      'full-ideographic': `${surname}\u3000${given}`,
      reversed: `${given} ${surname}`,
      surname,
      given,
    }[variant];
    const needsHonorific =
      (variant === 'surname' && surname.length === 1) ||
      (variant === 'given' && given.length === 1);
    const suffix = needsHonorific && honorific === '' ? 'さん' : honorific;
    const gone =
      variant === 'surname' ? [surname] : variant === 'given' ? [given] : [surname, given];
    return {
      person: { names: [`${surname} ${given}`] } satisfies Person,
      mention: `${mention}${suffix}`,
      gone,
    };
  });

const latinNameMention = fc
  .tuple(
    latinPerson,
    fc.constantFrom(
      'given-surname',
      'surname-given',
      'surname-comma-given',
      'initial-surname',
      'surname',
      'upper',
      'dot-id',
      'reversed-dot-id',
      'initial-id',
      'full-width',
    ),
    fc.boolean(),
  )
  .map(([person, variant, withUserIdField]) => {
    const { surname, given } = person;
    const lower = (text: string) => text.toLowerCase();
    const mention = {
      'given-surname': `${given} ${surname}`,
      'surname-given': `${surname} ${given}`,
      'surname-comma-given': `${surname}, ${given}`,
      'initial-surname': `${given[0]}. ${surname}`,
      surname,
      upper: `${surname.toUpperCase()} ${given}`,
      'dot-id': `${lower(given)}.${lower(surname)}`,
      'reversed-dot-id': `${lower(surname)}.${lower(given)}`,
      'initial-id': `${lower(given[0] ?? '')}${lower(surname)}`,
      'full-width': toFullWidth(`${given} ${surname}`),
    }[variant];
    const person_: Person = withUserIdField
      ? { names: [], userIds: [`${lower(given)}.${lower(surname)}`] }
      : { names: [`${given} ${surname}`] };
    return { person: person_, mention, gone: [surname] };
  });

function scrub(text: string, people: readonly Person[] = []) {
  return scrubPersonalData(text, { language: languageOf(text), people });
}

// ---------------------------------------------------------------------------------------------

describe('scrubPersonalData (properties)', () => {
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

  it('is idempotent: scrubbing scrubbed text changes nothing more', () => {
    const anything = fc.oneof(
      anyEmail,
      anyPhone,
      anyCredential.map((credential) => credential.pasted),
      japaneseNameMention.map((mention) => mention.mention),
    );
    fc.assert(
      fc.property(embedded(anything), ({ text }) => {
        const people = [{ names: ['山田 太郎', 'Taro Yamada'] }];
        const once = scrub(text, people);
        const twice = scrub(once.text, people);
        expect(twice.text).toBe(once.text);
      }),
      { numRuns: 300 },
    );
  });
});

describe('scrubPersonalData (examples)', () => {
  const people: Person[] = [
    {
      names: ['山田 太郎', 'Taro Yamada'],
      userIds: ['tyamada'],
      emails: ['taro.yamada@example.co.jp'],
    },
    { names: ['林 一'] },
  ];

  it('replaces each kind by its placeholder in the text’s language and counts them', () => {
    const result = scrubPersonalData(
      '山田さん（taro@example.co.jp、090-1234-5678）から。パスワード：Abc 123!\n担当: 林 一',
      { language: 'ja', people },
    );
    expect(result.text).toBe(
      '[氏名]さん（[メール]、[電話]）から。パスワード：[秘密]\n担当: [氏名]',
    );
    expect(result.counts).toEqual({ name: 2, email: 1, phone: 1, secret: 1 });
    expect(
      scrubPersonalData('Call Taro Yamada at +1 (206) 555-0100, password: x', {
        language: 'en',
        people,
      }).text,
    ).toBe('Call [name] at [phone], password: [secret]');
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
    ].join('\n');
    const result = scrubPersonalData(text, { language: 'ja', people });
    expect(result.text).toBe(text);
    expect(result.counts).toEqual({ name: 0, email: 0, phone: 0, secret: 0 });
  });

  it('applies configured patterns (IP addresses, employee ids) and the dictionary, and keeps listed texts', () => {
    const settings = parseScrubSettings({
      patterns: [
        OPTIONAL_SCRUB_PATTERNS.ipv4Address,
        {
          kind: 'employeeId',
          pattern: '\\bE\\d{6}\\b',
          placeholder: { ja: '[社員番号]', en: '[employee id]' },
        },
      ],
      dictionary: ['佐々木 健', 'Jane Doe'],
      keep: ['support@example.co.jp'],
    });
    const result = scrubPersonalData(
      '192.168.1.10 の佐々木さん（E123456）と Jane Doe が support@example.co.jp と jane@example.co.jp に送信。v1.2.3.4',
      { ...settings, language: 'ja' },
    );
    expect(result.text).toBe(
      '[IPアドレス] の[氏名]さん（[社員番号]）と [氏名] が support@example.co.jp と [メール] に送信。v1.2.3.4',
    );
    expect(result.counts).toEqual({
      name: 2,
      email: 1,
      phone: 0,
      secret: 0,
      ipAddress: 1,
      employeeId: 1,
    });
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
    expect(totals).toEqual({ name: 0, email: 6, phone: 0, secret: 0 });
    expect(changed).toEqual(['1012.md', '1050.md', '1140.md', '1156.md', '1234.md']);
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

describe('languageOf', () => {
  it('is Japanese with any kana or two ideographs, English otherwise', () => {
    expect(languageOf('VPN に接続できない')).toBe('ja');
    expect(languageOf('障害 VPN')).toBe('ja');
    expect(languageOf('VPN fails after the update')).toBe('en');
  });
});

describe('parseScrubSettings', () => {
  it('accepts the settings file example of docs/deploy.md, whose IP pattern is the ready-made one', () => {
    const guide = readFileSync(join(import.meta.dirname, '../../docs/deploy.md'), 'utf8');
    const example = /## Personal data[\s\S]*?```json\n([\s\S]*?)\n```/.exec(guide)?.[1];
    const settings = parseScrubSettings(JSON.parse(example ?? 'null'));
    expect(settings.patterns?.[1]?.pattern).toBe(OPTIONAL_SCRUB_PATTERNS.ipv4Address.pattern);
    expect(
      scrubPersonalData('E123456 の 10.1.2.3 と 鈴木さん', { ...settings, language: 'ja' }).text,
    ).toBe('[社員番号] の [IPアドレス] と [氏名]さん');
  });

  it('accepts patterns, a dictionary and keep', () => {
    expect(parseScrubSettings({ dictionary: ['山田 太郎'] })).toEqual({
      dictionary: ['山田 太郎'],
    });
  });

  it.each([
    [
      { patterns: [{ kind: 'x', pattern: '(' }] },
      /patterns\[0\]\.pattern: not a valid regular expression/,
    ],
    [
      { patterns: [{ kind: 'x', pattern: 'a*' }] },
      /patterns\[0\]\.pattern: must not match the empty text/,
    ],
    [
      { patterns: [{ kind: 'bad kind', pattern: 'a' }] },
      /patterns\[0\]\.kind: kind must be a word/,
    ],
    [
      { patterns: [{ kind: 'x', pattern: 'a', flags: 'g' }] },
      /patterns\[0\]\.flags: flags may only hold/,
    ],
    [{ dictionary: ['ok', ' '] }, /dictionary\[1\]: a dictionary entry must not be empty/],
    [{ dictonary: [] }, /Unrecognized key/],
    ['[]', /\(settings\)/],
  ])('refuses %j naming the field', (settings, message) => {
    expect(() => parseScrubSettings(settings)).toThrow(ScrubSettingsError);
    expect(() => parseScrubSettings(settings)).toThrow(message);
  });
});
