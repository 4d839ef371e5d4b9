// From the contract, not `ports.ts` (which re-exports it): ports import this file's InquiryIntent.
import type { Turn } from '../contract/conversations.js';
import { findTicketReferences } from '../contract/ticket-references.js';
import { AnswerInProgressError, NotLatestQuestionError } from './errors.js';

/**
 * Domain rules about inquiries, independent of storage: splitting a conversation into the open
 * inquiry and the archive, which inquiry a message belongs to, ticket references typed by staff
 * and a conversation's title.
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
 * The current versions of a conversation: without user turns that a later turn superseded
 * (regenerate or edit, ADR 0010) and without the answers to them — every turn after a superseded
 * user turn up to the next user turn. History is append-only, so the earlier versions stay
 * stored and shown; only context assembly and the inquiry's own text leave them out. Only the
 * latest user turn can be superseded, and not while its answer is being generated
 * (`placeSupersedingTurn`), so no answer to an old version lands after its replacement.
 */
export function currentVersions<T extends Pick<Turn, 'seq' | 'role' | 'supersedes'>>(
  turns: readonly T[],
): readonly T[] {
  const superseded = new Set<number>();
  for (const turn of turns) if (turn.supersedes !== undefined) superseded.add(turn.supersedes);
  if (superseded.size === 0) return turns;
  let insideSuperseded = false;
  return turns.filter((turn) => {
    if (turn.role === 'user') insideSuperseded = superseded.has(turn.seq);
    return !insideSuperseded;
  });
}

/**
 * Splits a conversation's current versions (`currentVersions`) into the working buffer (the
 * inquiry `openInquiryId`) and the archive (all other inquiries). Incomplete assistant turns are
 * left out of both, and so are superseded turns and their answers.
 */
export function splitInquiries(turns: readonly Turn[], openInquiryId: string): SplitInquiries {
  const byInquiry = new Map<string, Turn[]>();
  for (const turn of currentVersions(turns)) {
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
    // A screenshot is archived as what was read from it, never as the image (ADR 0030).
    const seen = group.findLast((turn) => turn.attachmentReading)?.attachmentReading?.description;
    archive.push({
      inquiryId,
      question: [userTexts[0] ?? '', seen ? `[screenshot: ${seen}]` : '']
        .filter((part) => part.trim() !== '')
        .join(' '),
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

/** The latest user turn of a conversation, as the store knows it when it commits. */
export interface LatestUserTurn {
  readonly seq: number;
  readonly kind: 'question' | 'option';
  readonly inquiryId: string;
}

/** Where a regenerated or edited message goes: in place of the turn it supersedes. */
export interface SupersedingPlacement extends UserTurnPlacement {
  readonly supersedes: number;
}

/**
 * A regenerate or edit replaces the conversation's latest user turn (ADR 0010): the new turn is
 * the same inquiry (an edited question is still the inquiry it was — the contamination rules hold)
 * and of the same kind (a question stays a question, a reply to a clarification stays a reply).
 * Refused when `supersedes` is not the latest user turn — an older turn has later turns built on
 * it — and while that turn's answer is still being generated (an answer landing after its
 * replacement would be mistaken for the new one's). Decided by the store against the state it
 * commits on, like `placeUserTurn`.
 */
export function placeSupersedingTurn(
  latest: LatestUserTurn | undefined,
  supersedes: number,
  answering: { readonly seq: number; readonly until: string } | undefined,
  now: Date,
): SupersedingPlacement {
  if (latest === undefined || latest.seq !== supersedes) throw new NotLatestQuestionError();
  if (answering?.seq === supersedes && Date.parse(answering.until) > now.getTime()) {
    throw new AnswerInProgressError();
  }
  return { kind: latest.kind, inquiryId: latest.inquiryId, supersedes };
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
