import {
  MAX_RESOLUTION_STEPS,
  MAX_STEP_LENGTH,
  sanitizeTicketCategory,
} from '../../../functions/contract/knowledge.js';
import { detectLanguage, type Language } from '../../../functions/contract/language.js';
import { TRANSCRIPT_ELEMENTS } from '../../../functions/contract/prompt-data.js';
import { OFFLINE_PHRASES } from './offline-phrases.js';
import { isElement, promptElementsOf, textOf } from './offline-request.js';

/**
 * The offline model's answer to the forced `submit_ticket_draft` tool: a Knowledge Base ticket
 * drafted from one solved inquiry, by rules instead of a model, deterministically.
 *
 * The request is one user message holding the inquiry's transcript as markup
 * (`transcriptText` in `functions/knowledge/ticket-draft.ts`, ADR 0015): `staff` and `assistant`
 * elements alternating, oldest first, then `cited_tickets` with one
 * `<cited_ticket issue_id="1011" category="VPN">` per ticket.
 */
export type OfflineTicketDraft = {
  readonly subject: string;
  readonly category: string;
  readonly inquiry: string;
  readonly resolution: readonly string[];
  readonly restricted: false;
};

/** The transcript's parts as the draft reads them. */
export interface DraftTranscript {
  readonly staff: readonly string[];
  readonly assistant: readonly string[];
  readonly citedTickets: readonly { readonly issueId: string; readonly category: string }[];
}

const TODO_ITEM = /^\s*(?:[-*•・]|\d+[.)])\s+(.+)$/;
const MAX_SUBJECT_CHARS = 80;
const MAX_RESOLUTION_SENTENCES = 6;

/**
 * Reads the transcript by its elements (`TRANSCRIPT_ELEMENTS`); text that is not markup (a
 * hand-written request) is one staff message.
 */
export function readDraftTranscript(text: string): DraftTranscript {
  const elements = promptElementsOf(text);
  if (elements.length === 0) return { staff: [text.trim()], assistant: [], citedTickets: [] };
  const textsOf = (name: string) =>
    elements
      .filter((element) => element.name === name)
      .map((element) => textOf(element).trim())
      .filter((body) => body !== '');
  return {
    staff: textsOf(TRANSCRIPT_ELEMENTS.staff),
    assistant: textsOf(TRANSCRIPT_ELEMENTS.assistant),
    citedTickets: elements
      .filter((element) => element.name === TRANSCRIPT_ELEMENTS.citedTickets)
      .flatMap((element) => element.children.filter(isElement))
      .map((ticket) => ({
        issueId: ticket.attributes.issue_id ?? '',
        category: ticket.attributes.category ?? '',
      }))
      .filter((ticket) => ticket.issueId !== '' && ticket.category !== ''),
  };
}

/**
 * The draft: `subject` the first staff message's first line, cut to its first sentence and to
 * 80 characters; `category` the first cited ticket's if the tool allows it, else the allowed
 * category named earliest in the transcript, else `Software`; `inquiry` the staff messages;
 * `resolution` the to-do items (`- …`, `1. …`) of the last answer, else its first sentences.
 * Fallback wording is in `language`.
 *
 * @param allowedCategories the tool schema's `category` enum, the deployed tickets' set; empty
 *   (a deployment that knows none): the first cited ticket's category, else `Software`
 * @param language the request's answer language; by default the inquiry's
 */
export function buildOfflineTicketDraft(
  transcript: DraftTranscript,
  allowedCategories: readonly string[] = [],
  language: Language = detectLanguage(
    transcript.staff.join('\n\n') || transcript.assistant.join('\n'),
  ),
): OfflineTicketDraft {
  const inquiry = transcript.staff.join('\n\n');
  const phrases = OFFLINE_PHRASES[language];
  return {
    subject: subjectOf(transcript.staff[0] ?? '') || phrases.draftSubject,
    category: categoryOf(transcript, allowedCategories),
    inquiry,
    resolution: resolutionOf(transcript.assistant.at(-1) ?? '', phrases.draftResolution),
    restricted: false,
  };
}

const sentencesOf = (text: string) =>
  text
    .split(/(?<=[。．！？!?])|(?<=\.)\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '' && !sentence.startsWith('#'));

function subjectOf(firstMessage: string): string {
  const firstLine = firstMessage.trim().split('\n')[0]?.trim() ?? '';
  const firstSentence = sentencesOf(firstLine)[0] ?? firstLine;
  const characters = [...firstSentence]; // by code point: never half a surrogate pair
  return characters.length <= MAX_SUBJECT_CHARS
    ? firstSentence
    : `${characters
        .slice(0, MAX_SUBJECT_CHARS - 1)
        .join('')
        .trimEnd()}…`;
}

function categoryOf(transcript: DraftTranscript, allowed: readonly string[]): string {
  const cited = transcript.citedTickets[0]?.category;
  if (cited !== undefined && allowed.includes(cited)) return cited;
  if (allowed.length === 0) return sanitizeTicketCategory(cited) ?? 'Software';
  const text = [...transcript.staff, ...transcript.assistant].join('\n').toLowerCase();
  let best: { category: string; at: number } | undefined;
  for (const category of allowed) {
    // Whole Latin words ("Box" not inside "Inbox"), while 「VPNに」 still names VPN.
    const pattern = new RegExp(
      `(?<![a-z0-9])${category.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![a-z0-9])`,
    );
    const at = text.search(pattern);
    if (at !== -1 && (best === undefined || at < best.at)) best = { category, at };
  }
  return best?.category ?? (allowed.includes('Software') ? 'Software' : (allowed[0] ?? 'Software'));
}

function resolutionOf(lastAnswer: string, fallback: string): string[] {
  const items = lastAnswer.split('\n').map((line) => TODO_ITEM.exec(line)?.[1]?.trim());
  // The transcript ends an answer with its to-do list: the trailing run of items. Items inside
  // the advice before it are explanations, and often the same steps again.
  const trailing: string[] = [];
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index];
    if (item === undefined || item === '') break;
    trailing.unshift(item);
  }
  const todos = [
    ...new Set(
      trailing.length > 0
        ? trailing
        : items.filter((item): item is string => item !== undefined && item !== ''),
    ),
  ];
  // Within the contract's limits, so the draft publishes as it is.
  if (todos.length > 0) {
    return todos.slice(0, MAX_RESOLUTION_STEPS).map((todo) => todo.slice(0, MAX_STEP_LENGTH));
  }
  const sentences = sentencesOf(lastAnswer).slice(0, MAX_RESOLUTION_SENTENCES);
  return sentences.length > 0 ? sentences : [fallback];
}
