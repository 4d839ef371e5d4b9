import { JSONParser } from '@streamparser/json';
import { parsePartialJson } from 'ai';
import { parse as parseBestEffort } from 'best-effort-json-parser';
import { parse as parsePartial } from 'partial-json';
import { modelTicketResultSchema, todoActionSchema } from '../../functions/contract/answer.js';
import { createToolInputParser } from '../../functions/tool-input/tool-input-parser.js';

/**
 * What a consumer holds after each fragment: the advice text it can show and how many results
 * elements it knows to be complete. `undefined` advice means "nothing yet".
 */
export interface Snapshot {
  advice: string;
  completeElements: number;
}

/** A way to consume the fragments: `run` for timing, `observe` for promptness. */
export interface Competitor {
  name: string;
  /** True when it re-parses the whole buffer per fragment (quadratic). */
  quadratic: boolean;
  run(fragments: readonly string[]): Promise<void> | void;
  observe(fragments: readonly string[]): Promise<Snapshot[]>;
}

const parserOptions = {
  textFields: ['general_advice', 'mail_draft'],
  arrayFields: { results: modelTicketResultSchema, todo_actions: todoActionSchema },
} as const;

/** Reads a re-parser's partial value; only elements followed by another are surely complete. */
function snapshotOf(value: unknown): Snapshot {
  const answer = (value ?? {}) as { general_advice?: unknown; results?: unknown };
  const results = Array.isArray(answer.results) ? answer.results : [];
  const advice = typeof answer.general_advice === 'string' ? answer.general_advice : '';
  return { advice, completeElements: Math.max(0, results.length - 1) };
}

function reparser(name: string, parse: (text: string) => unknown): Competitor {
  return {
    name,
    quadratic: true,
    run(fragments) {
      let buffer = '';
      for (const fragment of fragments) {
        buffer += fragment;
        try {
          parse(buffer);
        } catch {
          // Some re-parsers throw on a cut they cannot complete; a consumer would skip it.
        }
      }
    },
    async observe(fragments) {
      let buffer = '';
      const snapshots: Snapshot[] = [];
      let last: Snapshot = { advice: '', completeElements: 0 };
      for (const fragment of fragments) {
        buffer += fragment;
        try {
          last = snapshotOf(parse(buffer));
        } catch {}
        snapshots.push(last);
      }
      return snapshots;
    },
  };
}

export const competitors: Competitor[] = [
  {
    name: 'this parser',
    quadratic: false,
    run(fragments) {
      const parser = createToolInputParser(parserOptions);
      for (const fragment of fragments) parser.write(fragment);
      parser.end();
    },
    async observe(fragments) {
      const parser = createToolInputParser(parserOptions);
      let advice = '';
      let completeElements = 0;
      return fragments.map((fragment) => {
        for (const event of parser.write(fragment)) {
          if (event.type === 'text' && event.field === 'general_advice') advice += event.delta;
          if (event.type === 'element' && event.field === 'results') completeElements++;
        }
        return { advice, completeElements };
      });
    },
  },
  {
    name: '@streamparser/json',
    quadratic: false,
    run(fragments) {
      const parser = new JSONParser({ paths: ['$', '$.results.*'] });
      parser.onValue = () => {};
      for (const fragment of fragments) parser.write(fragment);
    },
    async observe(fragments) {
      // It emits a string only once it is complete; elements when they close.
      const parser = new JSONParser({ paths: ['$.general_advice', '$.results.*'] });
      let advice = '';
      let completeElements = 0;
      parser.onValue = ({ key, value }) => {
        if (key === 'general_advice') advice = value as string;
        else completeElements++;
      };
      return fragments.map((fragment) => {
        parser.write(fragment);
        return { advice, completeElements };
      });
    },
  },
  reparser('partial-json (re-parse)', (text) => parsePartial(text)),
  reparser('best-effort-json-parser (re-parse)', (text) => parseBestEffort(text)),
  {
    ...reparser('ai parsePartialJson (re-parse)', () => undefined),
    async run(fragments) {
      let buffer = '';
      for (const fragment of fragments) {
        buffer += fragment;
        await parsePartialJson(buffer);
      }
    },
    async observe(fragments) {
      let buffer = '';
      const snapshots: Snapshot[] = [];
      for (const fragment of fragments) {
        buffer += fragment;
        snapshots.push(snapshotOf((await parsePartialJson(buffer)).value));
      }
      return snapshots;
    },
  },
];

/** The ceiling: concatenate everything, then one native JSON.parse. */
export function concatThenParse(fragments: readonly string[]): void {
  let buffer = '';
  for (const fragment of fragments) buffer += fragment;
  JSON.parse(buffer);
}

/**
 * Not a parser: reads every character once with `charCodeAt` and compares it with the three
 * characters a JSON string scanner must stop at. A floor for any tokenizer written in JS.
 */
export function readEveryCharacter(fragments: readonly string[]): number {
  let stops = 0;
  for (const fragment of fragments) {
    for (let index = 0; index < fragment.length; index++) {
      const code = fragment.charCodeAt(index);
      if (code === 0x22 || code === 0x5c || code < 0x20) stops++;
    }
  }
  return stops;
}
