import { namesInContext } from './person-names-in-context.js';
import {
  findAwsSecretKeys,
  findCardNumbers,
  findMyNumbers,
  findSecretPhrases,
} from './personal-identifiers.js';

/**
 * What counts as personal data: the detectors of the personal-data scrub. Each finds spans of
 * one kind in a text — credentials, e-mail addresses, My Numbers and card numbers
 * (personal-identifiers.ts), phone numbers, configured patterns, the names and user ids of the
 * record's people and of the dictionary — and {@link findPersonalData}
 * merges them into the spans the scrub (personal-data-scrub.ts) replaces by placeholders. Also
 * {@link peopleNamedIn}: the people a text addresses by name, who count as person fields. Pure:
 * no AWS, no file system. Design and limits: docs/adr/0019-personal-data-scrub.md.
 *
 * How it works: the text is first *folded* one character for one character (full-width ASCII →
 * ASCII, the ideographic space → a space), so every detector matches `０３－１２３４` and `taro＠例`
 * like their half-width forms while span offsets stay those of the original text. Every detector
 * reports spans; overlapping spans are merged (the union is taken, under the kind of the
 * highest-priority detector), so a partial overlap never leaves half a secret behind.
 *
 * Cost: one scan of the text per pattern, and most patterns never run — each first checks that
 * the text holds a literal every match of it contains (a name part, `@`, `authorization`…), and
 * a person's name regexes are compiled only for a text that names them (bench/README.md).
 */

/** What a placeholder stands for; the built-in kinds, or a configured pattern's kind. */
export type PersonalDataKind =
  | 'name'
  | 'email'
  | 'phone'
  | 'secret'
  | 'myNumber'
  | 'card'
  | (string & {});

/** One person field of a record (caller, requester, assignee, commenter, the conversation's owner…). */
export interface Person {
  /** Display names as the source writes them: `山田 太郎`, `Taro Yamada`, `Yamada, Taro`. */
  readonly names: readonly string[];
  /** Login names / user ids: `tyamada`, `yamada.taro`, `u012345`. */
  readonly userIds?: readonly string[];
  /** The person's addresses; their local parts count as user ids too. */
  readonly emails?: readonly string[];
}

/** A configured pattern (employee ids, IP/MAC addresses…), matched on the folded text. */
export interface ScrubPattern {
  /** The count's key and, by default, the placeholder's word: `employeeId` → `[employeeId]`. */
  readonly kind: string;
  /** A JavaScript RegExp source; matched globally, case-sensitively unless `flags` has `i`. */
  readonly pattern: string;
  /** RegExp flags among `i`, `m`, `s`, `u` (`g` is always added). */
  readonly flags?: string;
  /** Placeholder per language; default `[<kind>]` for both. */
  readonly placeholder?: { readonly ja: string; readonly en: string };
}

/**
 * Ready-made optional patterns for the settings file (not applied unless configured: an internal
 * IP address is often what a resolution is about). Copy them into `patterns`.
 */
export const OPTIONAL_SCRUB_PATTERNS = {
  ipv4Address: {
    kind: 'ipAddress',
    pattern:
      '(?<![\\w.])(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(?![\\d.]*\\d)',
    placeholder: { ja: '[IPアドレス]', en: '[IP address]' },
  },
  macAddress: {
    kind: 'macAddress',
    pattern: '(?<![0-9A-Fa-f:-])(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}(?![0-9A-Fa-f:-])',
    placeholder: { ja: '[MACアドレス]', en: '[MAC address]' },
  },
} as const satisfies Record<string, ScrubPattern>;

/** A span of personal data in the text, in UTF-16 offsets; spans are sorted and never overlap. */
export interface PersonalDataSpan {
  readonly start: number;
  readonly end: number;
  readonly kind: PersonalDataKind;
}

/** What the detectors look for besides the built-in kinds. */
export interface DetectionOptions {
  /** The record's person fields (and whoever the text addresses by name, {@link peopleNamedIn}). */
  readonly people?: readonly Person[];
  /** Names that are in no person field, detected as `name`. */
  readonly dictionary?: readonly string[];
  /** Configured patterns, detected under their own kind. */
  readonly patterns?: readonly ScrubPattern[];
  /** Leave role mailboxes ({@link ROLE_MAILBOXES}) undetected. @default true */
  readonly keepRoleMailboxes?: boolean;
}

/**
 * The personal data in `text`: every detector's spans, overlaps merged under the kind of the
 * highest-priority detector (secret, e-mail, My Number, card, configured pattern, phone, name);
 * a password phrase that matched an address's tail leaves it an e-mail address.
 *
 * @example
 * findPersonalData('山田さん（taro@example.co.jp）', { people: [{ names: ['山田 太郎'] }] });
 * // [{ start: 0, end: 2, kind: 'name' }, { start: 5, end: 23, kind: 'email' }]
 */
export function findPersonalData(text: string, options: DetectionOptions = {}): PersonalDataSpan[] {
  const folded = foldWidth(text);
  // Lower-cased once for the detectors' cheap checks: does the text hold a literal a match needs?
  const lowered = folded.toLowerCase();
  // Priority order: a merged span takes the kind of its earliest detector in this list.
  const spans: Span[] = [];
  findSecrets(folded, lowered, spans);
  findEmails(folded, lowered, spans, options.keepRoleMailboxes ?? true);
  for (const span of findMyNumbers(folded))
    spans.push({ ...span, kind: 'myNumber', priority: PRIORITY.myNumber });
  for (const span of findCardNumbers(folded))
    spans.push({ ...span, kind: 'card', priority: PRIORITY.card });
  for (const pattern of (options.patterns ?? []).map(compilePattern)) {
    findCustom(folded, pattern, spans);
  }
  findPhones(folded, spans);
  findNames(folded, lowered, options.people ?? [], options.dictionary ?? [], spans);
  return mergeSpans(spans).map(({ start, end, kind }) => ({ start, end, kind }));
}

