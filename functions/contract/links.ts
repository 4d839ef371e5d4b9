/**
 * Links in free text, and the allow-list of domains they may point to. A ticket in the Knowledge
 * Base is written by people, so a link in it ("reset your password at http://evil.example") can
 * reach a requester through an answer. The server removes links outside the allow-list from the
 * mail draft and the to-dos and lists them in `result.unverified_links`; the web app shows them
 * in the advice as text marked unverified; publishing a ticket warns the editor. One grammar for
 * all three, so each side finds what the other counted.
 *
 * What counts as a link (matching runs on the NFKC form, so `ｈｔｔｐｓ：／／ｅｖｉｌ．ｅｘａｍｐｌｅ`
 * counts; offsets stay those of the original text):
 *
 * - a URL with a scheme, `http://…`, `https://…`, any `scheme://…`; its host is what the WHATWG
 *   URL parser (the browser's) makes of the authority: after the last `@` (so
 *   `http://example.com@evil.example` is evil.example), IDNA-mapped to ASCII (`ｅｖｉｌ。example`
 *   → evil.example, `例え.jp` → xn--r8jz45g.jp). A host runs on through letters of any script,
 *   and format characters such as U+200B (which IDNA ignores), up to white space or punctuation:
 *   `https://microsoft.com\u200B.evil.example` is microsoft.com.evil.example, as a browser reads
 *   it. The cost: Japanese written straight after a host (`https://example.comにアクセス`)
 *   becomes part of it, and the link is unverified — write a space or bracket after a link;
 * - an e-mail address (`help@example.com`, with `mailto:` in front or not); its domain by the
 *   same rules as a host;
 * - a bare domain, ASCII only: `www.` anything, anything followed by a path (`evil.example/reset`),
 *   or a name whose last label is a common top-level domain ({@link BARE_DOMAIN_TLDS}). File
 *   names (`outlook.exe`, `rtwlane.sys`, `README.md`, `install.sh`) are not links;
 * - a markdown link `[text](target)` or autolink `<target>` counts as its target, and its span
 *   is the whole construct (removed as one); a link written in the text of a markdown link counts
 *   on its own.
 *
 * A domain is allowed when it is one of the allow-list's domains or a subdomain of one
 * (`sub.example.com` when `example.com` is listed; `evil-example.com` is not). Lookalikes never
 * match: a Cyrillic `е` makes another (punycode) name. Everything unparseable is unverified.
 */

/**
 * Vendor-run hosts a service desk commonly sends requesters to, allowed by default beside the
 * organisation's own domains. Only hosts the vendor itself runs: domains whose subdomains are
 * customer tenants or user content (google.com's sites and forms, zoom.us, salesforce.com,
 * okta.com, slack.com workspaces) are narrowed to their support hosts. docs/deploy.md says why
 * each is here.
 */
export const DEFAULT_VENDOR_LINK_DOMAINS = [
  'microsoft.com',
  'office.com',
  'microsoft365.com',
  'aka.ms',
  'apple.com',
  'support.google.com',
  'support.zoom.com',
  'support.zoom.us',
  'help.salesforce.com',
  'help.okta.com',
  'support.okta.com',
  'support.box.com',
  'support.atlassian.com',
  'aws.amazon.com',
] as const;

/**
 * Top-level domains that make a bare `name.tld` a link without `www.` or a path. Common generic
 * and country domains, without the ones that are also file extensions in IT work (`.md`, `.sh`,
 * `.py`, `.pl`, `.rs`, `.zip`, `.mov`, `.exe` is none), plus RFC 2606's `example` and `test`.
 */
const BARE_DOMAIN_TLDS = new Set([
  'com',
  'net',
  'org',
  'edu',
  'gov',
  'mil',
  'int',
  'info',
  'biz',
  'io',
  'co',
  'jp',
  'us',
  'uk',
  'de',
  'fr',
  'it',
  'es',
  'nl',
  'eu',
  'ch',
  'se',
  'cn',
  'kr',
  'tw',
  'hk',
  'sg',
  'au',
  'nz',
  'ca',
  'in',
  'br',
  'ru',
  'asia',
  'ms',
  'ly',
  'gl',
  'me',
  'tv',
  'cc',
  'ai',
  'app',
  'dev',
  'cloud',
  'xyz',
  'online',
  'site',
  'top',
  'shop',
  'link',
  'live',
  'example',
  'test',
]);

