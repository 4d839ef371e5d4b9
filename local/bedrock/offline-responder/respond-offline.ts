import type { ConverseWireRequest } from '../recorded-requests.js';
import { OFFLINE_GENERATORS } from './offline-generators.js';
import { type OfflineRequest, readOfflineRequest } from './offline-request.js';
import { schemaShapedInput } from './schema-shaped-input.js';
import { createSeededRandom, type SeededRandom } from './seeded-random.js';

/** The offline responder's answer to one ConverseStream request, ready to stream. */
export interface OfflineResponse {
  readonly toolUseId: string;
  readonly toolName: string;
  readonly fragments: readonly string[];
  readonly stopReason: 'tool_use' | 'max_tokens';
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** A rough token count for mixed Japanese/English text; only used for usage and maxTokens. */
export const OFFLINE_CHARS_PER_TOKEN = 3;
const CHARS_PER_TOKEN = OFFLINE_CHARS_PER_TOKEN;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const MIN_FRAGMENT_CHARS = 1;
const MAX_FRAGMENT_CHARS = 24;

/**
 * The offline model: answers a forced-tool ConverseStream request by the tool's name — the
 * generator registered for it in `OFFLINE_GENERATORS`, else an input shaped by the tool's schema
 * — from the request's data: the messages and their markup elements, the answer language among
 * them (`readOfflineRequest`). Never from the system prompt or any description, so rewording the
 * instructions changes nothing here. Deterministic: seeded by the tool's name and the messages.
 * The answer's keys follow the input schema; if it exceeds `inferenceConfig.maxTokens` it is cut
 * there and stops with `max_tokens`, like a real model.
 * @throws OfflineRequestError when the request has no tool or no user message
 */
export function respondOffline(body: ConverseWireRequest): OfflineResponse {
  const request = readOfflineRequest(body);
  // Seeded by the data only: reworded instructions give the same answer, and a smaller maxTokens
  // cuts the same answer short, as a real model at temperature 0 would.
  const random = createSeededRandom(
    JSON.stringify({ tool: request.toolName, messages: request.messages }),
  );
  const answer = generate(request, random);
  const input = JSON.stringify(orderByInputSchema(answer, request.inputSchema));

  const budget = (request.maxTokens ?? Number.POSITIVE_INFINITY) * CHARS_PER_TOKEN;
  const fragments: string[] = [];
  let sent = 0;
  for (const fragment of splitIntoFragments(input, random)) {
    if (sent + fragment.length > budget) break;
    fragments.push(fragment);
    sent += fragment.length;
  }
  const toolUseId = `tooluse_${Array.from({ length: 22 }, () => random.pick([...BASE62])).join('')}`;

  return {
    toolUseId,
    toolName: request.toolName,
    fragments,
    stopReason: sent < input.length ? 'max_tokens' : 'tool_use',
    // A longer prompt costs more input tokens, as with a real model.
    inputTokens: Math.ceil(JSON.stringify(body).length / CHARS_PER_TOKEN),
    outputTokens: Math.ceil(sent / CHARS_PER_TOKEN),
  };
}

function generate(
  request: OfflineRequest,
  random: SeededRandom,
): Readonly<Record<string, unknown>> {
  const generator = OFFLINE_GENERATORS.get(request.toolName);
  return generator ? generator(request, random) : schemaShapedInput(request);
}

/**
 * Puts the answer's keys in the order of the tool's JSON Schema `properties`, as Claude tends to
 * emit them (AWS_NOTES §3.3), and drops keys the schema forbids (`additionalProperties: false`).
 * Without usable `properties` the answer is returned as is.
 */
function orderByInputSchema(
  answer: Readonly<Record<string, unknown>>,
  inputSchema: unknown,
): Record<string, unknown> {
  const schema = inputSchema as { properties?: unknown; additionalProperties?: unknown } | null;
  if (typeof schema?.properties !== 'object' || schema.properties === null) return { ...answer };
  const declared = Object.keys(schema.properties);
  const extra = Object.keys(answer).filter((key) => !declared.includes(key));
  const keys = [...declared, ...(schema.additionalProperties === false ? [] : extra)];
  return Object.fromEntries(
    keys.filter((key) => answer[key] !== undefined).map((key) => [key, answer[key]]),
  );
}

/**
 * Cuts serialized tool input into 1–24 character fragments at arbitrary (seeded) positions.
 * Boundaries land anywhere: inside keys, inside strings, between a backslash and the escaped
 * character (made more likely on purpose, as that is where incremental parsers break), and,
 * since fragments are UTF-16 strings, possibly between the halves of a surrogate pair.
 */
function splitIntoFragments(text: string, random: SeededRandom): string[] {
  const fragments: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + random.integer(MIN_FRAGMENT_CHARS, MAX_FRAGMENT_CHARS));
    // Next character opens an escape: half of the time, cut right after the backslash instead.
    const opensEscape = text[end] === '\\' && text[end - 1] !== '\\';
    if (opensEscape && end - start < MAX_FRAGMENT_CHARS && random.next() < 0.5) end += 1;
    fragments.push(text.slice(start, end));
    start = end;
  }
  return fragments;
}
