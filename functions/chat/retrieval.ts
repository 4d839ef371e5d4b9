import { issueIdLookupKeys } from '../contract/ticket-references.js';
import { type GlossaryEntry, IT_GLOSSARY } from './it-glossary.js';
import type { ChatConfig, RetrievedTicket, Retriever } from './ports.js';

/**
 * Retrieval for an inquiry: the query text sent to the Knowledge Base's `Retrieve`
 * (`toRetrievalQuery`), the similar and the referenced tickets fetched through the `Retriever`
 * port, and the second restricted-ticket filter applied to whatever came back (`mergeChunks`).
 * The query is built from the inquiry's own user text only — never history, never assistant
 * text — and deterministically: the same inquiry always sends the same query (the `kb_query`
 * event shows it to staff verbatim). Restricted tickets never get past this module, whatever the
 * retriever's own filter did.
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
  const added: string[] = [];
  const add = (word: string) => {
    if (!normalized.includes(normalize(word)) && !added.includes(word)) added.push(word);
  };
  for (const entry of IT_GLOSSARY) {
    const { japanese, english } = mentions(entry, normalized);
    if (japanese) add(entry.en[0] as string);
    if (english) add(entry.ja[0] as string);
  }
  return added;
}

function mentions(entry: GlossaryEntry, normalized: string) {
  return {
    japanese: entry.ja.some((word) => normalized.includes(normalize(word))),
    english: entry.en.some((word) => englishWord(word).test(normalized)),
  };
}

// Full-width letters and half-width katakana as staff type them (ＶＰＮ, ﾌﾟﾘﾝﾀｰ) match too.
const normalize = (text: string) => text.normalize('NFKC').toLowerCase();

const englishPatterns = new Map<string, RegExp>();
/**
 * A whole-word, case-insensitive match of an English glossary word (on normalised text), plural
 * included: "licenses" mentions "license", "calls" mentions "call".
 */
function englishWord(word: string): RegExp {
  let pattern = englishPatterns.get(word);
  if (!pattern) {
    const escaped = normalize(word).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?:e?s)?(?![\\p{L}\\p{N}])`, 'u');
    englishPatterns.set(word, pattern);
  }
  return pattern;
}

/**
 * Similar tickets for the inquiry text, restricted ones removed a second time here whatever the
 * retriever's filter did, and merged per ticket (a long ticket can come back as several chunks).
 */
export async function retrieveTickets(
  retriever: Retriever,
  inquiryText: string,
  config: Pick<ChatConfig, 'numberOfResults' | 'queryExpansion'>,
  signal?: AbortSignal,
  restrictedIssueIds?: Set<string>,
): Promise<RetrievedTicket[]> {
  const query = toRetrievalQuery(inquiryText, { expand: config.queryExpansion });
  const chunks = await retriever.search(query, { limit: config.numberOfResults, signal });
  return mergeChunks(chunks, restrictedIssueIds);
}

/**
 * The tickets an inquiry names (`parseTicketReferences`), fetched by their `issue_id`, restricted
 * ones removed.
 */
export async function fetchReferencedTickets(
  retriever: Retriever,
  issueIds: readonly string[],
  signal?: AbortSignal,
  restrictedIssueIds?: Set<string>,
): Promise<RetrievedTicket[]> {
  if (issueIds.length === 0) return [];
  const limit = Math.min(100, issueIds.length * 4);
  // A bare number may be the app's ticket or Zendesk's (`#35436`): ask for both (ADR 0020).
  const lookupKeys = [...new Set(issueIds.flatMap(issueIdLookupKeys))];
  const chunks = await retriever.fetchByIssueIds(lookupKeys, { limit, signal });
  return mergeChunks(chunks, restrictedIssueIds);
}

/**
 * Drops restricted chunks (noting their ids in `restrictedIssueIds`, for the grounding log) and
 * joins chunks of one ticket, best score first.
 */
export function mergeChunks(
  chunks: readonly RetrievedTicket[],
  restrictedIssueIds?: Set<string>,
): RetrievedTicket[] {
  const byIssue = new Map<string, RetrievedTicket>();
  for (const chunk of chunks) {
    if (chunk.restricted) {
      restrictedIssueIds?.add(chunk.issueId);
      continue;
    }
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
