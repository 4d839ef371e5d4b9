/**
 * How a ticket number is written in free text: `#1234`, `チケット1234` / `チケット番号：＃1234`,
 * `INC-1234`, `ticket 1234` / `Ticket No. 1234` (full-width and half-width forms alike). One
 * grammar for the server, which reads staff's references in an inquiry and checks the model's
 * citations in an answer, and the web app, which marks the citations the server could not verify.
 * A number without one of these prefixes is not a reference: `内線1234` is a phone extension.
 */

const REFERENCE =
  /(?:#|INC-?|チケット(?:番号)?\s*:?\s*#?|\bticket\s*(?:no\.?|number)?\s*[:#]?\s*)(\d{3,8})(?!\d)/giu;

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
 * characters a reference is made of.
 */
function normalizeWithOffsets(text: string): { normalized: string; offsets: number[] } {
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
