import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  languageOf,
  OPTIONAL_SCRUB_PATTERNS,
  type Person,
  parseScrubSettings,
  ScrubSettingsError,
  scrubPersonalData,
} from '../../functions/knowledge/personal-data-scrub.js';
import {
  anyCredential,
  anyEmail,
  anyPhone,
  embedded,
  japaneseNameMention,
} from './personal-data-generators.js';

// The scrub's own rules: placeholders per kind and language, counts, idempotence, settings.
// What counts as personal data is personal-data-detectors.test.ts.

function scrub(text: string, people: readonly Person[] = []) {
  return scrubPersonalData(text, { language: languageOf(text), people });
}

describe('scrubPersonalData', () => {
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
    expect(result.counts).toEqual({ name: 2, email: 1, phone: 1, secret: 1, myNumber: 0, card: 0 });
    expect(
      scrubPersonalData('Call Taro Yamada at +1 (206) 555-0100, password: x', {
        language: 'en',
        people,
      }).text,
    ).toBe('Call [name] at [phone], password: [secret]');
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
      myNumber: 0,
      card: 0,
      ipAddress: 1,
      employeeId: 1,
    });
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
    const example = /^## Personal data\n[\s\S]*?```json\n([\s\S]*?)\n```/m.exec(guide)?.[1];
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
