import type { ConverseWireRequest } from '../recorded-requests.js';
import { buildClarificationAnswer } from './build-clarification-answer.js';
import { buildResultsAnswer } from './build-results-answer.js';
import { createSeededRandom } from './create-seeded-random.js';
import { detectInquiryLanguage } from './detect-inquiry-language.js';
import { findClarificationOptions } from './find-clarification-options.js';
import { orderByInputSchema } from './order-by-input-schema.js';
import { readOfflinePrompt } from './read-offline-prompt.js';
import { splitIntoFragments } from './split-into-fragments.js';

/** The offline responder's answer to one ConverseStream request, ready to stream. */
export interface OfflineResponse {
  readonly toolUseId: string;
  readonly toolName: string;
  readonly fragments: readonly string[];
  readonly stopReason: 'tool_use' | 'max_tokens';
  readonly inputTokens: number;
  readonly outputTokens: number;
}

// A rough token count for mixed Japanese/English text; only used for usage and maxTokens.
const CHARS_PER_TOKEN = 3;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * The offline model: answers a forced-tool ConverseStream request from what the request carries
 * (see `readOfflinePrompt`), in the inquiry's language, deterministically (seeded by the request
 * body without `inferenceConfig`). It asks back when the inquiry is short and the tickets disagree
 * (`findClarificationOptions`), otherwise answers with results that cite only tickets present in
 * the request. If the answer exceeds `inferenceConfig.maxTokens` it is cut there and stops with
 * `max_tokens`, like a real model.
 * @throws OfflineRequestError when the request has no tool or no user message
 */
export function respondOffline(body: ConverseWireRequest): OfflineResponse {
  const prompt = readOfflinePrompt(body);
  const serializedRequest = JSON.stringify(body);
  // Seeded without inferenceConfig: a smaller maxTokens cuts the same answer short, as it would
  // with a real model at temperature 0, instead of producing a different one.
  const { inferenceConfig: _ignored, ...content } = body;
  const random = createSeededRandom(JSON.stringify(content));
  const language = detectInquiryLanguage(prompt.inquiries.join('\n'));
  const options = findClarificationOptions(prompt, language);
  const answer =
    options === undefined
      ? buildResultsAnswer(prompt, language, random)
      : buildClarificationAnswer(prompt, options, language, random);
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
