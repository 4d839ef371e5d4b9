import fc from 'fast-check';
import { type Person, ROLE_MAILBOXES } from '../../functions/knowledge/personal-data-detectors.js';

/**
 * fast-check generators of personal data as tickets hold it — e-mail addresses, phone numbers,
 * pasted credentials, person-field names in their variants — embedded in ticket prose, for the
 * property tests of the detectors (personal-data-detectors.test.ts) and of the scrub
 * (personal-data-scrub.test.ts).
 */

/** Ticket prose around the personal data: words that contain no generated name, digit or key. */
export const FILLER_WORDS = [
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

export const SEPARATORS_AROUND = [
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
export function embedded<T>(item: fc.Arbitrary<T>, textOf: (value: T) => string = String) {
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
export function toFullWidth(text: string): string {
  return text.replace(/[!-~ ]/g, (character) =>
    character === ' ' ? '\u3000' : String.fromCharCode(character.charCodeAt(0) + 0xfee0),
  );
}

export function fold(text: string): string {
  return text.replace(/[\uff01-\uff5e\u3000]/g, (character) =>
    character === '\u3000' ? ' ' : String.fromCharCode(character.charCodeAt(0) - 0xfee0),
  );
}

export const digit = fc.constantFrom(...'0123456789');
export const digits = (length: number) =>
  fc.array(digit, { minLength: length, maxLength: length }).map((array) => array.join(''));
export const nonZeroDigit = fc.constantFrom(...'123456789');

/** Japanese national numbers as digit groups (the plan's shapes). */
export const japaneseNumberGroups = fc.oneof(
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

export const phoneSeparator = fc.constantFrom('-', ' ', '', '.', 'ー', '－', '‐', ' - ', '  ', '−');

export const japanesePhone = fc
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

export const internationalPhone = fc.oneof(
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

export const anyPhone = fc
  .tuple(fc.oneof(japanesePhone, internationalPhone), fc.constantFrom('half', 'full', 'digits'))
  .map(([phone, width]) =>
    width === 'full'
      ? toFullWidth(phone)
      : width === 'digits'
        ? phone.replace(/\d/g, (d) => String.fromCharCode(d.charCodeAt(0) + 0xfee0))
        : phone,
  );

export const localPartCharacter = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789');
export const word = (min: number, max: number) =>
  fc
    .array(localPartCharacter, { minLength: min, maxLength: max })
    .map((characters) => characters.join(''));

export const anyEmail = fc
  .record({
    local: fc
      .array(word(1, 8), { minLength: 1, maxLength: 3 })
      .chain((parts) => fc.constantFrom('.', '_', '-', '+').map((joiner) => parts.join(joiner)))
      // Role mailboxes (helpdesk@, info@…) are kept by design; a person's address is anything else.
      .filter((local) => !ROLE_MAILBOXES.includes(local)),
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

export const secretValue = fc
  .array(fc.constantFrom(...'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!#$%*+-_'), {
    minLength: 8,
    maxLength: 20,
  })
  .map((characters) => characters.join(''));
export const base64 = (length: number) =>
  fc
    .array(fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'), {
      minLength: length,
      maxLength: length,
    })
    .map((characters) => characters.join(''));
export const upperAlphanumeric = (length: number) =>
  fc
    .array(fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'), {
      minLength: length,
      maxLength: length,
    })
    .map((characters) => characters.join(''));

/** A credential as it is pasted, and the secret part that must not survive. */
export const anyCredential: fc.Arbitrary<{ pasted: string; secret: string }> = fc.oneof(
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
export const JAPANESE_SURNAMES = [
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
export const JAPANESE_GIVEN_NAMES = ['太郎', '花子', '一郎', '美咲', '健太', '由美子', '翔'];
export const LATIN_SURNAMES = [
  'Yamada',
  'Sato',
  'Suzuki',
  'Takahashi',
  'Watanabe',
  'Nakamura',
  'Garcia',
  'Smith',
];
export const LATIN_GIVEN_NAMES = ['Taro', 'Hanako', 'Ichiro', 'Misaki', 'Kenta', 'Emma', 'John'];

export const japanesePerson = fc.record({
  surname: fc.constantFrom(...JAPANESE_SURNAMES),
  given: fc.constantFrom(...JAPANESE_GIVEN_NAMES),
});
export const latinPerson = fc.record({
  surname: fc.constantFrom(...LATIN_SURNAMES),
  given: fc.constantFrom(...LATIN_GIVEN_NAMES),
});

/**
 * A Japanese name variant and what must not survive of it. A one-character surname alone is
 * only a name before an honorific or as a whole token (the module's rule), so that is how it is
 * embedded; everything else appears in every variant.
 */
export const japaneseNameMention = fc
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

export const latinNameMention = fc
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