// ---------------------------------------------------------------------------------------------
// Folding and spans

interface Span {
  readonly start: number;
  readonly end: number;
  readonly kind: string;
  /** Lower wins when spans merge. */
  readonly priority: number;
}

/**
 * One UTF-16 unit for one: full-width ASCII (U+FF01–U+FF5E) → ASCII, U+3000 and NBSP → space.
 * Same length, so an offset in the folded text is the offset in the original. The scrub folds
 * its `keep` entries and the spans' texts the same way to compare them.
 */
export function foldWidth(text: string): string {
  return text.replace(/[\uff01-\uff5e\u3000\u00a0]/g, (character) => {
    const code = character.charCodeAt(0);
    return code === 0x3000 || code === 0xa0 ? ' ' : String.fromCharCode(code - 0xfee0);
  });
}

/**
 * A password phrase that matched the tail of an e-mail address (`pw` then `.sato@example.com` in
 * `pw.sato@example.com`): the address is what the text holds. Either way the union is removed;
 * only the placeholder differs. A password inside an address that does not reach its end
 * (`mysql://root:hunter22@db`) stays a secret.
 */
function isAddressTail(secret: Span, address: Span): boolean {
  return (
    secret.kind === 'secret' &&
    address.kind === 'email' &&
    secret.start > address.start &&
    secret.end === address.end
  );
}

function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = [...spans]
    .filter((span) => span.end > span.start)
    .sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Span[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && span.start < last.end) {
      const winner = span.priority < last.priority && !isAddressTail(span, last) ? span : last;
      merged[merged.length - 1] = {
        start: last.start,
        end: Math.max(last.end, span.end),
        kind: winner.kind,
        priority: winner.priority,
      };
    } else {
      merged.push(span);
    }
  }
  return merged;
}

/** Adds a span for each match: the named group `value` when it took part, else the whole match. */
function collect(
  folded: string,
  pattern: RegExp,
  kind: string,
  priority: number,
  spans: Span[],
  accept: (match: RegExpExecArray) => boolean = () => true,
): void {
  pattern.lastIndex = 0;
  for (let match = pattern.exec(folded); match !== null; match = pattern.exec(folded)) {
    if (match[0].length === 0) {
      pattern.lastIndex += 1;
      continue;
    }
    if (!accept(match)) continue;
    const valueIndices = match.indices?.groups?.value;
    const [start, end] = valueIndices ?? [match.index, match.index + match[0].length];
    spans.push({ start, end, kind, priority });
  }
}

const PRIORITY = {
  secret: 0,
  email: 1,
  myNumber: 2,
  card: 3,
  custom: 4,
  phone: 5,
  name: 6,
} as const;

// ---------------------------------------------------------------------------------------------
// Credentials. The label stays (`パスワード: [秘密]` tells the reader what was there); the value goes.

/** `-----BEGIN RSA PRIVATE KEY----- … -----END …-----`; an unterminated block runs to the end. */
const PRIVATE_KEY_BLOCK =
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$(?![\s\S]))/g;

