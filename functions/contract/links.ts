/**
 * Links in free text, and the allow-list of domains they may point to (ADR 0013). A ticket in the
 * Knowledge Base is written by people, so a link in it ("reset your password at
 * https://evil.example") can reach a requester through an answer. One policy for every place the
 * page shows text: the server removes links that may not survive from the mail draft, its
 * refinements and edits, the to-dos and the hand-off summary, and lists them in
 * `unverified_links`; the web app marks them in the advice and lists them beside each text;
 * publishing a ticket warns the editor. Every side finds links with {@link findLinks}, so each
 * finds what the other counted.
 *
 * Links are found by parsing, and judged by their target, never by the text shown for them:
 *
 * - markdown links, images, autolinks `<…>` and reference definitions come from `marked`'s lexer
 *   (the renderer the page uses); a link counts as its target (`href`) and spans the whole
 *   construct, so `[https://support.microsoft.com](https://evil.example)` is evil.example and is
 *   removed as one. Text shown for a link counts on its own as well;
 * - every `scheme:` in the text starts a link of its own, even one glued onto another URL
 *   (`https://a.example)https://evil.example`, `…|https://…`, `…」https://…`): `scheme://…` for
 *   any scheme, a special scheme (`https:evil.example`) with or without slashes, and the schemes
 *   a mail client follows without them (`javascript:`, `data:`, `vbscript:`, `mailto:` …). Its
 *   scheme and host are what the WHATWG URL parser (the browser's) makes of it: the host after
 *   the last `@` of the authority, IDNA-mapped to ASCII (`ｅｖｉｌ。example` → evil.example,
 *   `例え.jp` → xn--r8jz45g.jp). A host runs on through letters of any script and format
 *   characters IDNA ignores (U+200B), so nothing a browser reads as host is cut off — except
 *   Japanese glued straight onto the last label (`https://example.comにアクセス`), which could
 *   only extend a top-level domain no registry offers;
 * - a mail address (`help@example.com`): its domain, parsed the same way; a `mailto:` link is one
 *   link per address it names (percent-decoded, query included);
 * - a bare domain, ASCII only: `www.` anything, anything followed by a path, or a name whose last
 *   label is a common top-level domain ({@link BARE_DOMAIN_TLDS}). File names (`outlook.exe`,
 *   `README.md`) are not links. A bare domain or address inside a URL's authority is that URL;
 *   inside its path it counts on its own when glued on with a character auto-linkers stop at.
 *
 * The search runs on the NFKC form of the text (`ｊａｖａｓｃｒｉｐｔ：` counts); offsets stay
 * those of the original text.
 *
 * A link survives ({@link isAllowedLink}) only when its scheme is `https:` or `mailto:` (a bare
 * domain or address has none) and its domain is one of the allow-list's or a subdomain of one
 * (`sub.example.com` when `example.com` is listed; `evil-example.com` and
 * `example.com.evil.example` are not). Lookalikes never match: a Cyrillic `е` makes another
 * (punycode) name. Everything that cannot be parsed is unverified.
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

import { Lexer, type Token } from 'marked';
import { detectLanguage } from './language.js';
import { normalizeWithOffsets } from './ticket-references.js';

/** One link as written: where it is in the original text, what it points to. */
export interface FoundLink {
  /** UTF-16 offset of the link in the text as given (a markdown link's `[`, an autolink's `<`). */
  readonly start: number;
  /** UTF-16 offset just after it. */
  readonly end: number;
  /** The target as written (a markdown link's target, a `mailto:` link with its scheme). */
  readonly link: string;
  /** The host or mail domain: ASCII, lower case, no trailing dot; absent when it cannot be parsed. */
  readonly domain?: string;
  /** The scheme, lower case with its colon (`https:`); absent for a bare domain or mail address. */
  readonly scheme?: string;
}

/** The schemes a link may have and survive: the web and a mail address. */
const SURVIVING_SCHEMES: ReadonlySet<string> = new Set(['https:', 'mailto:']);
/** Schemes whose URLs have a host with or without `//` (WHATWG "special" schemes). */
const SPECIAL_SCHEMES: ReadonlySet<string> = new Set(['http', 'https', 'ftp', 'ws', 'wss', 'file']);
/** Schemes a mail client or browser follows without `//`: links even in plain text. */
const OPAQUE_SCHEMES: ReadonlySet<string> = new Set([
  'javascript',
  'vbscript',
  'livescript',
  'data',
  'blob',
  'mailto',
  'tel',
  'sms',
  'callto',
]);

