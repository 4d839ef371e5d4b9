import type { IncomingMessage } from 'node:http';
import { createApi } from '../../functions/api/create-handler.js';
import type { HttpResponse } from '../../functions/api/http.js';
import { readFunctionConfig } from '../../functions/settings/function-settings.js';
import { toFunctionUrlEvent } from '../../local/function-url/function-url-event.js';
import { startLocalServices } from '../../local/start-local-stack.js';
import { startBedrockProcess } from './processes/bedrock-process-client.js';

/**
 * What the surge check adds to a chat (issue #53, ADR 0033, 0034): the same chat through two APIs
 * in this process, side by side on the same local services — one with the surge check (the
 * insights table configured: the known-issues read at admission, the count after retrieval,
 * the notices before the first token), its peer without (no insights table: neither) — run
 * interleaved, the order alternating. The model answers at once (the offline responder, no
 * pacing), so the count has the least model latency to hide behind; the topic surges throughout
 * (a new staff member each chat), so the notice is built and sent every time. The local Bedrock
 * endpoint runs in a process of its own, as Bedrock is elsewhere in AWS: in this process its
 * responder would write the whole answer on the function's event loop while the count's response
 * waits to be read, and the check would be charged for the model's work.
 */
export interface SurgeCheckInChat {
  /** Request → first `token` event, with the surge check, ms. */
  readonly withCheckMs: number[];
  /** The same, without it (the peer), ms. */
  readonly withoutCheckMs: number[];
  /** Request → `meta`, with and without. */
  readonly metaWithCheckMs: number[];
  readonly metaWithoutCheckMs: number[];
  /** Chats with the check that carried a `surge` event (all but the first two should). */
  readonly surgeNotices: number;
}

type LambdaContext = Parameters<ReturnType<typeof createApi>>[1];

const MESSAGE = 'VPNに接続できない';
const WARM_UP = 3;

export async function measureSurgeCheckInChat(runs: number): Promise<SurgeCheckInChat> {
  const bedrock = await startBedrockProcess();
  const services = await startLocalServices({
    log: () => undefined,
    environment: {
      ...process.env,
      BEDROCK_RUNTIME_ENDPOINT: bedrock.endpoint,
      BEDROCK_AGENT_RUNTIME_ENDPOINT: bedrock.endpoint,
    },
  }).catch(async (error: unknown) => {
    await bedrock.process.stop();
    throw error;
  });
  try {
    // The SDK clients in process read credentials from this process, as the function does from
    // its own; the local endpoints check no signature.
    process.env.AWS_ACCESS_KEY_ID = services.functionEnvironment.AWS_ACCESS_KEY_ID ?? 'local';
    process.env.AWS_SECRET_ACCESS_KEY =
      services.functionEnvironment.AWS_SECRET_ACCESS_KEY ?? 'local';
    const environment: Record<string, string | undefined> = {
      ...services.functionEnvironment,
      LOG_LEVEL: 'SILENT',
      METRICS: 'false',
      DAILY_TOKEN_BUDGET: '0',
    };
    const withoutInsights = { ...environment, INSIGHTS_TABLE: undefined };
    const withCheck = createApi(readFunctionConfig(environment));
    const withoutCheck = createApi(readFunctionConfig(withoutInsights));
    let requests = 0;
    const chat = async (api: typeof withCheck) => {
      requests += 1;
      const body = Buffer.from(JSON.stringify({ message: MESSAGE }));
      const request = {
        method: 'POST',
        url: '/api/chat',
        httpVersion: '1.1',
        socket: { remoteAddress: '127.0.0.1' },
        // A new staff member each chat: the topic keeps surging.
        headers: { 'x-dev-user': `bench-${requests}`, 'content-type': 'application/json' },
      } as unknown as IncomingMessage;
      const startedAt = performance.now();
      const response = await api(toFunctionUrlEvent(request, body), {
        awsRequestId: `bench-${requests}`,
        getRemainingTimeInMillis: () => 300_000,
      } as LambdaContext);
      return timelineOf(response, startedAt);
    };
    const figures = {
      withCheckMs: [] as number[],
      withoutCheckMs: [] as number[],
      metaWithCheckMs: [] as number[],
      metaWithoutCheckMs: [] as number[],
      surgeNotices: 0,
    };
    for (let run = -WARM_UP; run < runs; run += 1) {
      const pair = run % 2 === 0 ? [true, false] : [false, true];
      for (const checked of pair) {
        const timeline = await chat(checked ? withCheck : withoutCheck);
        if (run < 0) continue;
        if (checked) {
          figures.withCheckMs.push(timeline.firstTokenMs);
          figures.metaWithCheckMs.push(timeline.metaMs);
          if (timeline.surge) figures.surgeNotices += 1;
        } else {
          figures.withoutCheckMs.push(timeline.firstTokenMs);
          figures.metaWithoutCheckMs.push(timeline.metaMs);
        }
      }
    }
    return figures;
  } finally {
    await services.stop();
    await bedrock.process.stop();
  }
}

/** Reads the SSE body to its end: when `meta` and the first `token` arrived, and any `surge`. */
async function timelineOf(response: HttpResponse, startedAt: number) {
  if (typeof response.body === 'string') throw new Error(`chat refused: ${response.body}`);
  const decoder = new TextDecoder();
  let text = '';
  let metaMs: number | undefined;
  let firstTokenMs: number | undefined;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    const now = performance.now();
    if (metaMs === undefined && text.includes('event: meta')) metaMs = now - startedAt;
    if (firstTokenMs === undefined && text.includes('event: token')) firstTokenMs = now - startedAt;
  }
  if (metaMs === undefined || firstTokenMs === undefined) {
    throw new Error('the chat sent no meta or no token');
  }
  return { metaMs, firstTokenMs, surge: text.includes('event: surge') };
}
