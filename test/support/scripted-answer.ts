import type { ModelScript } from '../../local/bedrock/model-script.js';
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
