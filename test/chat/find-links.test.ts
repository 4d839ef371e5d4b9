import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_VENDOR_LINK_DOMAINS,
  findLinks,
  findUnverifiedLinks,
  hrefDomains,
  isAllowedDomain,
  isAllowedLink,
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

  it('reports a markdown link as its target, with its scheme, without the markdown around it', () => {
    expect(
      findLinks('[x](mailto:A@Evil.Example) <http://evil.example/a>').map((link) => link.link),
    ).toEqual(['mailto:A@Evil.Example', 'http://evil.example/a']);
  });
});

/**
 * The forms of issue 48 and the ones beside them: each is removed (and listed) or kept, by its
 * target, scheme and host — never by the text shown for it.
 */
describe('the link policy, form by form', () => {
  const removedForm = (text: string, listed: string[]) => {
    const { text: cleaned, removed } = removeUnverifiedLinks(text, allowed);
    expect(removed).toEqual(listed);
    expect(findUnverifiedLinks(cleaned, allowed)).toEqual([]);
    return cleaned;
  };
  const en = REMOVED_LINK_PLACEHOLDERS.en;
  const ja = REMOVED_LINK_PLACEHOLDERS.ja;

  it.each<[string, string, string[]]>([
    // A markdown link is its target: allowed text, evil target.
    [
      'See [https://support.microsoft.com/ja-jp](https://evil.example/ms) now',
      `See ${en} now`,
      ['https://evil.example/ms'],
    ],
    ['[Microsoft サポート](https://evil.example/ms)', ja, ['https://evil.example/ms']],
    ['![logo](https://evil.example/pixel.png)', en, ['https://evil.example/pixel.png']],
    // Autolinks.
    ['Open <https://evil.example/x> now', `Open ${en} now`, ['https://evil.example/x']],
    ['Open <javascript:alert(1)> now', `Open ${en} now`, ['javascript:alert(1)']],
    // Reference-style links: the use and the definition.
    [
      'See [Microsoft][ms] now.\n\n[ms]: https://evil.example/ms',
      `See ${en} now.\n\n${en}`,
      ['https://evil.example/ms'],
    ],
    [
      'See [ms] now.\n\n[ms]: <https://evil.example/ms> "Microsoft"',
      `See ${en} now.\n\n${en}`,
      ['https://evil.example/ms'],
    ],
    // URLs glued onto an allowed one.
    [
      'https://support.microsoft.com)https://evil.example/a',
      `https://support.microsoft.com)${en}`,
      ['https://evil.example/a'],
    ],
    [
      'https://support.microsoft.com|https://evil.example/a',
      `https://support.microsoft.com|${en}`,
      ['https://evil.example/a'],
    ],
    [
      '「https://support.microsoft.com」https://evil.example/a',
      `「https://support.microsoft.com」${en}`,
      ['https://evil.example/a'],
    ],
    [
      'https://support.microsoft.com、https://evil.example/a',
      `https://support.microsoft.com、${en}`,
      ['https://evil.example/a'],
    ],
    // Glued inside an allowed URL's path: the glued one goes.
    [
      'https://support.microsoft.com/a|https://evil.example/b',
      `https://support.microsoft.com/a|${en}`,
      ['https://evil.example/b'],
    ],
    [
      'https://support.microsoft.com/a|evil.example/b',
      `https://support.microsoft.com/a|${en}`,
      ['evil.example/b'],
    ],
    ['support.microsoft.com/a|evil.example/b', `support.microsoft.com/a|${en}`, ['evil.example/b']],
    // Schemes that run code or carry a document, in any case or width.
    [
      'Click javascript:alert(document.cookie) now',
      `Click ${en} now`,
      ['javascript:alert(document.cookie)'],
    ],
    ['JAVASCRIPT:alert(1)', en, ['JAVASCRIPT:alert(1)']],
    ['ｊａｖａｓｃｒｉｐｔ：alert(1)', en, ['ｊａｖａｓｃｒｉｐｔ：alert(1)']],
    ['vbscript:msgbox(1)', en, ['vbscript:msgbox(1)']],
    [
      'data:text/html;base64,PHNjcmlwdD4= here',
      `${en} here`,
      ['data:text/html;base64,PHNjcmlwdD4='],
    ],
    ['[click](javascript:alert(1))', en, ['javascript:alert(1)']],
    ['[click](JavaScript:alert(1))', en, ['JavaScript:alert(1)']],
    // Only https: survives, even to an allowed host.
    ['http://support.microsoft.com/x', en, ['http://support.microsoft.com/x']],
    ['ftp://support.microsoft.com/x', en, ['ftp://support.microsoft.com/x']],
    // A special scheme without slashes is still a URL to a browser.
    ['https:evil.example/a', en, ['https:evil.example/a']],
    ['https:\\\\evil.example/a', en, ['https:\\\\evil.example/a']],
    ['HTTPS://EVIL.EXAMPLE/A', en, ['HTTPS://EVIL.EXAMPLE/A']],
    // Hosts that only look allowed.
    ['https://support.microsoft.com.evil.com/x', en, ['https://support.microsoft.com.evil.com/x']],
    ['https://support.microsoft.com@evil.com/x', en, ['https://support.microsoft.com@evil.com/x']],
    ['https://micrоsoft.com/x', en, ['https://micrоsoft.com/x']],
    ['https://xn--micrsoft-qbh.com/x', en, ['https://xn--micrsoft-qbh.com/x']],
    // mailto: survives only with every address allowed.
    [
      'mailto:help@microsoft.com?cc=x@evil.example',
      en,
      ['mailto:help@microsoft.com?cc=x@evil.example'],
    ],
    [
      '[mail](mailto:a@microsoft.com,b%40evil.example)',
      en,
      ['mailto:a@microsoft.com,b%40evil.example'],
    ],
  ])('%s', (text, cleaned, listed) => {
    expect(removedForm(text, listed)).toBe(cleaned);
  });

  it.each([
    'https://support.microsoft.com/ja-jp',
    'HTTPS://SUPPORT.MICROSOFT.COM/ja-jp',
    '[Microsoft サポート](https://support.microsoft.com/ja-jp)',
    '<https://support.microsoft.com/x>',
    'See [kb][1].\n\n[1]: https://support.microsoft.com/kb',
    'mailto:help@example.co.jp',
    '[mail](mailto:help@example.co.jp)',
    'help@example.co.jp',
    'www.microsoft.com',
    'https://例え.example.co.jp/x',
  ])('keeps %s', (text) => {
    expect(removeUnverifiedLinks(text, allowed)).toEqual({ text, removed: [] });
  });

  it('keeps sentence punctuation after a link out of it', () => {
    expect(found('Open https://support.microsoft.com/a. Then https://evil.example/b, ok')).toEqual([
      ['https://support.microsoft.com/a', 'support.microsoft.com'],
      ['https://evil.example/b', 'evil.example'],
    ]);
    expect(removeUnverifiedLinks('(see https://evil.example/a).', allowed).text).toBe(
      `(see ${en}).`,
    );
  });

  it('judges the target of a link, not its text, and both when both are links', () => {
    expect(
      findLinks('[https://support.microsoft.com](https://evil.example)').map((link) => [
        link.scheme,
        link.domain,
        isAllowedLink(link, allowed),
      ]),
    ).toEqual([
      ['https:', 'evil.example', false],
      ['https:', 'support.microsoft.com', true],
    ]);
  });

  it('reads a URL beyond 2,048 characters no further, and still finds what is glued on after', () => {
    const long = `https://support.microsoft.com/${'a'.repeat(3000)}|https://evil.example/x`;
    expect(removeUnverifiedLinks(long, allowed).removed).toEqual(['https://evil.example/x']);
    const glued = 'https://'.repeat(3000);
    expect(findLinks(`${glued}evil.example`).at(-1)?.domain).toBe('evil.example');
  });

  it('finds a link continued on a quoted line', () => {
    expect(
      removeUnverifiedLinks('> see [the\n> portal](https://evil.example/x)', allowed).text,
    ).toBe(`> see ${en}`);
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
      // Issue 48: schemes without `//`, glue characters, markdown around an allowed text.
      'javascript:alert(1)',
      'data:text/html,x',
      'https:',
      '|',
      '」',
      '、',
      '[https://support.microsoft.com](',
      '\n\n[r]: ',
      '[x][r]',
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
