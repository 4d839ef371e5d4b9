import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolInputSyntaxError } from '../../functions/tool-input/tool-input-parser.js';
import { answerLike } from '../support/answer-arbitraries.js';
import { splitIntoFragments } from '../support/split-into-fragments.js';
import { invalidJsonCorpus } from './support/invalid-json-corpus.js';
import { runParser } from './support/run-tool-input-parser.js';
import { serializeJson } from './support/serialize-json.js';

describe('createToolInputParser on invalid JSON', () => {
  it('has a corpus of at least 50 cases that JSON.parse rejects too', () => {
    expect(invalidJsonCorpus.length).toBeGreaterThanOrEqual(50);
    for (const [name, text] of invalidJsonCorpus) {
      expect(() => JSON.parse(text), name).toThrow(SyntaxError);
    }
  });

  it.each(invalidJsonCorpus)(
    'reports %s as a typed error at its position',
    (_name, text, position) => {
      for (const sizes of [[text.length], [1], [2, 3]]) {
        const { writes, result } = runParser([...splitIntoFragments(text, sizes), '"more input"']);
        const errors = writes.flat().filter((event) => event.type === 'error');
        expect(errors).toHaveLength(1);
        expect(writes.at(-1)).toEqual([]); // input after the error is ignored
        expect(result.truncated).toBe(false);
        expect(result.error).toBeInstanceOf(ToolInputSyntaxError);
        expect(result.error?.position).toBe(position);
        expect(errors[0]).toEqual({ type: 'error', error: result.error });
      }
    },
  );

  it('keeps the text streamed before the error in its partial value', () => {
    const { writes, result } = runParser(['{"general_advice":"abc', '\\x"}']);
    expect(writes).toEqual([
      [{ type: 'text', field: 'general_advice', delta: 'abc' }],
      [{ type: 'error', error: result.error }],
    ]);
    expect(result.value).toEqual({ general_advice: 'abc' });
    expect(result.error?.message).toBe('invalid escape in string at position 23');
  });

  it('agrees with JSON.parse on randomly damaged answers and stops at the first bad character', () => {
    const damage = fc.record({
      at: fc.nat(),
      kind: fc.constantFrom('insert', 'delete', 'replace'),
      char: fc.constantFrom(...'{}[]:,"\\ \n0-1.eEtfnu\u0000x\'/'),
    });
    fc.assert(
      fc.property(answerLike, fc.integer(), damage, (answer, seed, { at, kind, char }) => {
        const valid = serializeJson(answer, seed).text;
        const index = at % (valid.length + 1);
        const cutEnd = kind === 'insert' ? index : index + 1;
        const text = valid.slice(0, index) + (kind === 'delete' ? '' : char) + valid.slice(cutEnd);
        let expected: unknown;
        try {
          expected = JSON.parse(text);
        } catch {
          const { result } = runParser([text]);
          expect(result.error !== undefined || result.truncated).toBe(true);
          if (result.error !== undefined) {
            // Everything before the error position is a viable start of a JSON text.
            const position = result.error.position;
            expect(runParser([text.slice(0, position)]).result.error).toBeUndefined();
            expect(runParser([text.slice(0, position + 1)]).result.error?.position).toBe(position);
          }
          return;
        }
        expect(runParser([text]).result).toEqual({ value: expected, truncated: false });
      }),
      { numRuns: 1500 },
    );
  });
});
