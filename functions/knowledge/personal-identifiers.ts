/**
 * Identifiers and credentials written in free text, without the label-and-colon the older
 * credential patterns need: My Numbers (validated by their check digit), payment-card numbers
 * (Luhn and the issuers' IIN ranges), PIN and password phrases in Japanese and English
 * (`暗証番号 4000`, `PWは Abc12345! です`, `temporary password Tmp#2025ab`), and an AWS secret
 * access key written near its access key id. Each finder works on the folded text
 * (personal-data-detectors.ts `foldWidth`: full-width ASCII already ASCII) and returns spans of the
 * value only, so the label stays for the reader. Pure. Design: docs/adr/0019-personal-data-scrub.md.
 */

/** A found value, in UTF-16 offsets of the text it was found in. */
export interface IdentifierSpan {
  readonly start: number;
  readonly end: number;
}

// ---------------------------------------------------------------------------------------------
// My Number (個人番号): 12 digits, the last a check digit (番号法施行令 第8条).

/**
 * `1234 5678 9012`, `1234-5678-9012`, `123456789012`; not inside a longer number or word, nor one
 * group of a longer grouped number (a card's first twelve digits).
 */
const MY_NUMBER_CANDIDATE =
  /(?<![0-9A-Za-z_.\-/]|\d[ \t-])(?<value>\d{4}([ \t-]?)\d{4}\2\d{4})(?![0-9A-Za-z_]|[.\-/]\d|[ \t-]\d)/dg;

/** A label that makes a 12-digit number a My Number even when its check digit is mistyped. */
const MY_NUMBER_LABEL = /(?:マイナンバー|個人番号|my ?number|mynumber)[^\n\d]{0,12}$/i;

/** Labels that say a 12-digit number is something else (an AWS account, an order…). */
const NOT_MY_NUMBER_LABEL =
  /(?:account(?:[ _-]?id)?|アカウント(?:ID|番号)?|注文番号|order|伝票|invoice|請求|serial|シリアル|s\/n)[^\n\d]{0,12}$/i;

/**
 * Whether 12 digits form a valid My Number: the check digit is 11 − (Σ Pn×Qn mod 11), or 0 when
 * that remainder is 0 or 1, where Pn is the n-th digit counted leftwards from the one before the
 * check digit and Qn is n+1 for n ≤ 6, n−5 for n ≥ 7.
 */
export function isValidMyNumber(digits: string): boolean {
  if (!/^\d{12}$/.test(digits)) return false;
  let sum = 0;
  for (let n = 1; n <= 11; n += 1) {
    const p = Number(digits[11 - n]);
    const q = n <= 6 ? n + 1 : n - 5;
    sum += p * q;
  }
  const remainder = sum % 11;
  const check = remainder <= 1 ? 0 : 11 - remainder;
  return check === Number(digits[11]);
}

/** My Numbers in `folded`: valid check digit, or a My Number label just before. */
export function findMyNumbers(folded: string): IdentifierSpan[] {
  const spans: IdentifierSpan[] = [];
  MY_NUMBER_CANDIDATE.lastIndex = 0;
  for (const match of folded.matchAll(MY_NUMBER_CANDIDATE)) {
    const [start, end] = match.indices?.groups?.value ?? [match.index, match.index];
    const before = folded.slice(Math.max(0, start - 30), start);
    if (NOT_MY_NUMBER_LABEL.test(before)) continue;
    const digits = folded.slice(start, end).replace(/\D/g, '');
    if (isValidMyNumber(digits) || MY_NUMBER_LABEL.test(before)) spans.push({ start, end });
  }
  return spans;
}

// ---------------------------------------------------------------------------------------------
// Payment cards: 13–19 digits in groups (4-4-4-4, 4-6-5, 4-4-4-4-3) or bare, Luhn-valid, in an
// issuer's IIN range.

const CARD_CANDIDATE =
  /(?<![0-9A-Za-z_.\-/]|\d[ \t-])(?<value>\d{4}([ \t-]?)\d{4,6}\2\d{4,5}(?:\2\d{1,4}){0,2})(?![0-9A-Za-z_]|[.\-/]\d)/dg;

