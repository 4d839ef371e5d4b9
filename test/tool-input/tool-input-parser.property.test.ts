import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerLike, fragmentSizes, wrongTypes } from '../support/answer-arbitraries.js';
import { splitIntoFragments } from '../support/split-into-fragments.js';
import { completedLengths } from './support/decode-completed-prefix.js';
import { ARRAY_FIELDS, runParser, TEXT_FIELDS } from './support/run-tool-input-parser.js';
import { type Serialized, serializeJson } from './support/serialize-json.js';

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** `expect` is too slow to call per event over thousands of runs; this throws only on failure. */
function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

/** Runs the parser over one fragmentation of `serialized` and checks every streaming promise. */
function checkStreaming({ text, members }: Serialized, sizes: readonly number[]): void {
  const expected = JSON.parse(text) as unknown;
  const fragments = splitIntoFragments(text, sizes);
  const { writes, result } = runParser(fragments);
  let total = 0;
  const fragmentEnds = fragments.map((fragment) => {
    total += fragment.length;
    return total;
  });

  expect(result).toEqual({ value: expected, truncated: false });

  const root = (
    expected !== null && typeof expected === 'object' && !Array.isArray(expected) ? expected : {}
  ) as Record<string, unknown>;
  const lengthsByField = new Map<string, number[]>();
  for (const field of TEXT_FIELDS) {
    const span = members.get(field);
    if (span === undefined || typeof root[field] !== 'string') continue;
    lengthsByField.set(field, completedLengths(text.slice(span.valueStart + 1, span.valueEnd - 1)));
  }
  let consumed = 0;
  const streamed = new Map<string, string>();
  const elementWrite = new Map<string, number[]>();
  writes.forEach((events, writeIndex) => {
    consumed += fragments[writeIndex]?.length ?? 0;
    const fieldsThisWrite = new Set<string>();
    for (const event of events) {
      check(event.type !== 'error', 'no error on valid input');
      if (event.type === 'text') {
        check(!fieldsThisWrite.has(event.field), 'one delta per field per write');
        fieldsThisWrite.add(event.field);
        check(event.delta !== '', 'no empty delta');
        const before = streamed.get(event.field) ?? '';
        check(
          !(isHigh(before.charCodeAt(before.length - 1)) && isLow(event.delta.charCodeAt(0))),
          'a delta boundary splits a surrogate pair',
        );
        streamed.set(event.field, before + event.delta);
      } else if (event.type === 'element' || event.type === 'invalid_element') {
        const list = elementWrite.get(event.field) ?? [];
        check(event.index === list.length, 'elements in order');
        list.push(writeIndex);
        elementWrite.set(event.field, list);
        const raw = (root[event.field] as unknown[])[event.index];
        const outcome = ARRAY_FIELDS[event.field].safeParse(raw);
        check(event.type === (outcome.success ? 'element' : 'invalid_element'), 'validated');
        if (event.type === 'element') expect(event.value).toEqual(outcome.data);
      }
    }
    // Every decoded character arrives with the fragment that completes it.
    for (const [field, lengths] of lengthsByField) {
      const span = members.get(field);
      if (span === undefined || consumed <= span.valueStart) continue;
      const closed = consumed >= span.valueEnd;
      const rawLength = Math.min(consumed, span.valueEnd - 1) - span.valueStart - 1;
      const expected = closed ? (root[field] as string).length : (lengths[rawLength] ?? -1);
      check(
        (streamed.get(field) ?? '').length === expected,
        `${field}: after fragment ${writeIndex} expected ${expected} decoded units`,
      );
    }
  });

  for (const field of TEXT_FIELDS) {
    expect(streamed.get(field)).toBe(
      typeof root[field] === 'string' && root[field] !== '' ? root[field] : undefined,
    );
  }
  for (const field of Object.keys(ARRAY_FIELDS)) {
    const value = root[field];
    const span = members.get(field);
    const expectedWrites = (Array.isArray(value) ? (span?.elementEnds ?? []) : []).map(
      (end, index) => {
        const closingIndex = span?.elementIsNumber[index] ? end : end - 1;
        return fragmentEnds.findIndex((fragmentEnd) => fragmentEnd > closingIndex);
      },
    );
    expect(elementWrite.get(field) ?? [], `elements of ${field} emitted when they close`).toEqual(
      expectedWrites,
    );
  }
}

const seed = fc.integer();

describe('createToolInputParser (properties)', () => {
  it('streams answer-shaped input exactly, whatever the formatting and fragmentation', () => {
    fc.assert(
      fc.property(answerLike, seed, fragmentSizes, (answer, formatSeed, sizes) => {
        checkStreaming(serializeJson(answer, formatSeed), sizes);
      }),
      { numRuns: 3000 },
    );
  });

  it('never streams streamed keys that hold another type or sit deeper', () => {
    fc.assert(
      fc.property(wrongTypes, seed, fragmentSizes, (answer, formatSeed, sizes) => {
        checkStreaming(serializeJson(answer, formatSeed), sizes);
      }),
      { numRuns: 1500 },
    );
  });

  it('parses any JSON value like JSON.parse', () => {
    fc.assert(
      fc.property(fc.jsonValue(), seed, fragmentSizes, (value, formatSeed, sizes) => {
        checkStreaming(serializeJson(value, formatSeed), sizes);
      }),
      { numRuns: 2000 },
    );
  });
});
