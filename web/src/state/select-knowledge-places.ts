import { isSolvedInquiry, type PublishedKnowledge } from '../../../functions/contract/knowledge.js';
import type { Bubble } from './bubble.js';

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
  const lastShownAnswer = new Map<string, string>();
  for (const bubble of shown) {
    if (bubble.kind === 'assistant' && bubble.inquiryId !== undefined) {
      lastShownAnswer.set(bubble.inquiryId, bubble.id);
    }
  }
  const places = new Map<string, InquiryKnowledge>();
  for (const [inquiryId, bubbleId] of lastShownAnswer) {
    const published = knowledge.find((entry) => entry.inquiryId === inquiryId);
    const solved = isSolvedInquiry(turns, inquiryId);
    if (published) places.set(bubbleId, { inquiryId, published, canSave: false });
    else if (solved) places.set(bubbleId, { inquiryId, canSave: true });
  }
  return places;
}
