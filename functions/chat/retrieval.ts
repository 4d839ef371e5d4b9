import { deskAllowed } from '../contract/desks.js';
import { issueIdLookupKeys } from '../contract/ticket-references.js';
import { type GlossaryEntry, IT_GLOSSARY } from './it-glossary.js';
import type { ChatConfig, RetrievedTicket, Retriever } from './ports.js';

/**
 * Retrieval for an inquiry: the query text sent to the Knowledge Base's `Retrieve`
 * (`toRetrievalQuery`), the similar and the referenced tickets fetched through the `Retriever`
 * port, and the second restricted-ticket and desk filter applied to whatever came back
 * (`mergeChunks`).
 * The query is built from the inquiry's own user text only — never history, never assistant
 * text — and deterministically: the same inquiry always sends the same query (the `kb_query`
 * event shows it to staff verbatim). Restricted tickets, and tickets of desks the caller may not
 * retrieve (ADR 0029), never get past this module, whatever the retriever's own filter did.
 */

/** Bedrock's Retrieve accepts at most 1,000 characters of query text. */
export const MAX_QUERY_LENGTH = 1000;

export interface RetrievalQueryOptions {
  /**
   * Append the other language's words for the glossary entries the text mentions
   * (`it-glossary.ts`), so a question in one language finds tickets written in the other.
   */
  readonly expand?: boolean;
}

export function toRetrievalQuery(inquiryText: string, options: RetrievalQueryOptions = {}): string {
  const text = inquiryText.trim();
  const expansion = options.expand ? glossaryExpansion(text) : [];
  // The inquiry first and whole: the expansion is what gets cut at the limit.
  const query = expansion.length > 0 ? `${text}\n${expansion.join(' ')}` : text;
  return Array.from(query).slice(0, MAX_QUERY_LENGTH).join('').trim();
}

/**
 * The words to add for the glossary entries a text mentions: for an entry found by a Japanese
 * variant, its first English word, and the reverse; words the text already contains are skipped.
 * Order follows the glossary, so the result does not depend on where in the text a term stood.
 */
export function glossaryExpansion(text: string): string[] {
  const normalized = normalize(text);
  const englishFound = englishGlossaryWordsIn(normalized);
  const added: string[] = [];
  const add = (word: string) => {
    if (!normalized.includes(normalize(word)) && !added.includes(word)) added.push(word);
  };
  for (const entry of NORMALIZED_GLOSSARY) {
    if (entry.ja.some((word) => normalized.includes(word))) add(entry.addEnglish);
    if (entry.en.some((word) => englishFound.has(word))) add(entry.addJapanese);
  }
  return added;
}

