import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { LocalBedrockServer } from '../../local/bedrock/start-local-bedrock-server.js';
import { markedAnswerScript } from './marked-answer.js';
import { postChatTimed } from './post-chat-timed.js';

export interface PipelineOverheadOptions {
  readonly url: string;
  readonly bedrock: LocalBedrockServer;
  /** Filled by the endpoint's `onFragmentSent` hook: marker → `performance.now()` after the write. */
  readonly sentAt: ReadonlyMap<string, number>;
  readonly concurrency: number;
  readonly rounds: number;
  readonly fragments: number;
  readonly delayMs: number;
  /** Gives each stream a number never used before in this process (markers must be unique). */
  readonly nextStream: () => number;
}

export interface PipelineOverhead {
  /** Milliseconds from a fragment leaving the endpoint to its `token` bytes at the client. */
  readonly samples: number[];
  readonly streams: number;
  /** Sent fragments whose token never arrived, and chats that did not end with `result`. */
  readonly missing: number;
  readonly failedChats: number;
  /** p99 event-loop delay during the run: the share of the figure that is CPU contention. */
  readonly eventLoopP99Ms: number;
  /** Wall time of a round ÷ the script's own duration (fragments × gap): > 1 means the process fell behind. */
  readonly slowdown: number;
  /**
   * This process's CPU time per fragment, ms: client, emulator, handler, endpoint and the
   * per-chat work (DynamoDB, Retrieve) together. Unlike latency, it hardly depends on the load
   * other processes put on the machine.
   */
  readonly cpuMsPerFragment: number;
}

/**
 * `concurrency` chats at once, `rounds` times; each consumes one scripted stream (FIFO) of
 * marked fragments paced `delayMs` apart. Everything (client, emulator, handler, endpoint)
 * shares this process's event loop, so the figure includes their contention.
 */
export async function measurePipelineOverhead(
  options: PipelineOverheadOptions,
): Promise<PipelineOverhead> {
  const samples: number[] = [];
  let missing = 0;
  let failedChats = 0;
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const cpuBefore = process.cpuUsage();
  let wallMs = 0;
  for (let round = 0; round < options.rounds; round++) {
    const markers: string[] = [];
    for (let slot = 0; slot < options.concurrency; slot++) {
      const stream = options.nextStream();
      for (let index = 0; index < options.fragments; index++) markers.push(`⟦s${stream}f${index}⟧`);
      options.bedrock.enqueueScript(
        markedAnswerScript({ stream, fragments: options.fragments, delayMs: options.delayMs }),
      );
    }
    const roundStartedAt = performance.now();
    const chats = await Promise.all(
      Array.from({ length: options.concurrency }, (_, slot) =>
        postChatTimed(options.url, 'Outlookでメールが送れない', `bench-overhead-${slot}`),
      ),
    );
    wallMs += performance.now() - roundStartedAt;
    const arrivedAt = new Map<string, number>();
    for (const chat of chats) {
      if (chat.status !== 200 || !chat.completed) failedChats++;
      for (const [marker, at] of chat.markers) arrivedAt.set(marker, at);
    }
    for (const marker of markers) {
      const sent = options.sentAt.get(marker);
      const arrived = arrivedAt.get(marker);
      if (sent === undefined || arrived === undefined) missing++;
      else samples.push(arrived - sent);
    }
  }
  loop.disable();
  const cpu = process.cpuUsage(cpuBefore);
  const streams = options.concurrency * options.rounds;
  return {
    samples,
    streams,
    missing,
    failedChats,
    eventLoopP99Ms: loop.percentile(99) / 1e6,
    slowdown: wallMs / options.rounds / (options.fragments * options.delayMs),
    cpuMsPerFragment: (cpu.user + cpu.system) / 1e3 / (streams * options.fragments),
  };
}
