import { readJsonBody, sendAwsError } from './aws-json-protocol.js';
import type { LocalRequest, LocalResponse } from './listen-h2c-and-http1.js';
import { OFFLINE_MODEL_PREFIX } from './local-bedrock-defaults.js';
import type { ModelScript } from './model-script.js';
import { OfflineRequestError } from './offline-responder/read-offline-prompt.js';
import { respondOffline } from './offline-responder/respond-offline.js';
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
  /** Benchmarks only: see {@link FragmentSentHook}. */
  readonly onFragmentSent?: FragmentSentHook;
}

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
  const body = await readJsonBody<ConverseWireRequest>(request, response);
  if (body === undefined) return;
  context.record({ modelId, body });
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
      delayBeforeFragment: () => script.delayMs ?? paced(),
      inputTokens: Math.ceil(JSON.stringify(body).length / 4),
      outputTokens: Math.ceil(script.fragments.join('').length / 3),
    };
    await writeConverseStream(response, plan, context.onFragmentSent);
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
      {
        ...answer,
        initialDelayMs: paced() * 4, // time to first token
        delayBeforeFragment: paced,
      },
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
