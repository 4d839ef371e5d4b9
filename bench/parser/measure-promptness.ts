import type { Snapshot } from './competitors.js';
import type { AnswerPayload } from './make-answer-payload.js';

/** How promptly and how cleanly a consumer got the advice and the tickets. */
export interface Promptness {
  /** Fragments after which fewer decoded characters were available than the input completed. */
  lateFragments: number;
  /** Fragments after which more was shown than completed (half an escape or half a pair). */
  earlyFragments: number;
  /** Fragments after which the shown advice was not a prefix of the real advice. */
  wrongFragments: number;
  /** New pieces of advice that start or end inside a surrogate pair. */
  splitPairPieces: number;
  /** Results elements reported after the fragment that closed them. */
  lateElements: number;
}

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * Decoded advice units complete after each raw character of the string body: an escape counts
 * when its last character arrives; a high surrogate waits for its pair (same rule as the tests).
 */
function completedLengths(body: string): number[] {
  const lengths = [0];
  let decoded = 0;
  let pendingHigh = false;
  for (let index = 0; index < body.length; ) {
    const width = body[index] !== '\\' ? 1 : body[index + 1] === 'u' ? 6 : 2;
    const unit =
      width === 6 ? Number.parseInt(body.slice(index + 2, index + 6), 16) : body.charCodeAt(index);
    for (let step = 1; step < width; step++) lengths.push(decoded - (pendingHigh ? 1 : 0));
    decoded++;
    pendingHigh = width !== 2 && isHigh(unit);
    lengths.push(decoded - (pendingHigh ? 1 : 0));
    index += width;
  }
  return lengths;
}

/** Compares what a consumer held after each fragment with what the input had completed. */
export function measurePromptness(
  payload: AnswerPayload,
  fragments: readonly string[],
  snapshots: readonly Snapshot[],
): Promptness {
  const { text, adviceStart, adviceEnd, advice, elementCloses } = payload;
  const lengths = completedLengths(text.slice(adviceStart + 1, adviceEnd - 1));
  const result: Promptness = {
    lateFragments: 0,
    earlyFragments: 0,
    wrongFragments: 0,
    splitPairPieces: 0,
    lateElements: 0,
  };
  let consumed = 0;
  let shown = '';
  let nextElement = 0;
  fragments.forEach((fragment, index) => {
    consumed += fragment.length;
    const snapshot = snapshots[index] ?? { advice: '', completeElements: 0 };
    let expected = 0;
    if (consumed >= adviceEnd) expected = advice.length;
    else if (consumed > adviceStart) expected = lengths[consumed - adviceStart - 1] ?? 0;
    if (!advice.startsWith(snapshot.advice)) result.wrongFragments++;
    else if (snapshot.advice.length < expected) result.lateFragments++;
    else if (snapshot.advice.length > expected) result.earlyFragments++;
    if (snapshot.advice !== shown && snapshot.advice.startsWith(shown)) {
      const start = shown.length;
      const end = snapshot.advice.length;
      if (isLow(advice.charCodeAt(start)) && isHigh(advice.charCodeAt(start - 1))) {
        result.splitPairPieces++;
      }
      if (isHigh(advice.charCodeAt(end - 1)) && isLow(advice.charCodeAt(end))) {
        result.splitPairPieces++;
      }
    }
    shown = snapshot.advice;
    while (nextElement < elementCloses.length && (elementCloses[nextElement] ?? 0) < consumed) {
      if (snapshot.completeElements <= nextElement) result.lateElements++;
      nextElement++;
    }
  });
  return result;
}
