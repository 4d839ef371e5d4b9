import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolInputParser } from '../../functions/tool-input/tool-input-parser.js';
import { createAnswerParser, runParser } from './support/run-tool-input-parser.js';

const ticket = { issue_id: '1234', subject: 'VPN', summary: 'VPN drops', resolution: 'New cert' };

describe('createToolInputParser', () => {
  it('streams advice as decoded deltas, one per fragment, and builds the value', () => {
    const { writes, result } = runParser([
      '{"response_type":"results","general_',
      'advice":"VPNに\\n接続',
      'できない \\ud83d',
      '\\ude00 ok"}',
    ]);
    expect(writes).toEqual([
      [],
      [{ type: 'text', field: 'general_advice', delta: 'VPNに\n接続' }],
      // The high surrogate waits for its low half: no delta ends inside a pair.
      [{ type: 'text', field: 'general_advice', delta: 'できない ' }],
      [{ type: 'text', field: 'general_advice', delta: '😀 ok' }],
    ]);
    expect(result).toEqual({
      value: { response_type: 'results', general_advice: 'VPNに\n接続できない 😀 ok' },
      truncated: false,
    });
  });

  it('emits each results element when its object closes, validated', () => {
    const parser = createAnswerParser();
    const json = JSON.stringify({ results: [ticket, { issue_id: '' }] });
    const closeFirst = json.indexOf('}') + 1;
    expect(parser.write(json.slice(0, closeFirst - 1))).toEqual([]);
    expect(parser.write(json.slice(closeFirst - 1, closeFirst))).toEqual([
      { type: 'element', field: 'results', index: 0, value: ticket },
    ]);
    const [invalid, ...rest] = parser.write(json.slice(closeFirst));
    expect(rest).toEqual([]);
    expect(invalid).toMatchObject({ type: 'invalid_element', field: 'results', index: 1 });
    expect(invalid?.type === 'invalid_element' && invalid.issues.length).toBeGreaterThan(0);
    expect(parser.end().value).toEqual({ results: [ticket, { issue_id: '' }] });
  });

  it('does not stream a general_advice key nested below the top level', () => {
    const { writes, result } = runParser([
      '{"meta":{"general_advice":"no","results":[{"issue_id":"1"}]},"general_advice":"yes"}',
    ]);
    expect(writes.flat()).toEqual([{ type: 'text', field: 'general_advice', delta: 'yes' }]);
    expect(result.value).toEqual({
      meta: { general_advice: 'no', results: [{ issue_id: '1' }] },
      general_advice: 'yes',
    });
  });

  it('does not stream when the top-level value is an array', () => {
    const { writes } = runParser(['[{"general_advice":"no","results":[1]}]']);
    expect(writes.flat()).toEqual([]);
  });

  it('treats keys, brackets and quotes inside strings as text', () => {
    const advice = 'say "}], \\"results\\": [{ ok';
    const { writes, result } = runParser([`{"general_advice":${JSON.stringify(advice)}}`]);
    expect(writes.flat()).toEqual([{ type: 'text', field: 'general_advice', delta: advice }]);
    expect(result.value).toEqual({ general_advice: advice });
  });

  it('keeps __proto__ an own property, as JSON.parse does', () => {
    const { result } = runParser(['{"__proto__":{"polluted":true},"a":1}']);
    const value = result.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(value).toEqual(JSON.parse('{"__proto__":{"polluted":true},"a":1}'));
  });

  it('lets the last duplicate key win, as JSON.parse does', () => {
    expect(runParser(['{"a":1,"b":2,"a":3}']).result.value).toEqual({ a: 3, b: 2 });
  });

  it.each([
    ['"\\uD800"', '\ud800'],
    ['"\\uDFAA"', '\udfaa'],
    ['-0', -0],
    ['1E400', Number.POSITIVE_INFINITY],
    ['1e-999', 0],
    ['[1e+2, 0.5E-1, -12.5e3]', [100, 0.05, -12500]],
    ['{"":""}', { '': '' }],
    ['"\\u0000\\/\\b\\f\\t"', '\u0000/\b\f\t'],
    [' \r\n\t{ } ', {}],
  ])('parses the valid edge case %s', (text, expected) => {
    expect(runParser([...text]).result).toEqual({ value: expected, truncated: false });
  });

  it('completes a top-level number at the end of input, and not before', () => {
    const parser = createAnswerParser();
    parser.write('12');
    parser.write('.5');
    expect(parser.end()).toEqual({ value: 12.5, truncated: false });
    expect(runParser(['12.']).result).toEqual({ value: undefined, truncated: true });
  });

  it('returns the partial answer when the input stops early', () => {
    const { result } = runParser([
      '{"response_type":"results","reasoning":"unfinished',
      // general_advice and results come later in this order, so nothing else is there yet.
    ]);
    expect(result).toEqual({ value: { response_type: 'results' }, truncated: true });
    const cut = runParser([
      `{"general_advice":"Try this","results":[${JSON.stringify(ticket)},{"issue_id":"9`,
    ]).result;
    expect(cut).toEqual({
      value: { general_advice: 'Try this', results: [ticket] },
      truncated: true,
    });
  });

  it('is idempotent after end and ignores writes after it', () => {
    const parser = createAnswerParser();
    parser.write('{"general_advice":"a"}');
    const first = parser.end();
    expect(parser.write('{"general_advice":"b"}')).toEqual([]);
    expect(parser.end()).toBe(first);
  });

  it('reports a throwing schema as an invalid element instead of throwing', () => {
    const exploding = z.string().refine(() => {
      throw new Error('boom');
    });
    const parser = createToolInputParser({ textFields: [], arrayFields: { items: exploding } });
    expect(parser.write('{"items":["x"]}')).toMatchObject([
      { type: 'invalid_element', field: 'items', index: 0, issues: [{ message: 'boom' }] },
    ]);
  });

  it('types element values by field', () => {
    const parser = createAnswerParser();
    for (const event of parser.write(`{"results":[${JSON.stringify(ticket)}]}`)) {
      if (event.type === 'element' && event.field === 'results') {
        expect(event.value.issue_id).toBe('1234');
      }
    }
  });
});
