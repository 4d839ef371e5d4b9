/**
 * What a screenshot adds to an answer locally (ADR 0030): the upload on its own, then time to
 * first token of the same image-only inquiry against a text inquiry, with the vision step's
 * share apart (from progress `reading_attachment` to `retrieving`). The API runs in process on
 * the local stack's services (DynamoDB Local, local S3, the offline responder at its realistic
 * pacing), as `npm start` has them, so the figures are the pipeline's, not a model's.
 *
 * `node --import tsx bench/chat/measure-attachment-cost.ts`
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { createApi } from '../../functions/api/create-handler.js';
import type { HttpResponse } from '../../functions/api/http.js';
import { inspectAttachment } from '../../functions/attachments/inspect-attachment.js';
import { readFunctionConfig } from '../../functions/settings/function-settings.js';
import { toFunctionUrlEvent } from '../../local/function-url/function-url-event.js';
import { startLocalServices } from '../../local/start-local-stack.js';

const ROUNDS = 7;

type LambdaContext = Parameters<ReturnType<typeof createApi>>[1];
const SCREENSHOT = new URL(
  '../../local/bedrock/offline-responder/screenshots/outlook-552-message-size.png',
  import.meta.url,
);

interface Timeline {
  readonly firstTokenMs: number;
  readonly readingMs?: number;
}

export async function main(): Promise<void> {
  const services = await startLocalServices({ log: () => undefined, environment: process.env });
  try {
    const api = createApi(
      readFunctionConfig({
        ...services.functionEnvironment,
        LOG_LEVEL: 'SILENT',
        METRICS: 'false',
        DAILY_TOKEN_BUDGET: '0',
      }),
    );
    const png = readFileSync(SCREENSHOT);
    let requests = 0;
    const call = (method: string, path: string, body: Buffer, headers: Record<string, string>) => {
      requests += 1;
      const request = {
        method,
        url: path,
        httpVersion: '1.1',
        socket: { remoteAddress: '127.0.0.1' },
        headers: { 'x-dev-user': 'bench', ...headers },
      } as unknown as IncomingMessage;
      return api(toFunctionUrlEvent(request, body), {
        awsRequestId: `bench-${requests}`,
        getRemainingTimeInMillis: () => 300_000,
      } as LambdaContext);
    };
    const upload = async () => {
      const startedAt = performance.now();
      const response = await call('POST', '/api/attachments', png, { 'content-type': 'image/png' });
      const body = JSON.parse(String(response.body)) as { attachmentId: string };
      return { ms: performance.now() - startedAt, id: body.attachmentId };
    };
    const chat = async (body: unknown): Promise<Timeline> => {
      const startedAt = performance.now();
      const response = await call('POST', '/api/chat', Buffer.from(JSON.stringify(body)), {
        'content-type': 'application/json',
      });
      return timelineOf(response, startedAt);
    };

    const inspectMs: number[] = [];
    const uploadMs: number[] = [];
    const textChats: Timeline[] = [];
    const imageChats: Timeline[] = [];
    // One of each first, unmeasured: module loading and the S3 client's first use.
    const warm = await upload();
    await chat({ message: 'Outlook で 552 5.3.4 Message size exceeds と出ます' });
    await chat({ attachmentIds: [warm.id] });
    for (let round = 0; round < ROUNDS; round += 1) {
      const inspectStarted = performance.now();
      await inspectAttachment(png, 'image/png');
      inspectMs.push(performance.now() - inspectStarted);
      const uploaded = await upload();
      uploadMs.push(uploaded.ms);
      textChats.push(await chat({ message: 'Outlook で 552 5.3.4 Message size exceeds と出ます' }));
      imageChats.push(await chat({ attachmentIds: [uploaded.id] }));
    }
    const median = (values: readonly number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    const textTtft = median(textChats.map((timeline) => timeline.firstTokenMs));
    const imageTtft = median(imageChats.map((timeline) => timeline.firstTokenMs));
    const reading = median(imageChats.map((timeline) => timeline.readingMs ?? Number.NaN));
    console.log(`Attachment cost, local stack, offline responder, median of ${ROUNDS}:`);
    console.table({
      'inspect + strip (server, in process)': ms(median(inspectMs)),
      'upload (POST /api/attachments, local S3)': ms(median(uploadMs)),
      'time to first token, text inquiry': ms(textTtft),
      'time to first token, image-only inquiry': ms(imageTtft),
      '  of which the vision step': ms(reading),
      'image adds to time to first token': ms(imageTtft - textTtft),
    });
  } finally {
    await services.stop();
  }
}

/** Times the SSE body: the first `token` event, and the vision step between its progress events. */
async function timelineOf(response: HttpResponse, startedAt: number): Promise<Timeline> {
  if (typeof response.body === 'string') throw new Error(`chat refused: ${response.body}`);
  const decoder = new TextDecoder();
  let text = '';
  let firstTokenMs: number | undefined;
  let readingStarted: number | undefined;
  let readingMs: number | undefined;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    const now = performance.now();
    if (readingStarted === undefined && text.includes('"step":"reading_attachment"')) {
      readingStarted = now;
    }
    if (
      readingStarted !== undefined &&
      readingMs === undefined &&
      text.includes('"step":"retrieving"')
    ) {
      readingMs = now - readingStarted;
    }
    if (firstTokenMs === undefined && text.includes('event: token')) firstTokenMs = now - startedAt;
  }
  if (firstTokenMs === undefined) throw new Error('the chat sent no token');
  return { firstTokenMs, ...(readingMs !== undefined ? { readingMs } : {}) };
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
