import { DailyBudgetExceededError } from '../chat/errors.js';
import type { Log } from '../chat/log.js';
import type { ChatConfig, ChatModelRequest, ModelUsage, Owner } from '../chat/ports.js';
import type { ModelCallFailure } from './forced-tool.js';

/**
 * The daily token budget's rules (ADR 0012): a model call reserves the most it can cost before
 * anything is written, by one conditional write that admits it only while the day's committed
 * tokens (spent plus reserved) are below the limit; it settles to what it really used when it
 * ends, and gives everything back when it never called the model. So every admitted call found
 * the budget not yet used up, and once it is, nothing more is admitted until settlements bring
 * the count back under: at most one call over the limit, however many run at once.
 *
 * One module for the budget: its port (`DailyBudget`; `adapters/dynamodb/counters.ts` implements
 * it), the reservation, the bounds and the charge, used through `open-model-call.ts` by every
 * model call. Its refusal, `DailyBudgetExceededError`, stays with the other refusals in
 * `chat/errors.ts`.
 */

/**
 * A per-user daily token budget: one counter per owner and UTC day of the tokens committed —
 * spent, plus reserved by model calls still running (ADR 0012; the rules below). The DynamoDB
 * adapter keeps it beside the idempotency markers.
 */
export interface DailyBudget {
  /**
   * One atomic conditional write: adds `tokens` to the day's committed tokens if they are below
   * `limit`, and returns false, adding nothing, if they are not.
   */
  reserve(owner: Owner, day: string, tokens: number, limit: number): Promise<boolean>;
  /** Adds `tokens` to the day's committed tokens, whatever they are; negative gives back. */
  adjust(owner: Owner, day: string, tokens: number): Promise<void>;
}

/** A call's hold on the day's budget, from admission until it settles. */
export interface BudgetReservation {
  /**
   * Holds `bound` tokens instead of what it holds now: the request is built and its bound known.
   * Never rejects: a failed write is logged, and since it may still have been applied, the
   * reservation counts on the lesser of the two (see `createReservation`).
   */
  resize(bound: number): Promise<void>;
  /**
   * Ends the reservation: the day is charged `tokens` instead of the bound (0 gives it all back).
   * Later calls do nothing. Never rejects: a failed write is logged and leaves the day charged
   * the bound — too much, never too little — until the counter expires with its day.
   */
  settle(tokens: number): Promise<void>;
}

/**
 * Reserves `bound` tokens of the owner's budget for today (UTC), or refuses: over the budget
 * nothing happens — no turn is written, no retrieval or model call is made — and the 429 says
 * when the budget resets (midnight UTC). Undefined when there is no budget.
 */
export async function reserveWithinBudget(
  owner: Owner,
  now: Date,
  bound: number,
  dependencies: {
    config: Pick<ChatConfig, 'dailyTokenBudget'>;
    budget?: DailyBudget;
    /** Where a failed counter write is reported. */
    log: Log;
  },
): Promise<BudgetReservation | undefined> {
  const limit = dependencies.config.dailyTokenBudget;
  const { budget } = dependencies;
  if (!budget || limit <= 0) return undefined;
  // The reservation's day is the day it was made: a call running past midnight settles there.
  const day = now.toISOString().slice(0, 10);
  if (await budget.reserve(owner, day, bound, limit)) {
    return createReservation(budget, owner, day, bound, dependencies.log);
  }
  const resetsAt = new Date(`${day}T00:00:00.000Z`);
  resetsAt.setUTCDate(resetsAt.getUTCDate() + 1);
  throw new DailyBudgetExceededError(resetsAt, now);
}

function createReservation(
  budget: DailyBudget,
  owner: Owner,
  day: string,
  reserved: number,
  log: Log,
): BudgetReservation {
  // What the counter surely holds for this call: the next write moves it from here.
  let held = reserved;
  let settled = false;
  // One write at a time, each moving the count from what the last write surely left. A failed
  // write may still have been applied (its response lost), so it counts as whichever outcome
  // leaves less held: a failed raise as not applied, a failed cut (a resize down, ≈ 33k
  // tokens for a chat) as applied — the settlement then never gives back tokens the counter
  // no longer holds, and a lost write can only leave the day charged too much, never too little.
  let writes = Promise.resolve();
  const hold = (tokens: number) => {
    writes = writes.then(async () => {
      try {
        await budget.adjust(owner, day, tokens - held);
        held = tokens;
      } catch (error) {
        held = Math.min(held, tokens);
        log.error('could not adjust the daily budget reservation', { error });
      }
    });
    return writes;
  };
  return {
    resize: (bound) => (settled ? writes : hold(bound)),
    settle(tokens) {
      if (settled) return writes;
      settled = true;
      return hold(tokens);
    },
  };
}