/** `Authorization: Bearer …`, `Proxy-Authorization: Basic …`: the credentials (the scheme stays) to the end of the line. */
const AUTHORIZATION_HEADER =
  /\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|digest|token|negotiate|aws4-hmac-sha256)[ \t]+)?(?<value>[^\s"',][^\r\n"']*)/dgi;

/** A bare bearer token anywhere (`curl -H "… Bearer eyJ…"` split over lines). */
const BEARER_TOKEN = /\bbearer[ \t]+(?<value>[A-Za-z0-9\-._~+/]{8,}=*)/dgi;

/**
 * Password and secret labels, in Japanese and English; `pw`/`pwd`/`pass`/`pin` only as whole words.
 * A Japanese label must be followed directly by its separator, so `パスワードポリシー: 12文字` stays.
 */
const SECRET_LABEL =
  '(?:パスワード|ぱすわーど|暗証番号|パスコード|pass(?:word|wd|code|phrase)?|pwd?|pin|secret(?:[_ -]?(?:access[_ -]?)?key)?|client[_ -]?secret|api[_ -]?key|apikey|access[_ -]?token|auth[_ -]?token|refresh[_ -]?token|private[_ -]?key|token)';

/** A cheap first check before the lookbehind, which is costly at every position. */
const SECRET_LABEL_START = '(?=[パぱ暗pscatr])'; // the first characters of SECRET_LABEL's words

/**
 * `パスワード：Abc123`, `PW: x`, `password: y`: everything after the colon to the end of the line
 * (a password may hold spaces, `&`, `;`; over-removing a line's tail beats leaking half a secret).
 * Markdown emphasis around the label (`**PW**:`) and a quote around a key name are allowed.
 */
const SECRET_COLON_LINE = new RegExp(
  `${SECRET_LABEL_START}(?<![A-Za-z0-9_])${SECRET_LABEL}(?![A-Za-z0-9])[*_"']{0,2}[ \\t]*:[ \\t]*(?<value>[^\\s][^\\r\\n]*)`,
  'dgi',
);

/**
 * `pwd=abc`, `password="x y"`, `api_key=…&user=…`: assignments in URLs, connection strings and
 * config; the quoted value, else up to `&`, `;`, `,` or white space.
 */
const SECRET_ASSIGNMENT = new RegExp(
  `${SECRET_LABEL_START}(?<![A-Za-z0-9_])${SECRET_LABEL}(?![A-Za-z0-9])["']?[ \\t]*=[ \\t]*(?:"(?<value>[^"\\r\\n]+)"|'(?<single>[^'\\r\\n]+)'|(?<bare>[^\\s&;,"']+))`,
  'dgi',
);

/**
 * `パスワードは「Abc123」です` / `パスワードは Abc123 です`: a quoted value of printable ASCII, or the
 * next ASCII token unless it starts a URL (`パスワードは https://… で再設定`). Japanese inside the
 * quotes (`パスワードは「O（オー）と0（ゼロ）」…`) is prose.
 */
const SECRET_JAPANESE_PHRASE =
  /(?:パスワード|暗証番号|パスコード)(?:は|を|が)[ \t]*(?:[「『"'](?<value>[!#-&(-~]+)(?=[」』"'])|(?![A-Za-z][A-Za-z0-9+.-]*:\/\/)(?<bare>[A-Za-z0-9!#$%&*+\-./=?@^_~]{4,}))/dg;

/** Vendor key formats that are secrets wherever they stand. */
const VENDOR_KEYS = new RegExp(
  [
    '\\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{16,}', // OpenAI, Anthropic, Stripe
    '\\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}', // GitHub tokens
    '\\bgithub_pat_[A-Za-z0-9_]{20,}',
    '\\bxox[abposr]-[A-Za-z0-9-]{10,}', // Slack
    '\\bglpat-[A-Za-z0-9_-]{20,}', // GitLab
    '\\bAIza[0-9A-Za-z_-]{35}', // Google API key
    '\\b(?:AKIA|ASIA)[A-Z0-9]{16}\\b', // AWS access key ids
    '\\beyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}', // JWT
  ].join('|'),
  'g',
);

/** An AWS secret access key (40 characters of base64) after its label. */
const AWS_SECRET_KEY =
  /(?:aws_?secret_?access_?key|secret_?access_?key|secretaccesskey|aws[ _]secret(?:[ _]access)?[ _]key)["']?\s*[:=]\s*["']?(?<value>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/dgi;

/** `scheme://user:password@host`: the password part. */
const URL_PASSWORD = /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s/:@]+:(?<value>[^\s/@]+)@/dg;

/** Literals a vendor key starts with (VENDOR_KEYS is case-sensitive): without one, no key. */
const VENDOR_KEY_PREFIXES = [
  'sk-',
  'ghp_',
  'gho_',
  'ghu_',
  'ghs_',
  'ghr_',
  'github_pat_',
  'xox',
  'glpat-',
  'AIza',
  'AKIA',
  'ASIA',
  'eyJ',
];

/**
 * Each credential pattern runs only when the text holds a literal every match of it contains
 * (`lowered` is the folded text lower-cased, for the case-insensitive ones; a label line's `:`,
 * an assignment's `=`): most tickets hold no credential, and a pattern that cannot match still
 * costs a scan of the whole text.
 */
function findSecrets(folded: string, lowered: string, spans: Span[]): void {
  if (folded.includes('-----BEGIN '))
    collect(folded, PRIVATE_KEY_BLOCK, 'secret', PRIORITY.secret, spans);
  if (lowered.includes('authorization'))
    collect(folded, AUTHORIZATION_HEADER, 'secret', PRIORITY.secret, spans);
  if (lowered.includes('bearer')) collect(folded, BEARER_TOKEN, 'secret', PRIORITY.secret, spans);
  if (folded.includes(':')) collect(folded, SECRET_COLON_LINE, 'secret', PRIORITY.secret, spans);
  if (VENDOR_KEY_PREFIXES.some((prefix) => folded.includes(prefix)))
    collect(folded, VENDOR_KEYS, 'secret', PRIORITY.secret, spans);
  if (lowered.includes('secret')) collect(folded, AWS_SECRET_KEY, 'secret', PRIORITY.secret, spans);
  if (folded.includes('://')) collect(folded, URL_PASSWORD, 'secret', PRIORITY.secret, spans);
  // Labels without a colon (`暗証番号 4000`, `PWは Abc12345! です`) and a key pair without labels.
  for (const span of [...findSecretPhrases(folded), ...findAwsSecretKeys(folded)])
    spans.push({ ...span, kind: 'secret', priority: PRIORITY.secret });
  const valuePatterns: RegExp[] = [];
  if (folded.includes('=')) valuePatterns.push(SECRET_ASSIGNMENT);
  if (/パスワード|暗証番号|パスコード/.test(folded)) valuePatterns.push(SECRET_JAPANESE_PHRASE);
  for (const pattern of valuePatterns) {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(folded); match !== null; match = pattern.exec(folded)) {
      const groups = match.indices?.groups;
      const indices = groups?.value ?? groups?.single ?? groups?.bare;
      if (indices !== undefined) {
        spans.push({
          start: indices[0],
          end: indices[1],
          kind: 'secret',
          priority: PRIORITY.secret,
        });
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// E-mail addresses (after folding, `taro＠example．co．jp` reads as ASCII; `[at]`/`(at)` too).

// Each pattern below that opens with a lookbehind first looks ahead at the character it then
// consumes: a cheap check that fails at most positions before the costlier lookbehind runs
// (as SECRET_LABEL_START does). The matches are the same.
const EMAIL =
  /(?=[A-Za-z0-9._%+-])(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+(?:[ \t]?@[ \t]?|[ \t]?[[(（]at[\])）][ \t]?)[A-Za-z0-9-]+(?:(?:\.|[[(（]dot[\])）])[A-Za-z0-9-]+)+/gi;

/**
 * Local parts of role mailboxes (RFC 2142's, and a service desk's own), kept unless
 * `keepRoleMailboxes` is false. Exact matches only: `sales-support@` is scrubbed.
 */
export const ROLE_MAILBOXES: readonly string[] = [
  'helpdesk',
  'help-desk',
  'servicedesk',
  'service-desk',
  'itsupport',
  'it-support',
  'support',
  'info',
  'noreply',
  'no-reply',
  'postmaster',
  'hostmaster',
  'webmaster',
  'abuse',
  'security',
  'noc',
  'admin',
];

/** `[at]`, `(at)`, `（at）`: with `@`, what every address EMAIL matches contains. */
const AT_WORD = /[[(（]at[\])）]/;

function findEmails(
  folded: string,
  lowered: string,
  spans: Span[],
  keepRoleMailboxes: boolean,
): void {
  if (!folded.includes('@') && !AT_WORD.test(lowered)) return;
  collect(folded, EMAIL, 'email', PRIORITY.email, spans, (match) => {
    if (!keepRoleMailboxes) return true;
    const localPart = match[0].split(/[ \t]?(?:@|[[(（]at[\])）])/i)[0]?.toLowerCase() ?? '';
    return !ROLE_MAILBOXES.includes(localPart);
  });
}

// ---------------------------------------------------------------------------------------------
// Phone numbers. Matched on folded text, so full-width digits are ASCII here. A separator is one
// of hyphen-likes (incl. `ー`, U+2010–U+2015, U+2212), a dot, or spaces, with optional spaces
// around; parentheses around an area code.

const SEP = '(?:[ \\t]*[-\u2010-\u2015\u2212\u30fc\uff70.][ \\t]*|[ \\t]{1,3})?';
/**
 * Not inside a longer number (`12-03-1234-5678`, `v1.0312345678`) nor glued to a word
 * (`INC0312345678`), except the labels `TEL`/`FAX`/`Phone` that people glue to the number.
 */
const NO_DIGIT_BEFORE = '(?:(?<=tel|fax|phone|mobile|携帯|電話)|(?<![0-9A-Za-z_+]|[0-9][.\\-]))';
const NO_DIGIT_AFTER = '(?![0-9]|[.\\-][0-9])';

/**
 * Japanese national numbers: `0` + area code, local and subscriber groups, the area code
 * optionally in parentheses (`(03) 1234-5678`, `03(1234)5678`). Validated by digit count and
 * prefix afterwards, so `2024-01-09`, `10:30`, `INC0012345` or a version never qualify.
 */
const JAPANESE_PHONE = new RegExp(
  `(?=[(0])${NO_DIGIT_BEFORE}(?:\\(0\\d{1,4}\\)[ \\t]*|0\\d{1,4}(?:[ \\t]*\\([ \\t]*|${SEP}))\\d{1,4}(?:[ \\t]*\\)[ \\t]*|${SEP})\\d{3,4}${NO_DIGIT_AFTER}`,
  'gi',
);

/**
 * `+81 3-1234-5678`, `+81 (0)90 1234 5678`, `+1 (206) 555-0100`, `+44 20 7946 0958`: a `+` and a
 * country code, then digit groups; 8–15 digits in all (E.164), the `(0)` trunk prefix ignored.
 */
const INTERNATIONAL_PHONE = new RegExp(
  `(?=\\+)(?<![A-Za-z0-9_+])\\+[ \\t]?\\d{1,3}(?:${SEP}\\(0\\))?(?:${SEP}\\(?\\d{1,4}\\)?){1,5}${NO_DIGIT_AFTER}`,
  'gi',
);

/** North American numbers without `+1`, separators required: `(206) 555-0100`, `206.555.0100`. */
const NORTH_AMERICAN_PHONE = new RegExp(
  `(?=[(1-9])${NO_DIGIT_BEFORE}(?:1[-. ])?(?:\\([2-9]\\d{2}\\)[ \\t]?|[2-9]\\d{2}[-. ])[2-9]\\d{2}[-. ]\\d{4}${NO_DIGIT_AFTER}`,
  'gi',
);

/** Japanese 11-digit prefixes (mobile, IP phone, M2M, 0800 toll free); other 0… numbers have 10. */
const ELEVEN_DIGIT_PREFIXES = ['020', '050', '060', '070', '080', '090', '0800'];

/**
 * Japan's numbering plan: 10 digits for landlines (`03-1234-5678`, `011-123-4567`) and the
 * 4-digit non-geographic codes 0120 / 0570 / 0990; 11 digits for the `0X0` services (mobile
 * 070/080/090, IP phone 050, M2M 020, 060) and 0800 toll free. `00…` is an international prefix.
 */
function isJapaneseNationalNumber(digits: string): boolean {
  if (!digits.startsWith('0') || digits.startsWith('00')) return false;
  if (digits.length === 10) return !/^0\d0/.test(digits) || /^0(?:120|570|990)/.test(digits);
  if (digits.length === 11)
    return ELEVEN_DIGIT_PREFIXES.some((prefix) => digits.startsWith(prefix));
  return false;
}

function findPhones(folded: string, spans: Span[]): void {
  collect(folded, JAPANESE_PHONE, 'phone', PRIORITY.phone, spans, (match) =>
    isJapaneseNationalNumber(match[0].replace(/\D/g, '')),
  );
  // Every international number starts with `+`; most texts hold none.
  if (folded.includes('+')) {
    collect(folded, INTERNATIONAL_PHONE, 'phone', PRIORITY.phone, spans, (match) => {
      const digits = match[0].replace(/\(0\)/, '').replace(/\D/g, '');
      return digits.length >= 8 && digits.length <= 15;
    });
  }
  collect(folded, NORTH_AMERICAN_PHONE, 'phone', PRIORITY.phone, spans);
}

// ---------------------------------------------------------------------------------------------
// Configured patterns

interface CompiledPattern {
  readonly kind: string;
  readonly regex: RegExp;
  readonly placeholder?: { readonly ja: string; readonly en: string };
}

function compilePattern(pattern: ScrubPattern): CompiledPattern {
  const flags = `${(pattern.flags ?? '').replace(/[gdy]/g, '')}gd`;
  return {
    kind: pattern.kind,
    regex: new RegExp(pattern.pattern, flags),
    placeholder: pattern.placeholder,
  };
}

function findCustom(folded: string, pattern: CompiledPattern, spans: Span[]): void {
  collect(folded, pattern.regex, pattern.kind, PRIORITY.custom, spans);
}

// ---------------------------------------------------------------------------------------------
// Names and user ids

/** Honorifics and titles that may follow a Japanese name (kept in the text, outside the span). */
const HONORIFIC_AFTER =
  '(?=[ \\t]?(?:さん|様|さま|サマ|氏|君|くん|ちゃん|殿|先生|部長|課長|係長|主任|室長|社長|専務|常務|所長|支店長|担当|です|と申します|でございます))';
/**
 * A name part glued to one of these is a place used as an office or station name (`中野支店`,
 * `大塚駅`), not the person: it stays.
 */
const NOT_A_PLACE_AFTER =
  '(?!支店|支社|営業所|工場|本社|本店|オフィス|事業所|出張所|センター|駅|区役所|市役所|区|市|町|村|県|線|通り|ビル)';
/** Titles before a Latin name, and the Japanese honorifics written after one (`Li-san`). */
const LATIN_TITLE_BEFORE = '(?<=(?:\\b(?:mr|mrs|ms|miss|dr|prof)\\.?[ \\t]+))';
const LATIN_HONORIFIC_AFTER = '(?=(?:-san|-sama|[ \\t]?(?:さん|様|氏)))';

const CJK_OR_KANA = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f々〆ヵヶ]/;
const LATIN_WORD = /^[A-Za-z][A-Za-z'’-]*$/;
const WORD_SEPARATOR = /[\s,、・･]+/;
/** Characters that bound a token on either side (spaces, punctuation, brackets, line ends). */
const BOUNDARY_CHARACTERS = '\\s,.、。・:;!?()\\[\\]{}「」『』（）【】<>"\'/';

/** A regex group of a person's (or the dictionary's) name sources; each group is one alternation. */
type GroupName = 'anywhere' | 'wholeToken' | 'withHonorific' | 'cjkSingles';
/**
 * One regex source a name or user id adds to a group, with a literal every match of the source
 * contains (its needle): a source whose needle is absent from the text cannot match there.
 */
type Contribution = readonly [group: GroupName, source: string, needle: string];
/** Contributions per name or user id text (bounded: cleared when it reaches the limit). */
const contributionsByText = new Map<string, readonly Contribution[]>();
const CONTRIBUTIONS_LIMIT = 16384;

/**
 * What one name (`kind` 'name': a display name or dictionary entry) or user id (`kind` 'id': a
 * login name or an e-mail local part) adds to its person's regex groups, recorded once per text.
 * The rules, per name part:
 *
 * - The full name (all its parts, either order, any spacing incl. none, `.`/`,`/`・` between) is
 *   removed anywhere: `山田 太郎`, `山田太郎`, `山田　太郎`, `Taro Yamada`, `Yamada, Taro`, `YAMADA Taro`.
 * - A Japanese part of two or more characters is removed anywhere: Japanese has no word
 *   boundaries, and `山田が対応` must not leak (over-removing `山田町` is the price).
 * - A ONE-character Japanese part (`林`, `森`, `中`) is removed only before an honorific
 *   (`林さん`, `林部長`) or as a whole token between spaces/punctuation (`担当: 林 `): alone it is an
 *   ordinary character inside countless words (`森林`, `中止`), and removing those would wreck text.
 * - An unspaced Japanese name of 3+ characters (`山田太郎`: we can't tell where the surname ends)
 *   also yields its first two and three characters as surname guesses, removed only before an
 *   honorific (`山田さん`).
 * - A Latin part of 3+ letters is removed as a whole word, case-insensitively (`Yamada`, `yamada`).
 *   A part of 1–2 letters (`Li`, `Ng`, `Wu`) only inside the full name, after a title
 *   (`Mr. Li`) or before `-san`/`さん` — as a bare word it is too often something else (`li`, `ng`).
 * - Initials: `T. Yamada`, `T Yamada`, `T.Yamada`, `Yamada T.`.
 * - User id variants from the Latin parts: `taro.yamada`, `yamada.taro`, `taro_yamada`,
 *   `tyamada`, `yamadat`, `taroyamada`, `yamadataro`; and every given user id and e-mail
 *   local part (split at `.`/`_`/`-` into more parts), each as a whole token, case-insensitively.
 */
function recordContributions(kind: 'name' | 'id', text: string): readonly Contribution[] {
  const recorded: Contribution[] = [];
  const add = (group: GroupName, source: string, needle: string) => {
    recorded.push([group, source, needle]);
  };

  const addName = (raw: string) => {
    const name = foldWidth(raw).trim();
    if (name === '') return;
    const parts = name.split(WORD_SEPARATOR).filter((part) => part !== '');
    const latinParts = parts.filter((part) => LATIN_WORD.test(part));
    const cjkParts = parts.filter((part) => CJK_OR_KANA.test(part));

    if (parts.length > 1) {
      const forward = parts.map(escapeRegex).join(FULL_NAME_GAP);
      const backward = [...parts].reverse().map(escapeRegex).join(FULL_NAME_GAP);
      const group = latinParts.length === parts.length ? 'wholeToken' : 'anywhere';
      add(group, forward, parts[0] ?? '');
      add(group, backward, parts[0] ?? '');
    } else if (parts.length === 1) {
      const [only] = parts as [string];
      if (CJK_OR_KANA.test(only)) {
        if (only.length >= 2) add('anywhere', escapeRegex(only), only);
        else add('cjkSingles', escapeRegex(only), only);
        if (only.length >= 3 && !/[\u30a0-\u30ff]/.test(only)) {
          add('withHonorific', escapeRegex(only.slice(0, 2)), only.slice(0, 2));
          if (only.length >= 4)
            add('withHonorific', escapeRegex(only.slice(0, 3)), only.slice(0, 3));
        }
      }
    }
    if (parts.length > 1) {
      for (const part of cjkParts) {
        if (part.length >= 2) add('anywhere', escapeRegex(part), part);
        else add('cjkSingles', escapeRegex(part), part);
      }
    }
    for (const part of latinParts) addLatinPart(part);
    if (latinParts.length >= 2) addLatinCombinations(latinParts);
  };

  const addLatinPart = (part: string) => {
    if (part.length >= 3) add('wholeToken', escapeRegex(part), part);
    else add('withHonorific', escapeRegex(part), part);
  };

  const addLatinCombinations = (parts: readonly string[]) => {
    for (const first of parts) {
      for (const second of parts) {
        if (first === second) continue;
        const [a, b] = [escapeRegex(first), escapeRegex(second)];
        // Every variant below contains the second part whole: it is the needle.
        add('wholeToken', `${a}${FULL_NAME_GAP}${b}`, second); // Taro Yamada, Yamada, Taro, YamadaTaro
        for (const joiner of ['_', '-']) add('wholeToken', `${a}${joiner}${b}`, second); // taro_yamada
        const initial = escapeRegex(first[0] ?? '');
        add('wholeToken', `${initial}\\.?${b}`, second); // tyamada, t.yamada
        add('wholeToken', `${initial}\\.?[ \\t]?${b}`, second); // T. Yamada, T Yamada
        add('wholeToken', `${b}[ \\t,]*${initial}\\.?`, second); // Yamada T., yamadat
      }
    }
  };

  const addUserId = (raw: string) => {
    const id = foldWidth(raw).trim();
    if (id.length < 3) return; // a 1–2 character id would match half the words in a text
    add('wholeToken', escapeRegex(id), id);
    const parts = id.split(/[._]+/).filter((part) => LATIN_WORD.test(part));
    if (parts.length >= 2) {
      for (const part of parts) addLatinPart(part);
      addLatinCombinations(parts);
    }
  };

  if (kind === 'name') addName(text);
  else addUserId(text);
  return recorded;
}

/** {@link recordContributions}, cached per text: a record's people repeat across thousands of records. */
function contributionsOf(kind: 'name' | 'id', text: string): readonly Contribution[] {
  const key = `${kind}\u0000${text}`;
  let contributions = contributionsByText.get(key);
  if (contributions === undefined) {
    contributions = recordContributions(kind, text);
    if (contributionsByText.size >= CONTRIBUTIONS_LIMIT) contributionsByText.clear();
    contributionsByText.set(key, contributions);
  }
  return contributions;
}

/** Between the parts of a full name: nothing, spaces, a comma, a dot or a middle dot. */
const FULL_NAME_GAP = '(?:[ \\t]*[,.・･][ \\t]*|[ \\t]*)';

/** Compiled regexes by flags and source, shared by every person whose matcher has that source. */
const compiledRegexes = new Map<string, RegExp>();
const COMPILED_REGEXES_LIMIT = 4096;

/**
 * Whether a needle can be looked up in the lower-cased text: a needle with a cased letter outside
 * ASCII (`é`, `Ж`) cannot — a case-insensitive regex may match forms of it lower-casing does not
 * show — so its source always runs. Exact for the rest: a case-insensitive regex without the `u`
 * flag matches an ASCII letter only by an ASCII letter (ECMA-262 Canonicalize), and CJK has no case.
 */
function isSafeNeedle(needle: string): boolean {
  for (let index = 0; index < needle.length; index += 1) {
    const character = needle[index] as string;
    if (character.charCodeAt(0) > 0x7f && character.toLowerCase() !== character.toUpperCase()) {
      return false;
    }
  }
  return true;
}

/** Per findNames call: whether each needle occurs in the text (memoised: people share parts). */
class NeedleCheck {
  readonly #lowered: string;
  readonly #seen = new Map<string, boolean>();
  constructor(lowered: string) {
    this.#lowered = lowered;
  }
  /** False only when no match of a source with this needle can be in the text. */
  mayMatch(needle: string): boolean {
    let result = this.#seen.get(needle);
    if (result === undefined) {
      result = !isSafeNeedle(needle) || this.#lowered.includes(needle.toLowerCase());
      this.#seen.set(needle, result);
    }
    return result;
  }
}

/**
 * Runs the name regexes of each person field and of the dictionary over the text. Each person's
 * (and the dictionary's) sources form their own groups, each group one alternation (longest
 * source first, so `山田太郎` wins over `山田`), and the alternation holds only the sources whose
 * needle the text contains: the others cannot match anywhere in it, so leaving them out changes no
 * match, and a caller whose ServiceNow sys_id is new in every record costs no new regex. A
 * regex two person fields share (caller and journal author) runs once: running it again would
 * add the same spans.
 */
function findNames(
  folded: string,
  lowered: string,
  people: readonly Person[],
  dictionary: readonly string[],
  spans: Span[],
): void {
  const needles = new NeedleCheck(lowered);
  const ran = new Set<string>();
  for (const person of people) {
    const contributions: (readonly Contribution[])[] = [];
    for (const name of person.names) contributions.push(contributionsOf('name', name));
    for (const id of person.userIds ?? []) contributions.push(contributionsOf('id', id));
    for (const email of person.emails ?? []) {
      const localPart = email.split(/[@＠]/)[0];
      if (localPart !== undefined) contributions.push(contributionsOf('id', localPart));
    }
    runNameGroups(folded, contributions, needles, ran, spans);
  }
  if (dictionary.length > 0) {
    const contributions = dictionary.map((entry) => contributionsOf('name', entry));
    runNameGroups(folded, contributions, needles, ran, spans);
  }
}

/** One person's (or the dictionary's) groups: gathered, cut to the sources that may match, run. */
function runNameGroups(
  folded: string,
  contributions: readonly (readonly Contribution[])[],
  needles: NeedleCheck,
  ran: Set<string>,
  spans: Span[],
): void {
  // Per group, each source once with whether it may match; a group keeps a source's first needle.
  const groups: Record<GroupName, Map<string, boolean>> = {
    anywhere: new Map(), // matched without boundaries
    wholeToken: new Map(), // matched between non-alphanumerics
    withHonorific: new Map(), // only before an honorific / after a title
    cjkSingles: new Map(),
  };
  for (const list of contributions) {
    for (const [group, source, needle] of list) {
      const sources = groups[group];
      if (!sources.has(source)) sources.set(source, needles.mayMatch(needle));
    }
  }
  const anywhere = alternation(groups.anywhere, true);
  if (anywhere !== undefined)
    runNameRegex(folded, `(?:${anywhere})${NOT_A_PLACE_AFTER}`, 'gi', ran, spans);
  const wholeToken = alternation(groups.wholeToken, true);
  if (wholeToken !== undefined) {
    runNameRegex(folded, `(?<![A-Za-z0-9])(?:${wholeToken})(?![A-Za-z0-9])`, 'gi', ran, spans);
  }
  const withHonorific = alternation(groups.withHonorific, true);
  if (withHonorific !== undefined) {
    runNameRegex(folded, `(?:${withHonorific})${HONORIFIC_AFTER}`, 'g', ran, spans);
    runNameRegex(
      folded,
      `(?<![A-Za-z0-9])(?:${withHonorific})(?:${LATIN_HONORIFIC_AFTER})`,
      'gi',
      ran,
      spans,
    );
    runNameRegex(
      folded,
      `${LATIN_TITLE_BEFORE}(?:${withHonorific})(?![A-Za-z0-9])`,
      'gi',
      ran,
      spans,
    );
  }
  const cjkSingles = alternation(groups.cjkSingles, false);
  if (cjkSingles !== undefined) {
    runNameRegex(folded, `(?:${cjkSingles})${HONORIFIC_AFTER}`, 'g', ran, spans);
    runNameRegex(
      folded,
      `(?<=^|[${BOUNDARY_CHARACTERS}])(?:${cjkSingles})(?=$|[${BOUNDARY_CHARACTERS}])`,
      'gm',
      ran,
      spans,
    );
  }
}

/** One name regex over the text, unless it already ran for this text; compiled once per source. */
function runNameRegex(
  folded: string,
  source: string,
  flags: string,
  ran: Set<string>,
  spans: Span[],
): void {
  const key = `${flags}/${source}`;
  if (ran.has(key)) return;
  ran.add(key);
  let regex = compiledRegexes.get(key);
  if (regex === undefined) {
    if (compiledRegexes.size >= COMPILED_REGEXES_LIMIT) compiledRegexes.clear();
    regex = new RegExp(source, flags);
    compiledRegexes.set(key, regex);
  }
  collect(folded, regex, 'name', PRIORITY.name, spans);
}

/**
 * The group's sources that may match, joined as alternatives (longest first when `longestFirst`;
 * a stable sort, so equal lengths keep the order they were added in), or undefined when none may.
 */
function alternation(
  group: ReadonlyMap<string, boolean>,
  longestFirst: boolean,
): string | undefined {
  const sources: string[] = [];
  for (const [source, mayMatch] of group) if (mayMatch) sources.push(source);
  if (sources.length === 0) return undefined;
  if (longestFirst) sources.sort((a, b) => b.length - a.length);
  return sources.join('|');
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// ---------------------------------------------------------------------------------------------
// People a text names

/** Honorifics and titles that mark the word before them as a person's name. */
const ADDRESS_MARK = '(?:さん|様|さま|氏|くん|君|殿|部長|課長|係長|主任|室長|先生)';
/**
 * A kanji run before an address mark; the name is its tail after an organisation word. Both
 * patterns check the run's first character before the lookbehind (as EMAIL does).
 */
const KANJI_ADDRESSED = new RegExp(
  `(?=[\\u4e00-\\u9fff々])(?<![\\u4e00-\\u9fff々])([\\u4e00-\\u9fff々]{1,8})(?=${ADDRESS_MARK})`,
  'g',
);
const KATAKANA_ADDRESSED = new RegExp(
  `(?=[\\u30a1-\\u30fa\\u30fc])(?<![\\u30a0-\\u30ff])([\\u30a1-\\u30fa\\u30fc]{2,12})(?=${ADDRESS_MARK})`,
  'g',
);
const LATIN_ADDRESSED =
  /\b(?:Mr|Mrs|Ms|Miss|Dr|MR|MRS|MS|DR)\.?[ \t]+([A-Z][a-z'’-]+(?:[ \t]+[A-Z][a-z'’-]+)?)|\b([A-Z][a-z'’-]+)-san\b/g;

/** Words before an honorific that address a role or a group, not a person. */
const GENERIC_ADDRESSEES = new Set([
  // The scrub's own placeholder (`[氏名]さん`), when a scrubbed text is scrubbed again.
  '氏名',
  '皆',
  '客',
  '各位',
  '担当',
  '担当者',
  '利用者',
  '使用者',
  '管理者',
  '申請者',
  '依頼者',
  '先方',
  '相手',
  '貴社',
  '御社',
  '上司',
  '社員',
  '社長',
  '部長',
  '課長',
  '係長',
  '室長',
  '本人',
  '皆様',
  '神',
  '奥',
  '業者',
  '職員',
  '新人',
  '同僚',
  '前任者',
  '後任者',
  '当社',
  '他社',
  '取引先',
  'ユーザー',
  'ユーザ',
  'メンバー',
  'ベンダー',
  'スタッフ',
  'サポート',
  'オペレーター',
  'ゲスト',
  'エンジニア',
  'マネージャー',
  'リーダー',
  'パートナー',
  'ドライバー',
  'カスタマー',
  'オーナー',
]);
/** Organisation words: `営業部山田さん` names 山田. */
const ORGANISATION_SUFFIX = /^.*[部課室社係局店所会団院校]/;
/** Surnames that end in an organisation word's character, so are not cut by ORGANISATION_SUFFIX. */
const SURNAMES_LIKE_ORGANISATIONS =
  /(?:阿部|安部|服部|岡部|渡部|矢部|磯部|長谷部|日下部|田所|氷室)$/;
/** `石川 翔さん`: a surname and given name with a space, before an address mark. */
const KANJI_FULL_NAME_ADDRESSED = new RegExp(
  `(?=[\\u4e00-\\u9fff々])(?<![\\u4e00-\\u9fff々])([\\u4e00-\\u9fff々]{1,8})[ \\t]([\\u4e00-\\u9fff々]{1,4})(?=${ADDRESS_MARK})`,
  'g',
);

/**
 * The people a text addresses by name — before an honorific or title (`佐藤さん`, `鈴木部長`,
 * `スミスさん`), after a Latin title (`Mr. Brown`) or before `-san` — and those its business
 * phrasing marks (person-names-in-context.ts: `経理部の山田太郎です`, a signature block,
 * `Regards,\nMaria Garcia`) as person fields, so each
 * name is removed everywhere in the text, also where it stands without the honorific (`佐藤が…`).
 * Roles and groups (`お客様`, `皆様`, `担当者様`, `ユーザーさん`) are not names.
 */
export function peopleNamedIn(text: string): Person[] {
  const folded = foldWidth(text);
  const names = new Set<string>();
  for (const match of folded.matchAll(KANJI_ADDRESSED)) {
    const run = match[1] ?? '';
    const surnameLike = SURNAMES_LIKE_ORGANISATIONS.exec(run)?.[0];
    const name = surnameLike ?? run.replace(ORGANISATION_SUFFIX, '').slice(-4);
    if (name !== '' && !GENERIC_ADDRESSEES.has(name) && !GENERIC_ADDRESSEES.has(run))
      names.add(name);
  }
  for (const match of folded.matchAll(KANJI_FULL_NAME_ADDRESSED)) {
    const [, run = '', given = ''] = match;
    // `新入社員田村 陽菜さん`: the surname is the run's tail after a role or organisation word.
    const surname = SURNAMES_LIKE_ORGANISATIONS.test(run)
      ? run
      : run.replace(/^.*(?:社員|部員|職員|担当者|管理者)/, '').slice(-4);
    const organisation =
      ORGANISATION_SUFFIX.test(surname) && !SURNAMES_LIKE_ORGANISATIONS.test(surname);
    if (!organisation && !GENERIC_ADDRESSEES.has(surname) && !GENERIC_ADDRESSEES.has(given))
      names.add(`${surname} ${given}`);
  }
  for (const match of folded.matchAll(KATAKANA_ADDRESSED)) {
    const name = match[1] ?? '';
    if (!GENERIC_ADDRESSEES.has(name)) names.add(name);
  }
  for (const match of folded.matchAll(LATIN_ADDRESSED)) {
    const name = match[1] ?? match[2];
    if (name !== undefined) names.add(name);
  }
  for (const name of namesInContext(folded)) names.add(name);
  return [...names].map((name) => ({ names: [name] }));
}
