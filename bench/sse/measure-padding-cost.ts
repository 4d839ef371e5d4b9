/**
 * What `STREAM_PADDING` costs: bytes on the wire per answer for each mode, side by side in one
 * process, interleaved run by run. Byte counts are exact (they do not depend on this machine's
 * load), except for how many writes follow a pause, which the timing of the scripted answer
 * fixes.
 *
 * One answer, as the function writes it: `meta`, the progress steps, `kb_query`, `kb_chunks`
 * (8 tickets), a pause (retrieval and the model's time to first token), the advice of the
 * parser bench's 4 KB answer in the arrival pattern "reads of 1–8 fragments every 40 ms", a
 * pause (the model writes the ticket cards), 3 `ticket` events, and `result` with the whole
 * answer. Through `createSseStream` (coalescing on, as deployed) and `pipeline` to a client on a
 * localhost socket that counts every byte and every network read.
 *
 * Time is scaled down 10× so a run takes ~1 s: pauses of 150 ms stand for 1.5 s, and the padding
 * pause threshold is 100 ms for the default 1000 ms. Heartbeats are counted apart: a padded
 * heartbeat is `bytes + 8`, one every heartbeat interval (10 s, `API_TIMINGS.heartbeatMs`) however long the answer.
 */
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StreamEvent } from '../../functions/contract/chat-events.js';
import { createSseStream } from '../../functions/sse/sse-stream.js';
import type { StreamPaddingOptions } from '../../functions/sse/stream-padding.js';
import { createToolInputParser } from '../../functions/tool-input/tool-input-parser.js';
import { makeAnswerPayload, seededFragments } from '../parser/make-answer-payload.js';

const PADDING_BYTES = [1024, 16 * 1024] as const;
const MODES: readonly { readonly name: string; readonly padding: StreamPaddingOptions }[] = [
  { name: 'off (default)', padding: { mode: 'off' } },
  ...PADDING_BYTES.flatMap((bytes) => [
    {
      name: `after-pause, ${bytes / 1024} KiB`,
      padding: { mode: 'after-pause', bytes, pauseMs: 100 } as const,
    },
    { name: `every-flush, ${bytes / 1024} KiB`, padding: { mode: 'every-flush', bytes } as const },
  ]),
];
const SCALED_PAUSE_MS = 150;
const PER_READ = [3, 7, 1, 5, 8, 2, 6, 4];
const READ_INTERVAL_MS = 40;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

interface AnswerFigures {
  readonly bytes: number;
  readonly paddingBytes: number;
  readonly reads: number;
}

function ticketEvent(issueId: string): StreamEvent {
  return {
    event: 'ticket',
    data: {
      issue_id: issueId,
      subject: 'VPNに接続できない (error 809)',
      summary: 'リモートワーク中にVPNへ接続できない。"L2TP" のエラー。',
      resolution: '証明書を再発行し、クライアントを再インストールして解決。',
    },
  };
}

async function streamAnswer(
  send: (event: StreamEvent) => void,
  fragments: readonly string[],
  payloadText: string,
): Promise<void> {
  send({
    event: 'meta',
    data: { conversationId: 'c'.repeat(26), inquiryId: 'i'.repeat(26), version: 2, modelId: 'm' },
  });
  for (const step of ['analyzing', 'retrieving'] as const)
    send({ event: 'progress', data: { step } });
  send({ event: 'kb_query', data: { query: 'Salesforceにログインできない login サインイン' } });
  send({
    event: 'kb_chunks',
    data: {
      chunks: Array.from({ length: 8 }, (_, index) => ({
        issue_id: String(1001 + index),
        subject: 'Salesforceにログインできない（パスワードが正しくありませんと表示）',
        score: 0.8 - index / 20,
        preview: 'パスワードリセット後もログインできない。'.repeat(8),
      })),
    },
  });
  send({ event: 'progress', data: { step: 'generating' } });
  await sleep(SCALED_PAUSE_MS);
  const parser = createToolInputParser({ textFields: ['general_advice'], arrayFields: {} });
  let index = 0;
  for (let read = 0; index < fragments.length; read++) {
    const count = PER_READ[read % PER_READ.length] ?? 1;
    for (const fragment of fragments.slice(index, index + count)) {
      for (const event of parser.write(fragment)) {
        if (event.type === 'text' && event.delta !== '') {
          send({ event: 'token', data: { content: event.delta } });
        }
      }
      await Promise.resolve();
    }
    index += count;
    await sleep(READ_INTERVAL_MS);
  }
  await sleep(SCALED_PAUSE_MS);
  for (const issueId of ['1001', '1002', '1003']) send(ticketEvent(issueId));
  const answer = JSON.parse(payloadText) as Record<string, unknown>;
  send({
    event: 'result',
    data: {
      ...answer,
      response_type: 'results',
      general_advice: String(answer.general_advice),
      conversationId: 'c'.repeat(26),
      version: 2,
      status: 'complete',
    } as never,
  });
}

async function runOnce(
  padding: StreamPaddingOptions,
  fragments: readonly string[],
  payloadText: string,
): Promise<AnswerFigures> {
  let paddingBytes = 0;
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    // No heartbeat during the run: they are counted apart (one per 10 s, whatever the answer).
    const sse = createSseStream({ padding, heartbeatMs: 3_600_000 });
    void pipeline(sse.stream as unknown as NodeJS.ReadableStream, response).catch(() => undefined);
    void streamAnswer((event) => sse.send(event), fragments, payloadText).finally(() => {
      paddingBytes = sse.paddingBytes;
      sse.close();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  let bytes = 0;
  let reads = 0;
  await new Promise<void>((resolve, reject) => {
    request({ port, host: '127.0.0.1', path: '/' }, (response) => {
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        reads++;
      });
      response.on('end', resolve);
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
  server.close();
  return { bytes, paddingBytes, reads };
}

export async function measurePaddingCost(): Promise<void> {
  const payload = makeAnswerPayload(4 * 1024);
  const fragments = seededFragments(payload.text).filter(
    (_, index, all) => all.slice(0, index).join('').length < payload.adviceEnd,
  );
  const figures = new Map<string, AnswerFigures[]>(MODES.map((mode) => [mode.name, []]));
  for (let run = 0; run < RUNS; run++) {
    for (const mode of MODES) {
      figures.get(mode.name)?.push(await runOnce(mode.padding, fragments, payload.text));
    }
  }
  console.log(
    `\n## STREAM_PADDING cost: one 4 KB answer (${fragments.length} advice fragments, reads of 1–8 every 40 ms, two pauses), ${RUNS} runs per mode, interleaved`,
  );
  console.log(
    '  mode | bytes per answer | ÷ off | padding bytes | padded heartbeat, bytes per minute',
  );
  const mean = (runs: readonly AnswerFigures[], pick: (run: AnswerFigures) => number) =>
    runs.reduce((sum, run) => sum + pick(run), 0) / Math.max(1, runs.length);
  const offBytes = mean(figures.get(MODES[0]?.name ?? '') ?? [], (run) => run.bytes);
  for (const mode of MODES) {
    const runs = figures.get(mode.name) ?? [];
    const bytes = mean(runs, (run) => run.bytes);
    const heartbeatBytes = mode.padding.mode === 'off' ? 8 : (mode.padding.bytes ?? 0) + 8; // ': ping\n\n' + padding
    console.log(
      `  ${mode.name} | ${bytes.toFixed(0)} | ${(bytes / offBytes).toFixed(2)}× | ${mean(runs, (run) => run.paddingBytes).toFixed(0)} | ${heartbeatBytes * 6}`,
    );
  }
}
