import { findTicketReferences } from '../contract/ticket-references.js';
import type { Turn } from './ports.js';

/**
 * Domain rules about inquiries, independent of storage: splitting a conversation into the open
 * inquiry and the archive, which inquiry a message belongs to, ticket references typed by staff,
 * the inquiry's language and a conversation's title.
 */

/** A closed (or abandoned) inquiry, reduced to what the archive section shows. */
export interface ArchivedInquiry {
  readonly inquiryId: string;
  /** The user text that opened the inquiry. */
  readonly question: string;
  /** Later user turns of the same inquiry (answers to clarifications). */
  readonly followUps: readonly string[];
  /** The advice of its last complete answer, if any. */
  readonly advice?: string;
}

export interface SplitInquiries {
  /** The open inquiry's turns: the working buffer. */
  readonly working: readonly Turn[];
  /** Every other inquiry, newest first. */
  readonly archive: readonly ArchivedInquiry[];
}

/** Unusable as context: a partial answer that failed or was stopped. */
const isIncompleteAnswer = (turn: Turn) =>
  turn.role === 'assistant' && (turn.status === 'failed' || turn.status === 'stopped');

/**
 * Splits a conversation's turns into the working buffer (the inquiry `openInquiryId`) and the
 * archive (all other inquiries). Incomplete assistant turns are left out of both.
 */
export function splitInquiries(turns: readonly Turn[], openInquiryId: string): SplitInquiries {
  const byInquiry = new Map<string, Turn[]>();
  for (const turn of turns) {
    if (isIncompleteAnswer(turn)) continue;
    const group = byInquiry.get(turn.inquiryId) ?? [];
    group.push(turn);
    byInquiry.set(turn.inquiryId, group);
  }
  const archive: ArchivedInquiry[] = [];
  for (const [inquiryId, group] of byInquiry) {
    if (inquiryId === openInquiryId) continue;
    const userTexts = group.filter((turn) => turn.role === 'user').map((turn) => turn.text);
    const lastAnswer = group.filter((turn) => turn.role === 'assistant').at(-1);
    archive.push({
      inquiryId,
      question: userTexts[0] ?? '',
      followUps: userTexts.slice(1),
      advice: lastAnswer?.result?.general_advice ?? lastAnswer?.text,
    });
  }
  return { working: byInquiry.get(openInquiryId) ?? [], archive: archive.reverse() };
}

/** More references than this in one inquiry are ignored (they would only bloat the prompt). */
export const MAX_TICKET_REFERENCES = 10;

/**
 * Ticket references written in an inquiry (`#1234`, `チケット1234`, `INC-1234`, `ticket 1234`;
 * the grammar is `findTicketReferences` in the contract), as canonical ids, each once.
 * Deterministic and applied to the current inquiry's own user text only — never to history or to
 * assistant text, so a number in a past answer can't become a reference.
 */
export function parseTicketReferences(text: string): string[] {
  const found = new Set<string>();
  for (const reference of findTicketReferences(text)) {
    found.add(reference.issueId);
    if (found.size === MAX_TICKET_REFERENCES) break;
  }
  return [...found];
}

export type Language = 'ja' | 'en';

const JAPANESE = /[\u3040-\u30ff\u3400-\u9fff\uff66-\uff9f]/;

/** Japanese when the text has any kana or kanji, otherwise English. */
export function detectLanguage(text: string): Language {
  return JAPANESE.test(text) ? 'ja' : 'en';
}

/** Whether a message may continue the open inquiry (`continue`, the default) or starts a new one. */
export type InquiryIntent = 'continue' | 'new';

/** Where a user message goes in its conversation. */
export interface UserTurnPlacement {
  /** `option` answers the open inquiry's clarification; `question` opens a new inquiry. */
  readonly kind: 'question' | 'option';
  readonly inquiryId: string;
}

/**
 * A user message continues the open inquiry only when there is one — an inquiry whose last answer
 * is a clarification still awaiting its reply — and staff did not ask for a new inquiry;
 * otherwise it opens a new inquiry. After a failed, stopped or `results` answer there is no open
 * inquiry, so the next message never merges into the one before it. Decided by the store against
 * the state it commits on, so a concurrent answer cannot slip between the decision and the write.
 * Storing the message closes the open inquiry (its clarification has its reply); the inquiry's
 * next answer decides whether it opens again (`openInquiryAfterAssistantTurn`).
 */
export function placeUserTurn(
  openInquiryId: string | undefined,
  intent: InquiryIntent,
  newInquiryId: () => string,
): UserTurnPlacement {
  return openInquiryId !== undefined && intent === 'continue'
    ? { kind: 'option', inquiryId: openInquiryId }
    : { kind: 'question', inquiryId: newInquiryId() };
}

/** The conversation's inquiry state as a store keeps it on the conversation. */
export interface InquiryState {
  /** The inquiry awaiting a reply to its clarification, if any. */
  readonly openInquiryId?: string;
  /** The inquiry of the conversation's latest user message. */
  readonly latestInquiryId?: string;
}

/**
 * The open inquiry after an assistant turn. Only a complete clarification opens (or keeps open)
 * its inquiry, and only while that inquiry is still the conversation's latest: an answer to an
 * older message (a retry finishing late, a generation overtaken by a newer question) never
 * hijacks the newer inquiry. Any other answer — results, failed, stopped, a truncated
 * clarification — closes its own inquiry and leaves another open one alone.
 */
export function openInquiryAfterAssistantTurn(
  state: InquiryState,
  answer: {
    readonly inquiryId: string;
    readonly kind: 'clarification' | 'answer';
    readonly status: Turn['status'];
  },
): string | undefined {
  const awaitsReply = answer.kind === 'clarification' && answer.status === 'complete';
  if (awaitsReply && state.latestInquiryId === answer.inquiryId) return answer.inquiryId;
  return state.openInquiryId === answer.inquiryId ? undefined : state.openInquiryId;
}

const MAX_TITLE_LENGTH = 60;

/** The sidebar title of a new conversation: the first message on one line, about 60 characters. */
export function titleFromText(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  // Count code points, not UTF-16 units, so a surrogate pair (emoji) is never cut in half.
  const characters = Array.from(oneLine);
  if (characters.length === 0) return 'New conversation';
  if (characters.length <= MAX_TITLE_LENGTH) return oneLine;
  return `${characters
    .slice(0, MAX_TITLE_LENGTH - 1)
    .join('')
    .trimEnd()}…`;
}
