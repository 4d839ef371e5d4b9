import { isSolvedInquiry, type PublishedKnowledge } from '../../../functions/contract/knowledge.js';
import type { Bubble } from './bubble.js';

/**
 * Where the actions that belong to a whole inquiry appear — "Save as knowledge" (ADR 0011) and
 * "Hand-off summary" (ADR 0024): under the last answer bubble of that inquiry on screen.
 */

/** What an inquiry offers about knowledge capture, shown under its last answer on screen. */
export interface InquiryKnowledge {
  readonly inquiryId: string;
  /** The ticket this inquiry was published as. */
  readonly published?: PublishedKnowledge;
  /** Solved and not yet published: "Save as knowledge" applies. */
  readonly canSave: boolean;
}

/**
 * Where knowledge capture appears: for each inquiry that is published or solved (by the
 * contract's `isSolvedInquiry`, the rule the server enforces), the last answer bubble of it on
 * screen, keyed by bubble id. The rule reads every bubble, not only the version shown, because
 * it judges the newest answer; bubbles the server has not stored yet (no seq) cannot count.
 */
export function selectKnowledgePlaces(
  bubbles: readonly Bubble[],
  shown: readonly Bubble[],
  knowledge: readonly PublishedKnowledge[] = [],
): ReadonlyMap<string, InquiryKnowledge> {
  const turns = bubbles.flatMap((bubble) =>
    bubble.seq === undefined || bubble.inquiryId === undefined
      ? []
      : [
          bubble.kind === 'user'
            ? {
                seq: bubble.seq,
                role: 'user' as const,
                kind: 'question',
                inquiryId: bubble.inquiryId,
                status: 'complete',
              }
            : {
                seq: bubble.seq,
                role: 'assistant' as const,
                kind: bubble.result?.response_type === 'clarification' ? 'clarification' : 'answer',
                inquiryId: bubble.inquiryId,
                status: bubble.status,
                ...(bubble.result ? { result: bubble.result } : {}),
              },
        ],
  );
  const places = new Map<string, InquiryKnowledge>();
  for (const [inquiryId, { id: bubbleId }] of lastAnswerOfEachInquiry(shown)) {
    const published = knowledge.find((entry) => entry.inquiryId === inquiryId);
    const solved = isSolvedInquiry(turns, inquiryId);
    if (published) places.set(bubbleId, { inquiryId, published, canSave: false });
    else if (solved) places.set(bubbleId, { inquiryId, canSave: true });
  }
  return places;
}

/**
 * Where "Hand-off summary" appears: under the last answer bubble on screen of each inquiry,
 * solved or not — a failed answer, an open clarification or one without results is exactly what
 * gets escalated. Keyed by bubble id, the inquiry id as value. An answer still streaming is left
 * out: its inquiry is not summarized until the answer ends.
 */
export function selectHandoffPlaces(shown: readonly Bubble[]): ReadonlyMap<string, string> {
  const places = new Map<string, string>();
  for (const [inquiryId, bubble] of lastAnswerOfEachInquiry(shown)) {
    if (bubble.kind === 'assistant' && bubble.status !== 'streaming')
      places.set(bubble.id, inquiryId);
  }
  return places;
}

/** The last assistant bubble of each inquiry among `shown`, by inquiry id. */
function lastAnswerOfEachInquiry(shown: readonly Bubble[]): ReadonlyMap<string, Bubble> {
  const last = new Map<string, Bubble>();
  for (const bubble of shown) {
    if (bubble.kind === 'assistant' && bubble.inquiryId !== undefined) {
      last.set(bubble.inquiryId, bubble);
    }
  }
  return last;
}