/** Claude's tool-use system prompt (a few hundred tokens, ADR 0009) and each message's framing. */
const REQUEST_OVERHEAD_TOKENS = 1000;
const MESSAGE_OVERHEAD_TOKENS = 10;

/**
 * The most a model request can cost: its prompt counted high (`tokensAtMost`) plus every output
 * token it may write.
 */
export function requestBound(request: Omit<ChatModelRequest, 'signal'>): number {
  return (
    REQUEST_OVERHEAD_TOKENS +
    request.messages.length * MESSAGE_OVERHEAD_TOKENS +
    tokensAtMost(promptTextOf(request)) +
    request.messages.reduce(
      (sum, message) =>
        sum + (message.images ?? []).reduce((of, image) => of + imageTokens(image), 0),
      0,
    ) +
    request.maxTokens
  );
}

/** The long edge the model scales an image down to before reading it. */
const MODEL_IMAGE_LONG_EDGE = 1568;

/**
 * The tokens one image costs the model: about width × height / 750 (Anthropic's rule of thumb),
 * of the image as the model reads it — scaled down to a long edge of 1,568 pixels.
 */
export function imageTokens(image: { readonly width: number; readonly height: number }): number {
  const scale = Math.min(1, MODEL_IMAGE_LONG_EDGE / Math.max(image.width, image.height));
  return Math.ceil((image.width * scale * (image.height * scale)) / 750);
}

/**
 * What a finished model call is charged: every token the model reported, cached or not, so
 * prompt caching lowers the bill but not how far a budget goes (ADR 0009). A call that ended
 * without a report (stopped, cut off by the time budget, a stream that broke off or ended before
 * its usage event) is charged what it surely used: the low estimate of its prompt and of the
 * `output` that arrived — never more than its bound, and not nothing, or stopping every answer
 * just before its end would cost no budget at all. Only a call the model refused before it read
 * anything (throttled, unavailable, rejected) is charged nothing.
 */
export function tokensToCharge(call: {
  readonly request: Omit<ChatModelRequest, 'signal'>;
  readonly usage?: ModelUsage;
  /** How the call failed, if it did (`toFailure`). */
  readonly failure?: Pick<ModelCallFailure, 'code'>;
  /** What the model wrote before the call ended, as parsed (JSON-serializable); absent: nothing. */
  readonly output?: unknown;
}): number {
  const { usage, request } = call;
  if (usage) {
    return (
      usage.inputTokens +
      usage.outputTokens +
      (usage.cacheReadInputTokens ?? 0) +
      (usage.cacheWriteInputTokens ?? 0)
    );
  }
  if (call.failure && REFUSED_BEFORE_READING.has(call.failure.code)) return 0;
  const written =
    call.output === undefined
      ? 0
      : Math.min(request.maxTokens, tokensAtLeast(JSON.stringify(call.output)));
  return tokensAtLeast(promptTextOf(request)) + written;
}

// The failures (`toFailure` codes) of a request the model refused before reading it: the
// Bedrock adapter reports throttling and unavailability as these only before the stream (after
// its first event they are `model_stream_failed`), and Bedrock charges no tokens for them.
const REFUSED_BEFORE_READING: ReadonlySet<string> = new Set([
  'model_throttled',
  'model_unavailable',
  'model_rejected',
]);

/** Everything of a request the model reads as text: system prompt, tool definition, messages. */
function promptTextOf(request: Omit<ChatModelRequest, 'signal'>): string {
  return [
    request.system,
    JSON.stringify(request.tool),
    ...request.messages.map((message) => message.text),
  ].join('\n');
}

/**
 * A high estimate of the tokens of `text`: its UTF-8 bytes. A byte-level tokenizer never makes a
 * token of less than one byte, so no text is more tokens than bytes; English is about 4 bytes a
 * token and Japanese about 3, so a reservation is 3–4 times what the prompt will cost — which
 * only matters while the call runs (see `tokensAtLeast` for the low estimate).
 */
export function tokensAtMost(text: string): number {
  let bytes = 0;
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/**
 * A low estimate of the tokens of `text` for the models we cache with: 4 ASCII characters per
 * token (English prose; JSON, like the tool schema, needs more tokens) and 1.5 other characters
 * per token (Japanese needs about one token per character). It stays under the real count for
 * this prompt's mix, so a checkpoint is not placed on a prefix that is too short to be cached.
 * (Claude also reads a tool-use system prompt of a few hundred tokens that is not counted here.)
 */
export function tokensAtLeast(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const character of text) {
    if (character.charCodeAt(0) < 0x80) ascii += 1;
    else other += 1;
  }
  return Math.floor(ascii / 4 + other / 1.5);
}