import { normalizeWithOffsets } from './ticket-references.js';

/** One link as written: where it is in the original text, what it points to. */
export interface FoundLink {
  /** UTF-16 offset of the link in the text as given (a markdown link's `[`, an autolink's `<`). */
  readonly start: number;
  /** UTF-16 offset just after it. */
  readonly end: number;
  /** The URL or address as written (a markdown link's target, without `mailto:`). */
  readonly link: string;
  /** The host or mail domain: ASCII, lower case, no trailing dot; absent when it cannot be parsed. */
  readonly domain?: string;
}

// The host of a URL or mail address: ASCII host characters, letters and marks of any script
// (IDN), and format characters IDNA ignores — so nothing a browser reads as host is cut off.
const HOST = String.raw`(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~%!$&*+=:@\p{L}\p{N}\p{M}\p{Cf}])`;
/** Path, query and fragment: printable ASCII but space, quotes, `<`, `>` and the backtick. */
const PATH = '[!#-&(-;=?-_a-~]';
const SCHEME_URL = new RegExp(
  String.raw`([A-Za-z][A-Za-z0-9+.\-]*:\/\/)(${HOST}*)([/?#\\]${PATH}*)?`,
  'gu',
);
const EMAIL = new RegExp(String.raw`(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+@(${HOST}+)`, 'giu');
const BARE_DOMAIN = new RegExp(
  String.raw`(?<![A-Za-z0-9])((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+([A-Za-z]{2,63}))(?![A-Za-z0-9_\-@])(\/${PATH}*)?`,
  'gu',
);
const MARKDOWN_LINK = /\[([^[\]\n]*)\]\(\s*<?([^\s()<>]+)>?(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/gu;
/** Punctuation that ends a sentence, not a URL: trimmed from the end of a found link. */
const TRAILING_PUNCTUATION = /[.,;:!?'*]+$/u;

/**
 * Every link in `text`, in order of their start, with offsets into `text` itself. Links inside
 * the text of a markdown link are listed after it (their spans lie inside its span).
 *
 * @example
 * findLinks('reset at http://example.com@evil.example now');
 * // [{ start: 9, end: 40, link: 'http://example.com@evil.example', domain: 'evil.example' }]
 */
export function findLinks(text: string): FoundLink[] {
  const { normalized, offsets } = normalizeWithOffsets(text);
  const scan = normalized.replace(/(?<=[A-Za-z0-9])\u3002(?=[A-Za-z0-9])/gu, '.');
  const claimed: Array<readonly [number, number]> = [];
  const cores: Array<{ start: number; end: number; domain?: string }> = [];
  const isClaimed = (start: number, end: number) =>
    claimed.some(([from, to]) => start < to && end > from);
  const claim = (start: number, end: number, domain: string | undefined) => {
    claimed.push([start, end]);
    cores.push({ start, end, ...(domain !== undefined ? { domain } : {}) });
  };

  for (const match of scan.matchAll(SCHEME_URL)) {
    const [, scheme = '', written = '', writtenPath = ''] = match;
    const kept = hostExtent(written);
    const authority = written.slice(0, kept);
    const path = kept < written.length ? '' : writtenPath;
    const trimmedAuthority = path === '' ? authority.replace(TRAILING_PUNCTUATION, '') : authority;
    const trimmedPath = trimParentheses(path.replace(TRAILING_PUNCTUATION, ''));
    // `http://` and nothing else: no host anyone can visit.
    if (trimmedAuthority === '' && trimmedPath === '') continue;
    const url = `${scheme}${trimmedAuthority}${trimmedPath}`;
    // The whole URL, not the authority alone: `http:///evil.example` is evil.example to a browser.
    claim(match.index, match.index + url.length, hostOfUrl(url));
  }
  for (const match of scan.matchAll(EMAIL)) {
    const [whole, written = ''] = match;
    const trimmed = written.slice(0, hostExtent(written)).replace(TRAILING_PUNCTUATION, '');
    let end = match.index + whole.length - (written.length - trimmed.length);
    if (isClaimed(match.index, end)) continue;
    // A `mailto:` link's query (`?subject=…`) goes with it.
    if (/mailto:$/iu.test(scan.slice(Math.max(0, match.index - 7), match.index))) {
      end += /^\?[!#-&(-;=?-_a-~]*/u.exec(scan.slice(end))?.[0].length ?? 0;
    }
    claim(match.index, end, normalizeDomain(trimmed));
  }
  BARE_DOMAIN.lastIndex = 0;
  for (let match = BARE_DOMAIN.exec(scan); match !== null; match = BARE_DOMAIN.exec(scan)) {
    const [, host = '', tld = '', path] = match;
    const isLink = host.toLowerCase().startsWith('www.') || path !== undefined;
    if (!isLink && !BARE_DOMAIN_TLDS.has(tld.toLowerCase())) {
      // `user.account.lock` is no link, but `x.www.evil.example.aj` holds one: look again from
      // the next label.
      BARE_DOMAIN.lastIndex = match.index + (host.indexOf('.') + 1 || host.length);
      continue;
    }
    const trimmedPath = trimParentheses((path ?? '').replace(TRAILING_PUNCTUATION, ''));
    const end = match.index + host.length + trimmedPath.length;
    if (isClaimed(match.index, end)) continue;
    claim(match.index, end, normalizeDomain(host));
  }

  // Markdown links and autolinks: the construct around a link is removed with it.
  const wrappers = new Map<number, { start: number; end: number }>();
  for (const match of scan.matchAll(MARKDOWN_LINK)) {
    const target = match[2] ?? '';
    const targetStart = match.index + match[0].indexOf(target, (match[1] ?? '').length + 2);
    wrappers.set(targetStart, { start: match.index, end: match.index + match[0].length });
  }
  const links = cores.map((core) => {
    let { start, end } = core;
    if (/mailto:$/iu.test(scan.slice(Math.max(0, start - 7), start))) start -= 7;
    const wrapper = wrappers.get(start);
    if (wrapper && wrapper.end >= end) ({ start, end } = wrapper);
    else if (scan[start - 1] === '<' && scan[end] === '>') {
      start -= 1;
      end += 1;
    }
    return {
      start: offsets[start] ?? 0,
      end: offsets[end] ?? text.length,
      link: text.slice(offsets[core.start] ?? 0, offsets[core.end] ?? text.length),
      ...(core.domain !== undefined ? { domain: core.domain } : {}),
    };
  });
  return links.sort((left, right) => left.start - right.start || right.end - left.end);
}

/**
 * The domain of a link target as an anchor's `href` holds it (`https://…`, `mailto:…`): the
 * domains of every link {@link findLinks} finds in it, or `undefined` when it names none.
 *
 * @example
 * hrefDomains('mailto:help@example.com'); // ['example.com']
 */
export function hrefDomains(href: string): string[] | undefined {
  let decoded = href;
  try {
    // `mailto:` addresses may be percent-encoded (`%40`); hosts the URL parser decodes itself.
    if (/^mailto:/iu.test(href)) decoded = decodeURIComponent(href);
  } catch {
    return undefined;
  }
  const links = findLinks(decoded);
  if (links.length === 0 || links.some((link) => link.domain === undefined)) return undefined;
  return links.map((link) => link.domain as string);
}

/**
 * A host or mail domain in the form allow-lists compare: what the WHATWG URL parser makes of it
 * (IDNA to ASCII, lower case, full-width dots mapped), without a trailing dot; `undefined` when
 * it is no host.
 *
 * @example
 * normalizeDomain('ＥＸＡＭＰＬＥ。com.'); // 'example.com'
 */
export function normalizeDomain(name: string): string | undefined {
  return hostOfUrl(`http://${name}`);
}

/**
 * Whether `domain` is one of `allowed` or a subdomain of one. IP addresses match only exactly.
 *
 * @example
 * isAllowedDomain('sub.example.com', ['example.com']); // true
 * isAllowedDomain('evil-example.com', ['example.com']); // false
 */
export function isAllowedDomain(domain: string | undefined, allowed: readonly string[]): boolean {
  if (domain === undefined) return false;
  const address = /^[\d.]+$|^\[/u.test(domain);
  return allowed.some((entry) => {
    const listed = normalizeDomain(entry);
    if (listed === undefined) return false;
    return domain === listed || (!address && domain.endsWith(`.${listed}`));
  });
}

/** What replaces a removed link, in the language the text is written in. */
export const REMOVED_LINK_PLACEHOLDERS = { ja: '［リンク削除］', en: '[link removed]' } as const;

/**
 * `text` with every link outside `allowed` replaced by a placeholder ({@link
 * REMOVED_LINK_PLACEHOLDERS}: Japanese when the text has Japanese in it), and those links as
 * written, each once, in order. Overlapping links (a markdown link and a link in its text) are
 * removed as one stretch.
 *
 * @example
 * removeUnverifiedLinks('see http://evil.example', ['example.com']);
 * // { text: 'see [link removed]', removed: ['http://evil.example'] }
 */
export function removeUnverifiedLinks(
  text: string,
  allowed: readonly string[],
): { text: string; removed: string[] } {
  const removed = new Set<string>();
  let current = text;
  // Again until nothing is left: a placeholder between two remnants could in theory join them
  // into a new link. Each pass removes at least one link, so this ends.
  for (let pass = 0; pass < 10; pass++) {
    const unverified = findLinks(current).filter((link) => !isAllowedDomain(link.domain, allowed));
    if (unverified.length === 0) return { text: current, removed: [...removed] };
    for (const link of unverified) removed.add(link.link);
    current = replaceLinks(current, unverified, placeholderFor(text));
  }
  // Never reached in practice; if it were, nothing unverified may stay.
  return { text: placeholderFor(text), removed: [...removed] };
}

function placeholderFor(text: string): string {
  return /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u.test(text)
    ? REMOVED_LINK_PLACEHOLDERS.ja
    : REMOVED_LINK_PLACEHOLDERS.en;
}

/** `text` with each link's span replaced by `placeholder`; overlapping spans as one. */
function replaceLinks(text: string, links: readonly FoundLink[], placeholder: string): string {
  let result = '';
  let position = 0;
  for (const link of links) {
    if (link.end <= position) continue;
    if (link.start >= position) result += text.slice(position, link.start) + placeholder;
    position = Math.max(position, link.end);
  }
  return result + text.slice(position);
}

/** The links of `text` outside `allowed`, as written, each once, in order. */
export function findUnverifiedLinks(text: string, allowed: readonly string[]): string[] {
  const links = findLinks(text).filter((link) => !isAllowedDomain(link.domain, allowed));
  return [...new Set(links.map((link) => link.link))];
}

/**
 * How much of a host as written is the host: all of it, except Japanese glued straight onto an
 * ASCII label with no further dot (`portal.office.comにアクセス` → `portal.office.com`). That
 * run could only extend the top-level label, which no registry offers, so cutting it points
 * nowhere new; with a dot after it (`microsoft.comいevil.example`) or before it
 * (`microsoft.com.コム`) it names another registrable domain and stays, unverified.
 */
function hostExtent(host: string): number {
  const japanese = /(?<=[A-Za-z0-9])[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u.exec(
    host,
  );
  if (!japanese || /[.\u3002]/u.test(host.slice(japanese.index))) return host.length;
  return japanese.index;
}

function hostOfUrl(url: string): string | undefined {
  try {
    const hostname = new URL(url).hostname.replace(/\.$/u, '');
    return hostname === '' ? undefined : hostname;
  } catch {
    return undefined;
  }
}

/** A `)` that closes nothing opened in the link ends it: `(see https://example.com/a)`. */
function trimParentheses(path: string): string {
  let depth = 0;
  for (let index = 0; index < path.length; index++) {
    if (path[index] === '(') depth++;
    else if (path[index] === ')' && --depth < 0) return path.slice(0, index);
  }
  return path;
}
