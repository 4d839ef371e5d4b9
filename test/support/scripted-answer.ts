import type { ModelScript, StreamPause } from '../../local/bedrock/model-script.js';
import { splitIntoFragments } from './split-into-fragments.js';

/** A model stream that answers with `answer` as tool-input fragments of `size` characters. */
export function scriptedAnswer(
  answer: object,
  options: Partial<Extract<ModelScript, { kind: 'stream' }>> & { size?: number } = {},
): ModelScript {
  const { size = 7, ...rest } = options;
  return {
    kind: 'stream',
    fragments: splitIntoFragments(JSON.stringify(answer), [size]),
    delayMs: 0,
    ...rest,
  };
}

/** The advice {@link slowAnswer} streams. */
export const slowAdvice = 'プリンターのドライバーを再インストールしてください。'.repeat(4);

/**
 * A results answer that takes over a second to stream (6-character fragments 40 ms apart), so a
 * retry, a second copy or a crash lands while it is still being generated.
 */
export function slowAnswer(): ModelScript {
  return scriptedAnswer(
    { response_type: 'results', general_advice: slowAdvice, results: [] },
    { size: 6, delayMs: 40 },
  );
}

/**
 * A hold for a scripted stream after `fragments` fragments (`pauseAfter`), and its release: the
 * test looks at the mid-stream state for as long as it needs instead of racing a timed window.
 * Release it in a `finally`, or a failed check leaves the stream (and the stack's stop) waiting.
 */
export function streamHold(fragments: number): {
  readonly pause: StreamPause;
  readonly release: () => void;
} {
  let release = () => {};
  const until = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { pause: { fragments, until }, release };
}
