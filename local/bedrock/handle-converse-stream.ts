import { readJsonBody, sendAwsError } from './aws-json-protocol.js';
import type { LocalRequest, LocalResponse } from './listen-h2c-and-http1.js';
import { OFFLINE_MODEL_PREFIX } from './local-bedrock-defaults.js';
import type { ModelScript } from './model-script.js';
import { OfflineRequestError } from './offline-responder/offline-request.js';
import { OFFLINE_CHARS_PER_TOKEN, respondOffline } from './offline-responder/respond-offline.js';
import { type LocalPromptCache, withoutCachePoints } from './prompt-cache.js';
import type { ConverseWireRequest, RecordedConverseRequest } from './recorded-requests.js';
import {
  type ConverseStreamPlan,
  type FragmentSentHook,
  writeConverseStream,
} from './write-converse-stream.js';

export interface ConverseStreamContext {
  readonly takeScript: () => ModelScript | undefined;
  readonly record: (request: RecordedConverseRequest) => void;
  readonly pacing: { readonly minMs: number; readonly maxMs: number };
  /** Bedrock's prompt-cache accounting, modelled (`prompt-cache.ts`). */
  readonly promptCache: LocalPromptCache;
  /** Benchmarks only: see {@link FragmentSentHook}. */
  readonly onFragmentSent?: FragmentSentHook;
}

/** The token estimate for scripted streams: serialized request characters per input token. */
const SCRIPT_CHARS_PER_TOKEN = 4;

const forcedToolName = (body: ConverseWireRequest): string =>
  body.toolConfig?.toolChoice?.tool?.name ??
  body.toolConfig?.tools?.[0]?.toolSpec?.name ??
  'submit_response';

/**
 * `POST /model/{modelId}/converse-stream`: a queued `ModelScript` if there is one, else the
 * offline responder for `offline.*` model ids, else a ValidationException (real models belong
 * to real Bedrock: unset `BEDROCK_RUNTIME_ENDPOINT`).
 */
export async function handleConverseStream(
  request: LocalRequest,
  response: LocalResponse,
  modelId: string,
  context: ConverseStreamContext,
): Promise<void> {
  const received = await readJsonBody<ConverseWireRequest>(request, response);
  if (received === undefined) return;
  context.record({ modelId, body: received });
  // The model reads the prompt without its cache points: answers and token totals are the same
  // with caching on or off; only how the input tokens are accounted differs.
  const body = withoutCachePoints(received);
  const withCacheAccounting = <Plan extends { readonly inputTokens: number }>(
    plan: Plan,
    charsPerToken: number,
  ): Plan => {
    const accounted = context.promptCache.account(
      modelId,
      received,
      plan.inputTokens,
      charsPerToken,
    );
    return accounted ? { ...plan, ...accounted } : plan;
  };
  const paced = () =>
    context.pacing.minMs + Math.random() * (context.pacing.maxMs - context.pacing.minMs);
  const script = context.takeScript();

  if (script?.kind === 'throttle') {
    sendAwsError(response, {
      statusCode: 429,
      type: 'ThrottlingException',
      message: 'Too many requests, please wait before trying again.',
    });
    return;
  }
  if (script?.kind === 'stream') {
    const plan: ConverseStreamPlan = {
      toolUseId: `tooluse_script${crypto.randomUUID().slice(0, 8)}`,
      toolName: forcedToolName(body),
      fragments: script.fragments,
      stopReason: script.stopReason ?? 'tool_use',
      failAfter: script.failAfter,
      initialDelayMs: script.initialDelayMs ?? 0,
      pauseAfter: script.pauseAfter,
      delayBeforeFragment: () => script.delayMs ?? paced(),
      inputTokens: Math.ceil(JSON.stringify(body).length / SCRIPT_CHARS_PER_TOKEN),
      outputTokens: Math.ceil(script.fragments.join('').length / 3),
    };
    await writeConverseStream(
      response,
      withCacheAccounting(plan, SCRIPT_CHARS_PER_TOKEN),
      context.onFragmentSent,
    );
    return;
  }
  if (!modelId.startsWith(OFFLINE_MODEL_PREFIX)) {
    sendAwsError(response, {
      statusCode: 400,
      type: 'ValidationException',
      message: `The local Bedrock endpoint only serves offline models (${OFFLINE_MODEL_PREFIX}*), not ${modelId}. To use a real model, unset BEDROCK_RUNTIME_ENDPOINT so the SDK talks to Amazon Bedrock.`,
    });
    return;
  }
  try {
    const answer = respondOffline(body);
    await writeConverseStream(
      response,
      withCacheAccounting(
        {
          ...answer,
          initialDelayMs: paced() * 4, // time to first token
          delayBeforeFragment: paced,
        },
        OFFLINE_CHARS_PER_TOKEN,
      ),
      context.onFragmentSent,
    );
  } catch (error) {
    if (!(error instanceof OfflineRequestError)) throw error;
    sendAwsError(response, {
      statusCode: 400,
      type: 'ValidationException',
      message: error.message,
    });
  }
}
