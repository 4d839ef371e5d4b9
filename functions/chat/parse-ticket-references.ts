/**
 * Ticket references written in an inquiry: `#1234`, `チケット1234` / `チケット #1234`,
 * `INC-1234`, `ticket 1234`. Deterministic and applied to the current inquiry's own user text
 * only — never to history or to assistant text, so a number in a past answer can't become a
 * reference.
 */
const REFERENCE =
  /(?:#|＃|INC-?|チケット(?:番号)?\s*[:：]?\s*[#＃]?|\bticket\s*(?:no\.?|number)?\s*[:#]?\s*)(\d{3,8})(?!\d)/giu;

/** More references than this in one inquiry are ignored (they would only bloat the prompt). */
export const MAX_TICKET_REFERENCES = 10;

export function parseTicketReferences(text: string): string[] {
  const normalized = text.normalize('NFKC');
  const found = new Set<string>();
  for (const match of normalized.matchAll(REFERENCE)) {
    if (match[1]) found.add(String(Number(match[1])));
    if (found.size === MAX_TICKET_REFERENCES) break;
  }
  return [...found];
}

/** The canonical form of an issue id the model wrote (`#1234`, `INC-1234`, ` 1234 `) or undefined. */
export function normalizeIssueId(value: string): string | undefined {
  const digits = /^\s*(?:#|INC-?|チケット)?\s*(\d{1,12})\s*$/iu.exec(value.normalize('NFKC'))?.[1];
  return digits === undefined ? undefined : String(Number(digits));
}