// The host of a URL or mail address: ASCII host characters, letters and marks of any script
// (IDN), and format characters IDNA ignores — so nothing a browser reads as host is cut off.
const HOST = String.raw`(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~%!$&*+=:@\p{L}\p{N}\p{M}\p{Cf}])`;
/** Path, query and fragment: printable ASCII but space, quotes, `<`, `>` and the backtick. */
const PATH = '[!#-&(-;=?-_a-~]';
/** A scheme name and its colon; the leftmost, longest one wherever one starts. */
const SCHEME_START = /([A-Za-z][A-Za-z0-9+.-]*):/gu;
/**
 * How much of a URL is read: its authority, and its path, query and fragment, each at most this
 * long. Every scheme in the text starts a link, so without a bound text of glued URLs
 * (`https://https://…`) would be read to its end once per URL. What lies beyond is searched as
 * text like the rest: a scheme, address or domain in it is a link of its own.
 */
const MAX_URL_PART = 2048;
// Sticky: read from where a scheme's colon ends, without copying the rest of the text.
const AUTHORITY_URL = new RegExp(
  String.raw`([/\\]*)(${HOST}{0,${MAX_URL_PART}})([/?#\\]${PATH}{0,${MAX_URL_PART}})?`,
  'uy',
);
const OPAQUE_BODY = new RegExp(`${PATH}{1,${MAX_URL_PART}}`, 'uy');
const EMAIL = new RegExp(String.raw`(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+@(${HOST}+)`, 'giu');
const BARE_DOMAIN = new RegExp(
  String.raw`(?<![A-Za-z0-9])((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+([A-Za-z]{2,63}))(?![A-Za-z0-9_\-@])(\/${PATH}*)?`,
  'gu',
);
/**
 * Characters that end a URL for common auto-linkers though the URL parser reads on: a bare domain
 * or address written straight after one, inside a URL's path, is a link of its own.
 */