/** Luhn's mod-10 check, as every card number carries it. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let index = digits.length - 1; index >= 0; index -= 1) {
    let digit = Number(digits[index]);
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

/**
 * Issuers' identification number ranges and their lengths: Visa, Mastercard (51–55, 2221–2720),
 * American Express, JCB, Diners Club, Discover, UnionPay.
 */
export function isCardIssuerRange(digits: string): boolean {
  const length = digits.length;
  const prefix = (size: number) => Number(digits.slice(0, size));
  if (digits.startsWith('4')) return length === 13 || length === 16 || length === 19;
  if (prefix(2) >= 51 && prefix(2) <= 55) return length === 16;
  if (prefix(4) >= 2221 && prefix(4) <= 2720) return length === 16;
  if (prefix(2) === 34 || prefix(2) === 37) return length === 15;
  if (prefix(4) >= 3528 && prefix(4) <= 3589) return length >= 16 && length <= 19;
  if (
    (prefix(3) >= 300 && prefix(3) <= 305) ||
    prefix(2) === 36 ||
    prefix(2) === 38 ||
    prefix(2) === 39
  )
    return length >= 14 && length <= 19;
  if (digits.startsWith('6011') || prefix(2) === 65 || (prefix(3) >= 644 && prefix(3) <= 649))
    return length >= 16 && length <= 19;
  if (prefix(2) === 62) return length >= 16 && length <= 19;
  return false;
}

/** Card numbers in `folded`: Luhn-valid and in an issuer's range, labelled or not. */
export function findCardNumbers(folded: string): IdentifierSpan[] {
  const spans: IdentifierSpan[] = [];
  for (const match of folded.matchAll(CARD_CANDIDATE)) {
    const [start, end] = match.indices?.groups?.value ?? [match.index, match.index];
    const digits = folded.slice(start, end).replace(/\D/g, '');
    if (digits.length < 13 || digits.length > 19) continue;
    if (passesLuhn(digits) && isCardIssuerRange(digits)) spans.push({ start, end });
  }
  return spans;
}

// ---------------------------------------------------------------------------------------------
// PIN and password phrases without a colon. A label, an optional connecting word, then a value
// that looks like a credential: a PIN's 4–8 digits, or a password token of 4+ printable ASCII
// characters holding a digit or a symbol (so `password reset`, `パスワード ポリシー`,
// `PIN 4桁` are prose, not secrets).

const JAPANESE_SECRET_LABEL =
  '(?:(?:仮|初期|新しい|新|旧|一時|臨時|現在の)?(?:パスワード|ぱすわーど|パスコード|暗証番号)|(?<![A-Za-z0-9])(?:PW|PWD|PIN|pw|Pw|pin)(?![A-Za-z0-9]))';
const JAPANESE_CONNECTOR =
  '(?:[ \\t]*(?:は|を|が|も|として|に|=|:|→|->|を[「『]?)?[ \\t]*(?:仮に|一時的に|「|『|"|\')?[ \\t]*)';

const ENGLISH_SECRET_LABEL =
  '(?<![A-Za-z0-9_])(?:(?:temporary|temp|initial|new|old|current|default|one-time|wifi|wi-fi|vpn|admin|my|the|his|her|their|your)[ \\t]+)?(?:password|passcode|passphrase|pass ?word|pwd|pw|pin(?:[ \\t]+(?:code|number))?)(?![A-Za-z0-9_])';
const ENGLISH_CONNECTOR =
  '(?:[ \\t]+(?:for|of|on|at)[ \\t]+(?:the[ \\t]+|my[ \\t]+|our[ \\t]+)?[A-Za-z-]{2,20}(?=[ \\t]+(?:is|was)\\b))?(?:[ \\t]*(?:(?:is|was|will be|has been|=|:|->|→)[ \\t]+(?:(?:now|still|set to|changed to|reset to)[ \\t]+)?|(?:(?:set|changed|reset|updated)[ \\t]+)?to[ \\t]+|(?:of|as)[ \\t]+)?["\'“‘`]?[ \\t]*)';

