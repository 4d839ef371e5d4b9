import type { Bubble } from './bubble.js';

/**
 * Where "Hand-off summary" appears (ADR 0024): under the last answer bubble on screen of each
 * inquiry, solved or not — a failed answer, an open clarification or one without results is
 * exactly what gets escalated. Keyed by bubble id, the inquiry id as value. An answer still
 * streaming is left out: its inquiry is not summarized until the answer ends.
 */
export function selectHandoffPlaces(shown: readonly Bubble[]): ReadonlyMap<string, string> {
  const lastAnswer = new Map<string, Bubble>();
  for (const bubble of shown) {
    if (bubble.kind === 'assistant' && bubble.inquiryId !== undefined) {
      lastAnswer.set(bubble.inquiryId, bubble);
    }
  }
  const places = new Map<string, string>();
  for (const [inquiryId, bubble] of lastAnswer) {
    if (bubble.kind === 'assistant' && bubble.status !== 'streaming')
      places.set(bubble.id, inquiryId);
  }
  return places;
}
