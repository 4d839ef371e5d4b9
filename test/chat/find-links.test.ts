import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_VENDOR_LINK_DOMAINS,
  findLinks,
  findUnverifiedLinks,
  hrefDomains,
  isAllowedDomain,
  normalizeDomain,
  REMOVED_LINK_PLACEHOLDERS,
  removeUnverifiedLinks,
} from '../../functions/contract/links.js';

const allowed = ['example.co.jp', ...DEFAULT_VENDOR_LINK_DOMAINS];

/** Each link found, as `[the text it spans, its domain]`. */
const found = (text: string) =>
  findLinks(text).map((link) => [text.slice(link.start, link.end), link.domain]);

describe('findLinks', () => {
  it.each<[string, Array<[string, string | undefined]>]>([
    ['reset at http://evil.example now', [['http://evil.example', 'evil.example']]],
    ['HTTPS://Evil.Example/Reset?x=1#y.', [['HTTPS://Evil.Example/Reset?x=1#y', 'evil.example']]],
    // Userinfo: the host is after the last @, as a browser reads it.
    [
      'http://support.microsoft.com@evil.example/login',
      [['http://support.microsoft.com@evil.example/login', 'evil.example']],
    ],
    // A backslash is a slash to the URL parser: the host stays example.com.
    ['http://example.com\\@evil.example', [['http://example.com\\@evil.example', 'example.com']]],
    ['http:///evil.example', [['http:///evil.example', 'evil.example']]],
    // Full-width forms and the ideographic full stop are what IDNA makes of them.
    [
      'ｈｔｔｐｓ：／／ｅｖｉｌ．ｅｘａｍｐｌｅ を開く',
      [['ｈｔｔｐｓ：／／ｅｖｉｌ．ｅｘａｍｐｌｅ', 'evil.example']],
    ],
    ['http://evil。example', [['http://evil。example', 'evil.example']]],
    // Characters IDNA ignores do not cut a host short.
    [
      'https://microsoft.com\u200B.evil.example',
      [['https://microsoft.com\u200B.evil.example', 'microsoft.com.evil.example']],
    ],
    // Cyrillic lookalikes are another (punycode) name.
    ['https://micrоsoft.com', [['https://micrоsoft.com', 'xn--micrsoft-qbh.com']]],
    ['https://例え.jp/x', [['https://例え.jp/x', 'xn--r8jz45g.jp']]],
    // Japanese glued to a host with no dot after it is prose; with one it is a host.
    ['https://portal.office.comにアクセス', [['https://portal.office.com', 'portal.office.com']]],
    [
      'https://microsoft.comいevil.example',
      [['https://microsoft.comいevil.example', 'microsoft.xn--comevil-c43f.example']],
    ],
    ['https://microsoft.com.コム', [['https://microsoft.com.コム', 'microsoft.com.xn--tckwe']]],
    // Brackets and sentence punctuation end a link.
    [
      'ポータル（https://portal.office.com）から「https://example-corp.my.salesforce.com」',
      [
        ['https://portal.office.com', 'portal.office.com'],
        ['https://example-corp.my.salesforce.com', 'example-corp.my.salesforce.com'],
      ],
    ],
    ['(see https://example.com/a_(b)).', [['https://example.com/a_(b)', 'example.com']]],
    ['`http://evil.example/x`', [['http://evil.example/x', 'evil.example']]],
    // Bare domains: www., a path, or a common top-level domain.
    ['go to evil.example/reset', [['evil.example/reset', 'evil.example']]],
    ['www.evil.example.', [['www.evil.example', 'www.evil.example']]],
    ['login.salesforce.com を開く', [['login.salesforce.com', 'login.salesforce.com']]],
    ['詳細はexample.comを参照', [['example.com', 'example.com']]],
    ['\\\\fs01.evil.example\\share', [['fs01.evil.example', 'fs01.evil.example']]],
    // File names are no links.
    ['run outlook.exe, rtwlane.sys, README.md, install.sh, user.account.lock', []],
    ['version 1.2.3 and 10.0', []],
    // Mail addresses, with mailto: and its query.
    ['k.ito@example.co.jp）まで', [['k.ito@example.co.jp', 'example.co.jp']]],
    ['k.ito@example.co.jpまで', [['k.ito@example.co.jp', 'example.co.jp']]],
    [
      'mailto:a@evil.example?subject=x and b@evil.example',
      [
        ['mailto:a@evil.example?subject=x', 'evil.example'],
        ['b@evil.example', 'evil.example'],
      ],
    ],
    [
      'support.microsoft.com@evil.example',
      [['support.microsoft.com@evil.example', 'evil.example']],
    ],
    // Markdown links and autolinks span the whole construct.
    [
      '[Microsoft](http://evil.example/login)',
      [['[Microsoft](http://evil.example/login)', 'evil.example']],
    ],
    ['[mail](mailto:x@evil.example)', [['[mail](mailto:x@evil.example)', 'evil.example']]],
    ['<https://evil.example>', [['<https://evil.example>', 'evil.example']]],
    [
      '[https://support.microsoft.com](https://evil.example)',
      [
        ['[https://support.microsoft.com](https://evil.example)', 'evil.example'],
        ['https://support.microsoft.com', 'support.microsoft.com'],
      ],
    ],
    ['http://[::1]:8080/x', [['http://[::1]:8080/x', '[::1]']]],
    ['http:// nothing', []],
  ])('%s', (text, expected) => {
    expect(found(text)).toEqual(expected);
  });

  it('reports the link as written, without mailto: or the markdown around it', () => {
    expect(
      findLinks('[x](mailto:A@Evil.Example) <http://evil.example/a>').map((link) => link.link),
    ).toEqual(['A@Evil.Example', 'http://evil.example/a']);
  });
});

