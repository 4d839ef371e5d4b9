import { createHash } from 'node:crypto';
import { detectLanguage } from '../../../functions/chat/inquiry-rules.js';
import { HANDOFF_TOOL_NAME } from '../../../functions/contract/handoff.js';
import { DRAFT_TOOL_NAME } from '../../../functions/contract/knowledge.js';
import { MAIL_DRAFT_TOOL_NAME } from '../../../functions/contract/mail-draft.js';
import type { ConverseWireRequest } from '../recorded-requests.js';
import { buildOfflineAnswer } from './offline-answers.js';
import { buildOfflineHandoffSummary, readHandoffTranscript } from './offline-handoff-summary.js';
import { buildOfflineMailDraft, readRefineRequest } from './offline-mail-draft.js';
import { buildOfflineTicketDraft, readDraftTranscript } from './offline-ticket-draft.js';
import { type OfflinePrompt, readOfflinePrompt } from './read-offline-prompt.js';

/** The offline responder's answer to one ConverseStream request, ready to stream. */
export interface OfflineResponse {
  readonly toolUseId: string;
  readonly toolName: string;
  readonly fragments: readonly string[];
  readonly stopReason: 'tool_use' | 'max_tokens';
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** A deterministic pseudo-random source. */
export interface SeededRandom {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max]. */
  integer(min: number, max: number): number;
  /** One of `items`, which must not be empty. */
  pick<T>(items: readonly T[]): T;
}

/** A rough token count for mixed Japanese/English text; only used for usage and maxTokens. */
export const OFFLINE_CHARS_PER_TOKEN = 3;
const CHARS_PER_TOKEN = OFFLINE_CHARS_PER_TOKEN;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const MIN_FRAGMENT_CHARS = 1;
const MAX_FRAGMENT_CHARS = 24;

/**
 * The offline model: answers a forced-tool ConverseStream request from what the request carries
 * (see `readOfflinePrompt`), in the inquiry's language, deterministically (seeded by the request
 * body without `inferenceConfig`). It asks back when the inquiry is short and the tickets disagree,
 * otherwise answers with results that cite only tickets present in the request
 * (`buildOfflineAnswer`). Asked for `submit_ticket_draft` (knowledge capture), it drafts a
 * ticket from the inquiry's transcript instead (`buildOfflineTicketDraft`); for
 * `submit_handoff_summary`, the inquiry's hand-off summary (`buildOfflineHandoffSummary`); for
 * `submit_mail_draft` it rewrites the e-mail draft in the requested style (`buildOfflineMailDraft`). If the answer exceeds `inferenceConfig.maxTokens` it is cut there and
 * stops with `max_tokens`, like a real model.
 * @throws OfflineRequestError when the request has no tool or no user message
 */
export function respondOffline(body: ConverseWireRequest): OfflineResponse {
  const prompt = readOfflinePrompt(body);
  const serializedRequest = JSON.stringify(body);
  // Seeded without inferenceConfig: a smaller maxTokens cuts the same answer short, as it would
  // with a real model at temperature 0, instead of producing a different one.
  const { inferenceConfig: _ignored, ...content } = body;
  const random = createSeededRandom(JSON.stringify(content));
  const answer =
    prompt.toolName === DRAFT_TOOL_NAME
      ? buildOfflineTicketDraft(
          readDraftTranscript(prompt.lastUserText),
          allowedCategories(prompt.inputSchema),
        )
      : prompt.toolName === HANDOFF_TOOL_NAME
        ? buildOfflineHandoffSummary(
            readHandoffTranscript(prompt.lastUserText),
            requestedLanguage(body),
          )
        : prompt.toolName === MAIL_DRAFT_TOOL_NAME
          ? buildOfflineMailDraft(readRefineRequest(prompt.lastUserText))
          : buildOfflineAnswer(prompt, detectLanguage(prompt.inquiries.join('\n')), random);
  const input = JSON.stringify(orderByInputSchema(answer, prompt.inputSchema));

  const budget = (prompt.maxTokens ?? Number.POSITIVE_INFINITY) * CHARS_PER_TOKEN;
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
    toolName: prompt.toolName,
    fragments,
    stopReason: sent < input.length ? 'max_tokens' : 'tool_use',
    inputTokens: Math.ceil(serializedRequest.length / CHARS_PER_TOKEN),
    outputTokens: Math.ceil(sent / CHARS_PER_TOKEN),
  };
}

/**
 * The language the system prompt asks for (`Write every text field in Japanese.`), as a model
 * would follow it; undefined when it names none (then the inquiry's language).
 */
function requestedLanguage(body: ConverseWireRequest): 'ja' | 'en' | undefined {
  const system = (body.system ?? []).map((block) => block.text ?? '').join('\n');
  const named = /Write every text field in (Japanese|English)\b/.exec(system)?.[1];
  return named === undefined ? undefined : named === 'Japanese' ? 'ja' : 'en';
}

/** The `category` enum of the draft tool's input schema, if it has one. */
function allowedCategories(inputSchema: OfflinePrompt['inputSchema']): string[] | undefined {
  const category = (inputSchema as { properties?: { category?: { enum?: unknown } } } | null)
    ?.properties?.category?.enum;
  return Array.isArray(category) && category.every((value) => typeof value === 'string')
    ? category
    : undefined;
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

/**
 * mulberry32 seeded from the SHA-256 of `seed`: the same request body always yields the same
 * answer and the same fragment boundaries, so a failing test replays exactly.
 */
function createSeededRandom(seed: string): SeededRandom {
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0);
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const integer = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => {
    if (items.length === 0) throw new RangeError('pick needs at least one item');
    return items[integer(0, items.length - 1)] as T;
  };
  return { next, integer, pick };
}
