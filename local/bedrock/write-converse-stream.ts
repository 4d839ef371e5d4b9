import { setTimeout as sleep } from 'node:timers/promises';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { LocalResponse } from './listen-h2c-and-http1.js';
import type { StreamPause } from './model-script.js';

/** Everything needed to stream one forced-tool answer. */
export interface ConverseStreamPlan {
  readonly toolUseId: string;
  readonly toolName: string;
  readonly fragments: readonly string[];
  readonly stopReason: string;
  /** Stop with a `modelStreamErrorException` after this many fragments. */
  readonly failAfter?: number;
  readonly initialDelayMs: number;
  /** Hold after each pause's number of fragments until its promise settles. */
  readonly pauseAfter?: readonly StreamPause[];
  /** Milliseconds to wait before fragment `index` (index ≥ 1). */
  readonly delayBeforeFragment: (index: number) => number;
  /** Input tokens neither read from nor written to the prompt cache. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** With prompt caching (a request with cache points): see `prompt-cache.ts`. */
  readonly cacheReadInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
}

/**
 * Called right after a tool-input fragment was written to the response, with
 * `performance.now()` (benchmarks match it with the moment the client sees the fragment).
 */
export type FragmentSentHook = (fragment: string, at: number) => void;

/**
 * Streams a plan as Bedrock's ConverseStream does for a forced tool:
 * `messageStart → contentBlockStart(toolUse) → contentBlockDelta* → contentBlockStop →
 * messageStop → metadata` (metadata comes last, see AWS_NOTES §3.2).
 * Stops quietly if the client goes away.
 */
export async function writeConverseStream(
  response: LocalResponse,
  plan: ConverseStreamPlan,
  onFragmentSent?: FragmentSentHook,
): Promise<void> {
  const startedAt = Date.now();
  // A client that goes away also ends the waits between events, so no timer outlives it.
  const gone = new AbortController();
  const clientGone = () => gone.signal.aborted;
  // Both protocols' responses are writable streams; their union hides the common overloads.
  const stream = response as NodeJS.WritableStream;
  stream.once('close', () => gone.abort());
  const wait = (ms: number) => sleep(ms, undefined, { signal: gone.signal }).catch(() => undefined);
  const send = (kind: 'event' | 'exception', type: string, payload: unknown) => {
    if (clientGone()) return false;
    stream.write(encodeEventStreamMessage({ kind, type, payload }));
    return true;
  };

  response.writeHead(200, {
    'content-type': 'application/vnd.amazon.eventstream',
    'x-amzn-requestid': crypto.randomUUID(),
  });
  // The status and headers leave before the first event on both protocols (HTTP/1.1 would hold
  // them until the first write): the client's response starts as Bedrock's does.
  if ('flushHeaders' in response) response.flushHeaders();
  if (plan.initialDelayMs > 0) await wait(plan.initialDelayMs);

  send('event', 'messageStart', { role: 'assistant' });
  send('event', 'contentBlockStart', {
    contentBlockIndex: 0,
    start: { toolUse: { toolUseId: plan.toolUseId, name: plan.toolName } },
  });
  for (let index = 0; index <= plan.fragments.length; index += 1) {
    if (clientGone()) return;
    if (index === plan.failAfter) {
      send('exception', 'modelStreamErrorException', {
        message: 'An error occurred while streaming the response. Retry your request.',
        originalStatusCode: 500,
        originalMessage: 'Scripted failure from the local Bedrock endpoint',
      });
      response.end();
      return;
    }
    const fragment = plan.fragments[index];
    if (fragment === undefined) break;
    const pause = plan.pauseAfter?.find((candidate) => candidate.fragments === index);
    if (pause) {
      await pause.until;
      if (clientGone()) return;
    }
    const delay = index === 0 ? 0 : plan.delayBeforeFragment(index);
    if (delay > 0) await wait(delay);
    const sent = send('event', 'contentBlockDelta', {
      contentBlockIndex: 0,
      delta: { toolUse: { input: fragment } },
    });
    if (sent) onFragmentSent?.(fragment, performance.now());
  }
  send('event', 'contentBlockStop', { contentBlockIndex: 0 });
  send('event', 'messageStop', { stopReason: plan.stopReason });
  const cached =
    plan.cacheReadInputTokens !== undefined || plan.cacheWriteInputTokens !== undefined
      ? {
          cacheReadInputTokens: plan.cacheReadInputTokens ?? 0,
          cacheWriteInputTokens: plan.cacheWriteInputTokens ?? 0,
        }
      : undefined;
  send('event', 'metadata', {
    usage: {
      inputTokens: plan.inputTokens,
      outputTokens: plan.outputTokens,
      // Bedrock's total counts cache reads and writes too.
      totalTokens:
        plan.inputTokens +
        plan.outputTokens +
        (cached ? cached.cacheReadInputTokens + cached.cacheWriteInputTokens : 0),
      ...cached,
    },
    metrics: { latencyMs: Date.now() - startedAt },
  });
  if (!clientGone()) response.end();
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/**
 * One `application/vnd.amazon.eventstream` message, as Bedrock sends it.
 *
 * - `event`: `:message-type: event`, `:event-type: <member>` (e.g. `contentBlockDelta`);
 * - `exception`: `:message-type: exception`, `:exception-type: <member>`
 *   (e.g. `modelStreamErrorException`), which the SDK throws during iteration.
 *
 * The payload is the member's JSON body.
 */
function encodeEventStreamMessage(message: {
  readonly kind: 'event' | 'exception';
  readonly type: string;
  readonly payload: unknown;
}): Uint8Array {
  const typeHeader = message.kind === 'event' ? ':event-type' : ':exception-type';
  return codec.encode({
    headers: {
      [typeHeader]: { type: 'string', value: message.type },
      ':message-type': { type: 'string', value: message.kind },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: fromUtf8(JSON.stringify(message.payload)),
  });
}