const GLUE = /[|()[\]{}'",;!*\\^]/u;
/** Punctuation that ends a sentence, not a URL: trimmed from the end of a found link. */
const TRAILING_PUNCTUATION = /[.,;:!?'*]+$/u;

/**
 * Every link in `text`, in order of their start (the longer first), with offsets into `text`
 * itself. A markdown link and the links written in its text are listed each; a `mailto:` link
 * once per address.
 *
 * @example
 * findLinks('reset at https://example.com@evil.example now');
 * // [{ start: 9, end: 41, link: 'https://example.com@evil.example', domain: 'evil.example', scheme: 'https:' }]
 */
export function findLinks(text: string): FoundLink[] {
  const { normalized, offsets } = normalizeWithOffsets(text);
  const scan = normalized.replace(/(?<=[A-Za-z0-9])\u3002(?=[A-Za-z0-9])/gu, '.');
  /** Links with offsets into the scanned (NFKC) text, mapped back at the end. */
  const scanned: FoundLink[] = [];
  /** Spans inside which a bare domain or address is part of a link already found. */
  const claimed: Array<{ start: number; end: number; unlessGlued: boolean }> = [];
  const isClaimed = (start: number) =>
    claimed.some(
      (span) =>
        start >= span.start &&
        start < span.end &&
        !(span.unlessGlued && GLUE.test(scan[start - 1] ?? '')),
    );

  for (const match of scan.matchAll(SCHEME_START)) {
    const name = (match[1] ?? '').toLowerCase();
    const start = match.index;
    const bodyStart = start + match[0].length;
    const special = SPECIAL_SCHEMES.has(name);
    if (special || scan.startsWith('//', bodyStart)) {
      const url = authorityUrl(scan, bodyStart, special);
      if (url === undefined) continue;
      const written = `${match[0]}${url.text}`;
      const end = start + written.length;
      scanned.push({
        start,
        end,
        link: written,
        scheme: `${name}:`,
        ...domainField(hostOfUrl(written)),
      });
      claimed.push({ start, end: bodyStart + url.authorityEnd, unlessGlued: false });
      claimed.push({ start: bodyStart + url.authorityEnd, end, unlessGlued: true });
    } else if (OPAQUE_SCHEMES.has(name)) {
      OPAQUE_BODY.lastIndex = bodyStart;
      const body = trimLinkEnd(OPAQUE_BODY.exec(scan)?.[0] ?? '');
      if (body === '') continue;
      const written = `${match[0]}${body}`;
      const end = start + written.length;
      claimed.push({ start, end, unlessGlued: false });
      if (name !== 'mailto') {
        scanned.push({ start, end, link: written, scheme: `${name}:` });
        continue;
      }
      const domains = mailDomains(body);
      if (domains.length === 0) scanned.push({ start, end, link: written, scheme: 'mailto:' });
      for (const domain of domains) {
        scanned.push({ start, end, link: written, scheme: 'mailto:', ...domainField(domain) });
      }
    }
  }
  for (const match of scan.matchAll(EMAIL)) {
    const [whole, written = ''] = match;
    const trimmed = written.slice(0, hostExtent(written)).replace(TRAILING_PUNCTUATION, '');
    const end = match.index + whole.length - (written.length - trimmed.length);
    if (isClaimed(match.index)) continue;
    claimed.push({ start: match.index, end, unlessGlued: false });
    scanned.push({
      start: match.index,
      end,
      link: scan.slice(match.index, end),
      ...domainField(normalizeDomain(trimmed)),
    });
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
    const hostEnd = match.index + host.length;
    const end = hostEnd + trimLinkEnd(path ?? '').length;
    // Its path is searched again: a domain glued on there is a link of its own.
    BARE_DOMAIN.lastIndex = hostEnd;
    if (isClaimed(match.index)) continue;
    claimed.push({ start: match.index, end: hostEnd, unlessGlued: false });
    claimed.push({ start: hostEnd, end, unlessGlued: true });
    scanned.push({
      start: match.index,
      end,
      link: scan.slice(match.index, end),
      ...domainField(normalizeDomain(host)),
    });
  }

  const found = scanned.map((link) => ({
    ...link,
    start: offsets[link.start] ?? 0,
    end: offsets[link.end] ?? text.length,
    // As written in the original text (full-width forms stay full-width).
    link: text.slice(offsets[link.start] ?? 0, offsets[link.end] ?? text.length),
  }));
  const constructs = markdownLinks(text);
  // The target of an autolink or a link written as its own text is that construct's target.
  const links: FoundLink[] = [
    ...constructs,
    ...found.filter(
      (link) =>
        !constructs.some(
          (construct) =>
            construct.start <= link.start &&
            link.end <= construct.end &&
            construct.scheme === link.scheme &&
            construct.domain === link.domain,
        ),
    ),
  ];
  return links.sort((left, right) => left.start - right.start || right.end - left.end);
}

/**
 * A URL with an authority after its `scheme:`: slashes (a special scheme reads any number of
 * `/` or `\`, or none), the host, then a path that starts with `/`, `?`, `#` or `\`. Sentence
 * punctuation and an unopened `)` at its end are not part of it. Undefined when it names no host
 * and no path (`http:// nothing`).
 */
function authorityUrl(
  scan: string,
  from: number,
  special: boolean,
): { text: string; authorityEnd: number } | undefined {
  AUTHORITY_URL.lastIndex = from;
  const match = AUTHORITY_URL.exec(scan);
  if (!match) return undefined;
  const [, slashes = '', written = '', writtenPath = ''] = match;
  if (!special && slashes.length < 2) return undefined;
  const kept = hostExtent(written);
  const authority = written.slice(0, kept);
  const path = kept < written.length ? '' : writtenPath;
  const trimmedAuthority = path === '' ? authority.replace(TRAILING_PUNCTUATION, '') : authority;
  const trimmedPath = trimLinkEnd(path);
  if (trimmedAuthority === '' && trimmedPath === '') return undefined;
  return {
    text: `${slashes}${trimmedAuthority}${trimmedPath}`,
    authorityEnd: slashes.length + trimmedAuthority.length,
  };
}

/** The domains of every address a `mailto:` link's body names, percent-decoded, query included. */
function mailDomains(body: string): string[] {
  let decoded = body;
  try {
    decoded = decodeURIComponent(body);
  } catch {
    // Not valid percent-encoding: read as written.
  }
  return [...decoded.matchAll(EMAIL)].flatMap((match) => {
    const written = match[1] ?? '';
    const domain = normalizeDomain(
      written.slice(0, hostExtent(written)).replace(TRAILING_PUNCTUATION, ''),
    );
    return domain === undefined ? [] : [domain];
  });
}

function domainField(domain: string | undefined): { domain?: string } {
  return domain === undefined ? {} : { domain };
}

/**
 * The explicit markdown links of `text` as `marked`'s lexer reads them: inline links and images,
 * autolinks `<…>`, reference links (with their definition's target) and the definitions. Each is
 * its target, and spans the construct. GFM's bare-URL autolinks are left to the text search,
 * which finds them where the lexer does not (in code, glued onto another URL).
 */
function markdownLinks(text: string): FoundLink[] {
  // The lexer reads `\r\n` and `\r` as `\n`; replaced in place, offsets stay those of `text`.
  const source = text.replace(/\r\n/gu, ' \n').replace(/\r/gu, '\n');
  const links: FoundLink[] = [];
  let cursor = 0;
  const visit = (tokens: readonly Token[]) => {
    for (const token of tokens) {
      const at = locate(source, token.raw, cursor);
      const construct =
        (token.type === 'link' || token.type === 'image') && /^[[!<]/u.test(token.raw)
          ? token.href
          : token.type === 'def'
            ? token.href
            : undefined;
      if (typeof construct === 'string') {
        const target = construct.replace(/^<|>$/gu, '');
        const { scheme, domain } = parseLinkTarget(target);
        // A `mailto:` target is one link per address it names.
        const domains = scheme === 'mailto:' ? (hrefDomains(target) ?? [undefined]) : [domain];
        for (const each of domains) {
          links.push({
            start: at?.start ?? 0,
            // Not found as written (never seen in practice): the whole text is the link.
            end: at?.end ?? text.length,
            link: target,
            ...(scheme !== undefined ? { scheme } : {}),
            ...domainField(each),
          });
        }
      }
      const children = childTokens(token);
      if (at !== undefined) cursor = children.length > 0 ? at.start : at.end;
      visit(children);
      if (at !== undefined) cursor = Math.max(cursor, at.end);
    }
  };
  visit(Lexer.lex(source, { gfm: true }));
  return links;
}

/** A token's nested tokens: inline tokens, list items, table cells. */
function childTokens(token: Token): readonly Token[] {
  const nested: Token[] = [];
  if ('tokens' in token && Array.isArray(token.tokens)) nested.push(...token.tokens);
  if (token.type === 'list') for (const item of token.items) nested.push(item);
  if (token.type === 'table') {
    for (const cell of token.header) nested.push(...cell.tokens);
    for (const row of token.rows) for (const cell of row) nested.push(...cell.tokens);
  }
  return nested;
}

/**
 * Where `raw` is in `source` at or after `from`. A token inside a block quote or list item lost
 * its `> ` or indentation on each continued line; those may come back between its lines.
 */
function locate(
  source: string,
  raw: string,
  from: number,
): { start: number; end: number } | undefined {
  if (raw === '') return undefined;
  const exact = source.indexOf(raw, from);
  if (exact >= 0) return { start: exact, end: exact + raw.length };
  if (!raw.includes('\n')) return undefined;
  const pattern = new RegExp(
    raw
      .split('\n')
      .map((line) => line.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&'))
      .join('\\n[ \\t>]*'),
    'gu',
  );
  pattern.lastIndex = from;
  const match = pattern.exec(source);
  return match ? { start: match.index, end: match.index + match[0].length } : undefined;
}

/**
 * The scheme and domain of a link target as an anchor's `href` or a markdown link holds it:
 * what the WHATWG URL parser makes of it; a `mailto:` target's domain is its first address's
 * (use {@link hrefDomains} for all of them). Neither for a relative target.
 *
 * @example
 * parseLinkTarget('HTTPS://Evil.Example/x'); // { scheme: 'https:', domain: 'evil.example' }
 */
export function parseLinkTarget(target: string): { scheme?: string; domain?: string } {
  let url: URL;
  try {
    url = new URL(target.trim());
  } catch {
    return {};
  }
  const scheme = url.protocol.toLowerCase();
  if (scheme === 'mailto:') return { scheme, ...domainField(mailDomains(url.href.slice(7))[0]) };
  const hostname = url.hostname.replace(/\.$/u, '');
  return { scheme, ...domainField(hostname === '' ? undefined : hostname) };
}

/**
 * The domains of a link target as an anchor's `href` holds it (`https://…`, `mailto:…`, every
 * address of a `mailto:`), or `undefined` when it names none or one cannot be parsed.
 *
 * @example
 * hrefDomains('mailto:help@example.com'); // ['example.com']
 */
export function hrefDomains(href: string): string[] | undefined {
  if (/^mailto:/iu.test(href.trim())) {
    const domains = mailDomains(href.trim().slice(7));
    return domains.length === 0 ? undefined : domains;
  }
  const { domain } = parseLinkTarget(href);
  return domain === undefined ? undefined : [domain];
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

/**
 * Whether a link may survive: an `https:` or `mailto:` link, a bare domain or a mail address,
 * whose domain {@link isAllowedDomain}. `http:`, `javascript:`, `data:` and every other scheme
 * never do, whatever their host.
 *
 * @example
 * isAllowedLink({ scheme: 'https:', domain: 'support.microsoft.com' }, ['microsoft.com']); // true
 * isAllowedLink({ scheme: 'http:', domain: 'support.microsoft.com' }, ['microsoft.com']); // false
 */
export function isAllowedLink(
  link: Pick<FoundLink, 'scheme' | 'domain'>,
  allowed: readonly string[],
): boolean {
  return hasSurvivingScheme(link) && isAllowedDomain(link.domain, allowed);
}

/** Whether a link's scheme is one that may survive (or it has none: a bare domain or address). */
export function hasSurvivingScheme(link: Pick<FoundLink, 'scheme'>): boolean {
  return link.scheme === undefined || SURVIVING_SCHEMES.has(link.scheme);
}

/** What replaces a removed link, in the language the text is written in. */
export const REMOVED_LINK_PLACEHOLDERS = { ja: '［リンク削除］', en: '[link removed]' } as const;

/**
 * `text` with every link that may not survive ({@link isAllowedLink}) replaced by a placeholder
 * ({@link REMOVED_LINK_PLACEHOLDERS}: Japanese when the text has Japanese in it), and those
 * links as written, each once, in order. Overlapping links (a markdown link and a link in its
 * text) are removed as one stretch.
 *
 * @example
 * removeUnverifiedLinks('see https://evil.example', ['example.com']);
 * // { text: 'see [link removed]', removed: ['https://evil.example'] }
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
    const unverified = findLinks(current).filter((link) => !isAllowedLink(link, allowed));
    if (unverified.length === 0) return { text: current, removed: [...removed] };
    for (const link of unverified) removed.add(link.link);
    current = replaceLinks(current, unverified, removedLinkPlaceholder(text));
  }
  // Never reached in practice; if it were, nothing unverified may stay.
  return { text: removedLinkPlaceholder(text), removed: [...removed] };
}

/**
 * The placeholder for a link removed from `text`: Japanese when the text has Japanese in it.
 *
 * @example
 * removedLinkPlaceholder('詳細は次を参照'); // '［リンク削除］'
 */
export function removedLinkPlaceholder(text: string): string {
  return REMOVED_LINK_PLACEHOLDERS[detectLanguage(text)];
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

/** The links of `text` that may not survive, as written, each once, in order. */
export function findUnverifiedLinks(text: string, allowed: readonly string[]): string[] {
  const links = findLinks(text).filter((link) => !isAllowedLink(link, allowed));
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

/**
 * The end of a link as written, without sentence punctuation after it or a `)` that closes
 * nothing opened in it: `(see https://example.com/a).` ends at `a`.
 */
function trimLinkEnd(written: string): string {
  const trimmed = written.replace(TRAILING_PUNCTUATION, '');
  let depth = 0;
  for (let index = 0; index < trimmed.length; index++) {
    if (trimmed[index] === '(') depth++;
    else if (trimmed[index] === ')' && --depth < 0) return trimmed.slice(0, index);
  }
  return trimmed;
}
