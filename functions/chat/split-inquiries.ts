import type { Turn } from './conversation-store.js';

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
