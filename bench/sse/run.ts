/**
 * How `token` events are written: bytes on the wire per advice byte and the delay from a model
 * fragment's arrival to the client having its text, for per-fragment writing and the default
 * coalescing, side by side in one process. (The opt-in `TOKEN_BATCH_MS` batching, measured here
 * before at 11–30 ms p50 of added delay for its byte savings, was removed; README.md keeps its
 * figures.)
 *
 * The path is the function's own from the model iterator on: the tool-input parser, then
 * `createSseStream`, piped into an HTTP response with `pipeline` as middy's streamify does, read
 * by a client over a localhost socket and decoded with `eventsource-parser`. Upstream is
 * scripted (the advice of the parser bench's 4 KB answer in its 1–24-character fragments), in
 * two arrival patterns: one fragment per network read, and reads of several fragments (as
 * Bedrock's HTTP/2 frames often carry several deltas). Fragments of one read are handed on
 * microtask by microtask, as the SDK's event-stream iterator does.
 */
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { createParser } from 'eventsource-parser';
import { createSseStream, type SseStreamOptions } from '../../functions/sse/sse-stream.js';
import { createToolInputParser } from '../../functions/tool-input/tool-input-parser.js';
import { percentile } from '../chat/summarize.js';
import { makeAnswerPayload, seededFragments } from '../parser/make-answer-payload.js';
import { measurePaddingCost } from './measure-padding-cost.js';

const MODES: readonly { readonly name: string; readonly options: SseStreamOptions }[] = [
  { name: 'one event per fragment', options: { coalesceTokens: false } },
  { name: 'coalescing (default now)', options: {} },
];

interface ArrivalPattern {
  readonly name: string;
  /** Fragments per network read, cycled. */
  readonly perRead: readonly number[];
  readonly readIntervalMs: number;
}

const PATTERNS: readonly ArrivalPattern[] = [
  { name: 'one fragment per read, every 10 ms', perRead: [1], readIntervalMs: 10 },
  {
    name: 'reads of 1–8 fragments (mean 4.5), every 40 ms',
    perRead: [3, 7, 1, 5, 8, 2, 6, 4],
    readIntervalMs: 40,
  },
  { name: 'reads of 20 fragments, every 20 ms (a fast burst)', perRead: [20], readIntervalMs: 20 },
];
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

interface RunFigures {
  readonly adviceBytes: number;
  readonly tokenBytes: number;
  readonly tokenEvents: number;
  readonly delaysMs: number[];
}

/** One chat's advice through one mode; fragment arrival times and client receipt times. */
async function runOnce(
  options: SseStreamOptions,
  pattern: ArrivalPattern,
  fragments: readonly string[],
): Promise<RunFigures> {
  // Cumulative advice length after each fragment that carried advice, and when it arrived.
  const arrivals: { length: number; at: number }[] = [];
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const sse = createSseStream(options);
    // middy's streamify: `pipeline(body, responseStream)` with the web stream as source.
    void pipeline(sse.stream as unknown as NodeJS.ReadableStream, response).catch(() => undefined);
    void (async () => {
      const parser = createToolInputParser({ textFields: ['general_advice'], arrayFields: {} });
      let length = 0;
      let index = 0;
      for (let read = 0; index < fragments.length; read++) {
        await sleep(pattern.readIntervalMs);
        const count = pattern.perRead[read % pattern.perRead.length] ?? 1;
        for (const fragment of fragments.slice(index, index + count)) {
          const at = performance.now();
          for (const event of parser.write(fragment)) {
            if (event.type !== 'text' || event.delta === '') continue;
            length += event.delta.length;
            arrivals.push({ length, at });
            sse.send({ event: 'token', data: { content: event.delta } });
          }
          await Promise.resolve(); // the SDK iterator: one microtask hop per event
        }
        index += count;
      }
      sse.close();
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  let received = 0;
  let adviceText = '';
  let tokenBytes = 0;
  let tokenEvents = 0;
  const receipts: { length: number; at: number }[] = [];
  const parser = createParser({
    onEvent(message) {
      if (message.event !== 'token') return;
      const content = (JSON.parse(message.data) as { content: string }).content;
      received += content.length;
      adviceText += content;
      tokenBytes += Buffer.byteLength(`event: token\ndata: ${message.data}\n\n`);
      tokenEvents++;
    },
  });
  await new Promise<void>((resolve, reject) => {
    request({ port, host: '127.0.0.1', path: '/' }, (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        parser.feed(chunk);
        receipts.push({ length: received, at: performance.now() });
      });
      response.on('end', resolve);
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
  server.close();

  const delaysMs: number[] = [];
  let receipt = 0;
  for (const arrival of arrivals) {
    while ((receipts[receipt]?.length ?? Number.POSITIVE_INFINITY) < arrival.length) receipt++;
    const at = receipts[receipt]?.at;
    if (at !== undefined) delaysMs.push(at - arrival.at);
  }
  return {
    adviceBytes: Buffer.byteLength(adviceText),
    tokenBytes,
    tokenEvents,
    delaysMs,
  };
}

export async function main(): Promise<void> {
  const payload = makeAnswerPayload(4 * 1024);
  // Only the advice streams as tokens; the rest of the answer would only lengthen each run.
  const fragments = seededFragments(payload.text).filter(
    (_, index, all) => all.slice(0, index).join('').length < payload.adviceEnd,
  );
  console.log(
    `## token events, 4 KB answer (${Buffer.byteLength(payload.advice)} advice bytes, ${fragments.length} fragments), ${RUNS} runs per mode, interleaved`,
  );
  for (const pattern of PATTERNS) {
    const figures = new Map<string, RunFigures[]>(MODES.map((mode) => [mode.name, []]));
    for (let run = 0; run < RUNS; run++) {
      for (const mode of MODES) {
        figures.get(mode.name)?.push(await runOnce(mode.options, pattern, fragments));
      }
    }
    console.log(`\n### ${pattern.name}`);
    console.log('  mode | events | bytes ÷ advice bytes (target ≤ 1.5) | delay p50 / p99 ms');
    const baseline = figures.get(MODES[0]?.name ?? '') ?? [];
    const baseDelays = baseline.flatMap((run) => run.delaysMs);
    for (const mode of MODES) {
      const runs = figures.get(mode.name) ?? [];
      const delays = runs.flatMap((run) => run.delaysMs);
      const bytes = runs.reduce((sum, run) => sum + run.tokenBytes, 0);
      const adviceBytes = runs.reduce((sum, run) => sum + run.adviceBytes, 0);
      const events = runs.reduce((sum, run) => sum + run.tokenEvents, 0) / runs.length;
      const p50 = percentile(delays, 50);
      const p99 = percentile(delays, 99);
      console.log(
        `  ${mode.name} | ${events.toFixed(0)} | ${(bytes / adviceBytes).toFixed(2)} | ${p50.toFixed(2)} / ${p99.toFixed(2)} p95 ${percentile(delays, 95).toFixed(2)}, max ${Math.max(...delays).toFixed(2)} (÷ before: ${(p50 / percentile(baseDelays, 50)).toFixed(2)}× / ${(p99 / percentile(baseDelays, 99)).toFixed(2)}×)`,
      );
    }
  }
  await measurePaddingCost();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
