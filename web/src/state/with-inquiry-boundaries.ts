import type { Bubble } from './bubble.js';

/** A row of the message list: a bubble, or the line that opens a new inquiry. */
export type MessageRow =
  | { readonly type: 'bubble'; readonly bubble: Bubble }
  | { readonly type: 'boundary'; readonly inquiryId: string };

/**
 * Inserts a boundary wherever the inquiry changes, so staff see that an earlier question's
 * tickets and advice do not belong to the current one. Bubbles without an inquiry yet (the
 * message just sent, before `meta`) belong to whatever comes next and draw no line.
 */
export function withInquiryBoundaries(bubbles: readonly Bubble[]): MessageRow[] {
  const rows: MessageRow[] = [];
  let current: string | undefined;
  for (const bubble of bubbles) {
    const inquiryId = bubble.inquiryId;
    if (inquiryId !== undefined && inquiryId !== current) {
      if (current !== undefined) rows.push({ type: 'boundary', inquiryId });
      current = inquiryId;
    }
    rows.push({ type: 'bubble', bubble });
  }
  return rows;
}