/** The value: a run of printable ASCII without quotes or brackets that close it. */
const SECRET_VALUE =
  '(?![=:])(?<value>[!#-&(-~]{4,64}?)(?=["\'”’`」』]|[.,;)]?(?:\\s|$)|[ \\t]*[\\u3000-\\u9fff]|$)';

const JAPANESE_SECRET_PHRASE = new RegExp(
  `${JAPANESE_SECRET_LABEL}${JAPANESE_CONNECTOR}${SECRET_VALUE}`,
  'dg',
);
const ENGLISH_SECRET_PHRASE = new RegExp(
  `${ENGLISH_SECRET_LABEL}${ENGLISH_CONNECTOR}${SECRET_VALUE}`,
  'dgi',
);

/** A literal one of the labels above contains (lower-cased), to skip texts without any. */
const SECRET_PHRASE_NEEDLE = /パスワード|ぱすわーど|パスコード|暗証番号|パス|pw|pin|pass/i;

/** Words that follow a password label as prose, never as the password itself. */
const NOT_A_SECRET = new Set([
  'policy',
  'reset',
  'manager',
  'expired',
  'expiry',
  'change',
  'length',
  'http',
  'https',
]);

function looksLikeSecret(value: string, isPin: boolean): boolean {
  if (isPin) return /^\d{4,8}$/.test(value);
  if (/^[a-z]+:\/\//i.test(value)) return false; // a URL, not a password
  if (NOT_A_SECRET.has(value.toLowerCase())) return false;
  if (/^\d{1,3}(?:文字|桁|回|日)?$/.test(value)) return false;
  const hasDigit = /\d/.test(value);
  const hasSymbol = /[!#$%&*+\-./=?@^_~]/.test(value);
  const hasLetter = /[A-Za-z]/.test(value);
  if (!hasLetter) return /^\d{4,12}$/.test(value); // a numeric password or PIN
  if (/^\d+(?:\.\d+)+$/.test(value)) return false; // a version
  return hasDigit || (hasSymbol && /[A-Za-z].*[^A-Za-z]|[^A-Za-z].*[A-Za-z]/.test(value));
}

/** PIN and password values after a label, in Japanese and English phrasing. */
export function findSecretPhrases(folded: string): IdentifierSpan[] {
  if (!SECRET_PHRASE_NEEDLE.test(folded)) return [];
  const spans: IdentifierSpan[] = [];
  for (const pattern of [JAPANESE_SECRET_PHRASE, ENGLISH_SECRET_PHRASE]) {
    for (const match of folded.matchAll(pattern)) {
      const indices = match.indices?.groups?.value;
      if (indices === undefined) continue;
      const value = folded.slice(indices[0], indices[1]);
      const isPin = /暗証番号|pin/i.test(match[0].slice(0, match[0].length - value.length));
      if (looksLikeSecret(value, isPin) || (isPin && looksLikeSecret(value, false)))
        spans.push({ start: indices[0], end: indices[1] });
    }
  }
  return spans;
}

// ---------------------------------------------------------------------------------------------
// An AWS secret access key without its label: 40 characters of base64 near an access key id.

const ACCESS_KEY_ID = /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g;
const FORTY_BASE64 = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
/** How far from an access key id its secret key may stand (a line or two of a pasted CSV/config). */
const KEY_PAIR_WINDOW = 300;

/**
 * Secret access keys near an access key id. The key must mix upper case, lower case and digits
 * (a git commit id, lower-case hex, does not).
 */
export function findAwsSecretKeys(folded: string): IdentifierSpan[] {
  if (!folded.includes('AKIA') && !folded.includes('ASIA')) return [];
  const spans: IdentifierSpan[] = [];
  const ids = [...folded.matchAll(ACCESS_KEY_ID)].map((match) => match.index);
  if (ids.length === 0) return spans;
  for (const match of folded.matchAll(FORTY_BASE64)) {
    const value = match[0];
    if (!/[A-Z]/.test(value) || !/[a-z]/.test(value) || !/\d/.test(value)) continue;
    if (ids.some((index) => Math.abs(index - match.index) <= KEY_PAIR_WINDOW)) {
      spans.push({ start: match.index, end: match.index + value.length });
    }
  }
  return spans;
}
