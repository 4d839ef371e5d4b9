/**
 * How a ticket number is written in free text: `#1234`, `チケット1234` / `チケット番号：＃1234`,
 * `INC-1234`, `ticket 1234` / `Ticket No. 1234` (full-width and half-width forms alike). One
 * grammar for the server, which reads staff's references in an inquiry and checks the model's
 * citations in an answer, and the web app, which marks the citations the server could not verify.
 * A number without one of these prefixes is not a reference: `内線1234` is a phone extension.
 */

/** What may stand before the digits: `#`, `INC-`, `チケット番号：＃`, `Ticket No.` (after NFKC). */
const PREFIX = String.raw`(?:#|INC-?|チケット(?:番号)?\s*:?\s*#?|\bticket\s*(?:no\.?|number)?\s*[:#]?\s*)`;

/** In free text a prefix is required and 3–8 digits, so `内線1234` or a year is no reference. */
const REFERENCE = new RegExp(String.raw`${PREFIX}(\d{3,8})(?!\d)`, 'giu');

/**
 * A field that holds nothing but an issue id: the digits alone or one reference, nothing else
 * around it. The field says it is an id, so the prefix is optional and 1–12 digits count.
 */
const CANONICAL_DIGITS = /^[0-9]{1,12}$/;

const WHOLE_ISSUE_ID = new RegExp(String.raw`^${PREFIX}?(\d{1,12})$`, 'iu');

/** One reference as written: where it is in the original text and the ticket it names. */
export interface TicketReference {
  /** UTF-16 offset of the reference (prefix included) in the text as given. */
  readonly start: number;
  /** UTF-16 offset just after its last digit. */
  readonly end: number;
  /** The ticket number in canonical form: digits, no leading zeros (`#0042` → `42`). */
  readonly issueId: string;
}

/**
 * Every ticket reference in `text`, in order, with offsets into `text` itself. Matching runs on
 * the NFKC form of each character (so `＃１２３４` and `ﾁｹｯﾄ1234` count) while the offsets stay
 * those of the original, so a caller can wrap exactly what was written.
 *
 * @example
 * findTicketReferences('see #1001 and チケット０４２１');
 * // [{ start: 4, end: 9, issueId: '1001' }, { start: 14, end: 22, issueId: '421' }]
 */
export function findTicketReferences(text: string): TicketReference[] {
  const { normalized, offsets } = normalizeWithOffsets(text);
  const references: TicketReference[] = [];
  for (const match of normalized.matchAll(REFERENCE)) {
    const digits = match[1];
    if (digits === undefined) continue;
    const end = match.index + match[0].length;
    references.push({
      start: offsets[match.index] ?? 0,
      end: offsets[end] ?? text.length,
      issueId: String(Number(digits)),
    });
  }
  return references;
}

/**
 * NFKC per code point, with `offsets[i]` = where the character at `normalized[i]` came from
 * (and `offsets[normalized.length]` = `text.length`). Per code point rather than for the whole
 * string, so every offset maps back; the difference (combining sequences) never touches the
 * characters a reference or a link (`links.ts`) is made of.
 */
export function normalizeWithOffsets(text: string): { normalized: string; offsets: number[] } {
  let normalized = '';
  const offsets: number[] = [];
  let index = 0;
  for (const character of text) {
    const mapped = character.normalize('NFKC');
    for (let unit = 0; unit < mapped.length; unit++) offsets.push(index);
    normalized += mapped;
    index += character.length;
  }
  offsets.push(text.length);
  return { normalized, offsets };
}

/**
 * The canonical form (digits, no leading zeros) of a value that is meant to be one issue id, as a
 * model writes it in a ticket card's `issue_id`: a string of digits, `#1234`, ` 1234 `,
 * `ＩＮＣ－０１２３`, `チケット1234`, or a JSON number (`1234`, as the seed's own payload writes it).
 * Anything that does not name exactly one ticket unambiguously — two numbers, a fraction, a
 * negative or unsafe number, words around the id — is `undefined`: better no card than the wrong one.
 *
 * @example
 * canonicalIssueId(12345); // '12345'
 * canonicalIssueId(' ＃０１２３４５ '); // '12345'
 * canonicalIssueId('12345, 12346'); // undefined
 */
export function canonicalIssueId(value: unknown): string | undefined {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0 ? String(value) : undefined;
  }
  if (typeof value !== 'string') return undefined;
  // The form the tool schema asks for, and nearly every card: skip NFKC and the grammar.
  if (CANONICAL_DIGITS.test(value)) return String(Number(value));
  const digits = WHOLE_ISSUE_ID.exec(value.normalize('NFKC').trim())?.[1];
  return digits === undefined ? undefined : String(Number(digits));
}