describe('isAllowedDomain', () => {
  it.each<[string | undefined, boolean]>([
    ['example.com', true],
    ['sub.example.com', true],
    ['a.b.example.com', true],
    ['evil-example.com', false],
    ['example.com.evil.example', false],
    ['notexample.com', false],
    ['xn--exmple-cua.com', false],
    ['192.0.2.1', true],
    ['192.0.2.10', false],
    [undefined, false],
  ])('%s', (domain, expected) => {
    expect(isAllowedDomain(domain, ['example.com', '192.0.2.1'])).toBe(expected);
  });

  it('compares the list in the same form as the links', () => {
    expect(isAllowedDomain('example.com', ['ＥＸＡＭＰＬＥ．ＣＯＭ.'])).toBe(true);
    expect(normalizeDomain('ＥＸＡＭＰＬＥ。com.')).toBe('example.com');
  });
});

describe('hrefDomains', () => {
  it.each<[string, string[] | undefined]>([
    ['https://support.microsoft.com/x', ['support.microsoft.com']],
    ['http://www.evil.example', ['www.evil.example']],
    ['mailto:help@example.co.jp', ['example.co.jp']],
    ['mailto:a@example.co.jp,b%40evil.example', ['example.co.jp', 'evil.example']],
    ['https://%EF%BD%85vil.example/', ['evil.example']],
    ['/relative', undefined],
    ['http://', undefined],
  ])('%s', (href, expected) => {
    expect(hrefDomains(href)).toEqual(expected);
  });
});

describe('removeUnverifiedLinks', () => {
  it('replaces links outside the list and keeps the rest', () => {
    const text =
      'Reset at http://evil.example/reset or https://support.microsoft.com, or mail help@evil.example.';
    expect(removeUnverifiedLinks(text, allowed)).toEqual({
      text: `Reset at ${REMOVED_LINK_PLACEHOLDERS.en} or https://support.microsoft.com, or mail ${REMOVED_LINK_PLACEHOLDERS.en}.`,
      removed: ['http://evil.example/reset', 'help@evil.example'],
    });
  });

  it('writes the placeholder in Japanese for Japanese text', () => {
    expect(removeUnverifiedLinks('http://evil.example でリセット', allowed).text).toBe(
      `${REMOVED_LINK_PLACEHOLDERS.ja} でリセット`,
    );
  });

  it('removes a markdown link together with a link in its text', () => {
    expect(
      removeUnverifiedLinks('see [http://evil.example](https://evil.example/x) now', allowed).text,
    ).toBe(`see ${REMOVED_LINK_PLACEHOLDERS.en} now`);
  });

  it('leaves text without links as it is', () => {
    const text = 'Outlook を再起動し、outlook.exe を確認してください。';
    expect(removeUnverifiedLinks(text, allowed)).toEqual({ text, removed: [] });
  });
});

const evilLinks = [
  'http://evil.example',
  'https://evil.example/reset?user=1',
  'http://support.microsoft.com@evil.example',
  'HTTP://EVIL.EXAMPLE',
  'evil.example/reset',
  'www.evil.example',
  'help@evil.example',
  'mailto:help@evil.example',
  '[Microsoft サポート](http://evil.example/login)',
  '<https://evil.example>',
  'https://login.evil.example:8443/x',
  'http://evil。example',
];
/** Full-width forms of the printable ASCII characters. */
const fullWidth = (text: string) =>
  text.replace(/[!-~]/g, (character) =>
    String.fromCharCode(character.charCodeAt(0) - 0x21 + 0xff01),
  );
const separators = [' ', '\n', '、', '。', '（', '）', '「', '」', ': '];

describe('removeUnverifiedLinks, for any text around the link', () => {
  it('leaves no trace of the evil domain', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.constantFrom(...evilLinks),
        fc.boolean(),
        fc.constantFrom(...separators),
        fc.constantFrom(...separators),
        fc.string({ maxLength: 40 }),
        (before, link, wide, left, right, after) => {
          const written = wide ? fullWidth(link) : link;
          const text = `${before}${left}${written}${right}${after}`;
          fc.pre(!/evil/iu.test(`${before}${after}`.normalize('NFKC')));
          const cleaned = removeUnverifiedLinks(text, allowed).text.normalize('NFKC');
          expect(cleaned).not.toMatch(/evil[.。]example/iu);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('leaves nothing outside the list, whatever the text', () => {
    const pieces = fc.constantFrom(
      ...evilLinks,
      'https://support.microsoft.com/x',
      'k.ito@example.co.jp',
      'www.',
      'http://',
      '@',
      '[',
      '](',
      ')',
      '<',
      '>',
      '.',
      '。',
      'example',
      'com',
      ' ',
      'の',
      'mailto:',
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(pieces, fc.string({ maxLength: 6 })), { maxLength: 12 }),
        (parts) => {
          const { text } = removeUnverifiedLinks(parts.join(''), allowed);
          expect(findUnverifiedLinks(text, allowed)).toEqual([]);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps text that has no link unchanged', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        fc.pre(findLinks(text).length === 0);
        expect(removeUnverifiedLinks(text, allowed).text).toBe(text);
      }),
    );
  });
});
