import type { ModelScript } from '../../local/bedrock/model-script.js';

/** A model stream that answers with `answer` as tool-input fragments of `size` characters. */
export function scriptedAnswer(
  answer: object,
  options: Partial<Extract<ModelScript, { kind: 'stream' }>> & { size?: number } = {},
): ModelScript {
  const { size = 7, ...rest } = options;
  return {
    kind: 'stream',
    fragments: splitEvery(JSON.stringify(answer), size),
    delayMs: 0,
    ...rest,
  };
}

export function splitEvery(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let index = 0; index < text.length; index += size)
    pieces.push(text.slice(index, index + size));
  return pieces;
}
