import type { PromptNode } from '../../../functions/contract/prompt-markup.js';
import { lastUserText, type OfflineRequest, promptElementsOf } from './offline-request.js';

/**
 * The answer to a tool no generator knows (`OFFLINE_GENERATORS`): an input of the shape its JSON
 * Schema declares, each text the start of the last user message's data. A new model-backed
 * feature thus gets schema-shaped tool input from `npm start` at once; one whose screens need
 * more (a text made of the inquiry, a choice by rule) registers a generator of its own.
 */
export function schemaShapedInput(request: OfflineRequest): Record<string, unknown> {
  const value = valueFor(request.inputSchema, dataText(lastUserText(request)));
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

const MAX_TEXT_CHARS = 200;

/** The texts of a message's elements, in order (tags and attributes left out), else the text. */
function dataText(message: string): string {
  const elements = promptElementsOf(message);
  const texts = (nodes: readonly PromptNode[]): string[] =>
    nodes.flatMap((node) => (typeof node === 'string' ? [node] : texts(node.children)));
  const text = (elements.length > 0 ? texts(elements).join('\n') : message)
    .replace(/\s+/g, ' ')
    .trim();
  return Array.from(text).slice(0, MAX_TEXT_CHARS).join('');
}

interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly items?: JsonSchema;
  readonly minItems?: number;
  readonly minimum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
}

/** The first value the schema allows: the first enum member, `text` for a string, one item per array. */
function valueFor(schema: unknown, text: string): unknown {
  const node = (typeof schema === 'object' && schema !== null ? schema : {}) as JsonSchema;
  if (node.const !== undefined) return node.const;
  if (node.enum !== undefined && node.enum.length > 0) return node.enum[0];
  const alternative = node.anyOf?.[0] ?? node.oneOf?.[0];
  if (alternative !== undefined) return valueFor(alternative, text);
  const types = typeof node.type === 'string' ? [node.type] : (node.type ?? []);
  const type =
    types.find((candidate) => candidate !== 'null') ?? (node.properties ? 'object' : 'string');
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(node.properties ?? {}).map(([key, property]) => [
          key,
          valueFor(property, text),
        ]),
      );
    case 'array':
      return Array.from({ length: Math.max(1, node.minItems ?? 1) }, () =>
        valueFor(node.items, text),
      );
    case 'integer':
    case 'number':
      return node.minimum ?? 0;
    case 'boolean':
      return false;
    default: {
      const filled = text.padEnd(node.minLength ?? 1, '.');
      return Array.from(filled)
        .slice(0, node.maxLength ?? filled.length)
        .join('');
    }
  }
}