// Full-width letters and half-width katakana as staff type them (ＶＰＮ, ﾌﾟﾘﾝﾀｰ) match too.
function normalize(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** The glossary's variants normalised once, not on every query. */
const NORMALIZED_GLOSSARY = IT_GLOSSARY.map((entry: GlossaryEntry) => ({
  ja: entry.ja.map(normalize),
  en: entry.en.map(normalize),
  addEnglish: entry.en[0] as string,
  addJapanese: entry.ja[0] as string,
}));

/** The normalised English variants by their first character, for the scan below. */
const ENGLISH_BY_FIRST_CHARACTER = new Map<string, string[]>();
for (const word of new Set(NORMALIZED_GLOSSARY.flatMap((entry) => entry.en))) {
  const first = word[0] as string;
  ENGLISH_BY_FIRST_CHARACTER.set(first, [...(ENGLISH_BY_FIRST_CHARACTER.get(first) ?? []), word]);
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * The English glossary variants that stand in `normalized` as whole words, or as their plural:
 * "licenses" mentions "license", "calls" mentions "call", "mailbox" does not mention "mail". A
 * variant matches where no letter or digit comes right before it and none right after it, after
 * an optional "s" or "es" — what `(?<![\p{L}\p{N}])variant(?:e?s)?(?![\p{L}\p{N}])` matches.
 * One scan with one character class: a regular expression per variant (339 of them) cost a new
 * process ~330 ms of compiling on its first inquiry, in Lambda the cold start's first answer.
 */
function englishGlossaryWordsIn(normalized: string): Set<string> {
  const found = new Set<string>();
  for (let index = 0; index < normalized.length; index++) {
    const candidates = ENGLISH_BY_FIRST_CHARACTER.get(normalized[index] as string);
    if (!candidates || isLetterOrDigitBefore(normalized, index)) continue;
    for (const word of candidates) {
      if (found.has(word) || !normalized.startsWith(word, index)) continue;
      const end = index + word.length;
      const endsWord = ['', 's', 'es'].some(
        (plural) =>
          normalized.startsWith(plural, end) && !isLetterOrDigitAt(normalized, end + plural.length),
      );
      if (endsWord) found.add(word);
    }
  }
  return found;
}

function isLetterOrDigitAt(text: string, index: number): boolean {
  const codePoint = text.codePointAt(index);
  return codePoint !== undefined && LETTER_OR_DIGIT.test(String.fromCodePoint(codePoint));
}

function isLetterOrDigitBefore(text: string, index: number): boolean {
  if (index === 0) return false;
  // The code point ending right before `index`: a surrogate pair counts as one character.
  const pairStart = index >= 2 ? text.codePointAt(index - 2) : undefined;
  const codePoint =
    pairStart !== undefined && pairStart > 0xffff ? pairStart : text.charCodeAt(index - 1);
  return LETTER_OR_DIGIT.test(String.fromCodePoint(codePoint));
}

/**
 * Similar tickets for the inquiry text, restricted ones and those of other desks removed a second
 * time here whatever the retriever's filter did, and merged per ticket (a long ticket can come
 * back as several chunks). `desks`: the caller's (ADR 0029).
 */
export async function retrieveTickets(
  retriever: Retriever,
  inquiryText: string,
  config: Pick<ChatConfig, 'numberOfResults' | 'queryExpansion'>,
  desks: readonly string[],
  signal?: AbortSignal,
  restrictedIssueIds?: Set<string>,
): Promise<RetrievedTicket[]> {
  const query = toRetrievalQuery(inquiryText, { expand: config.queryExpansion });
  const chunks = await retriever.search(query, { limit: config.numberOfResults, desks, signal });
  return mergeChunks(chunks, desks, restrictedIssueIds);
}

/**
 * The tickets an inquiry names (`parseTicketReferences`), fetched by their `issue_id`, restricted
 * ones and those of desks outside `desks` removed: a number typed by a caller of another desk
 * finds nothing, as a number no ticket has.
 */
export async function fetchReferencedTickets(
  retriever: Pick<Retriever, 'fetchByIssueIds'>,
  issueIds: readonly string[],
  desks: readonly string[],
  signal?: AbortSignal,
  restrictedIssueIds?: Set<string>,
): Promise<RetrievedTicket[]> {
  if (issueIds.length === 0) return [];
  const limit = Math.min(100, issueIds.length * 4);
  // A bare number may be the app's ticket or Zendesk's (`#35436`): ask for both (ADR 0020).
  const lookupKeys = [...new Set(issueIds.flatMap(issueIdLookupKeys))];
  const chunks = await retriever.fetchByIssueIds(lookupKeys, { limit, desks, signal });
  return mergeChunks(chunks, desks, restrictedIssueIds);
}

/**
 * Drops restricted chunks (noting their ids in `restrictedIssueIds`, for the grounding log) and
 * chunks of a desk `desks` does not allow (not noted: to the caller such a ticket does not exist),
 * and joins chunks of one ticket, best score first.
 */
export function mergeChunks(
  chunks: readonly RetrievedTicket[],
  desks: readonly string[],
  restrictedIssueIds?: Set<string>,
): RetrievedTicket[] {
  const byIssue = new Map<string, RetrievedTicket>();
  for (const chunk of chunks) {
    if (chunk.restricted) {
      restrictedIssueIds?.add(chunk.issueId);
      continue;
    }
    if (!deskAllowed(chunk.desk, desks)) continue;
    const existing = byIssue.get(chunk.issueId);
    if (!existing) byIssue.set(chunk.issueId, chunk);
    else if (!existing.text.includes(chunk.text)) {
      byIssue.set(chunk.issueId, {
        ...existing,
        score: Math.max(existing.score, chunk.score),
        text: `${existing.text}\n${chunk.text}`,
      });
    }
  }
  return [...byIssue.values()].sort((a, b) => b.score - a.score);
}
