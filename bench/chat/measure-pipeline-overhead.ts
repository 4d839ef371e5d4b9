import type { ModelScript } from '../../local/bedrock/model-script.js';
import { markedAnswerScript } from './marked-answer.js';
import { postChatTimed } from './post-chat-timed.js';
import type { BedrockProcess } from './processes/bedrock-process-client.js';
import type { FunctionProcess } from './processes/function-process-client.js';
import { type ProcessStats, startProcessStats } from './processes/process-stats.js';
import { wallClockNow } from './wall-clock.js';

export interface PipelineOverheadOptions {
  /** Process B: scripts are queued there, and it reports when each marked fragment left. */
  readonly bedrock: BedrockProcess;
  /** Process C: the function under test (its URL, CPU time and event-loop delay). */
  readonly function: FunctionProcess;
  readonly concurrency: number;
  readonly rounds: number;
  readonly fragments: number;
  readonly delayMs: number;
  /** Gives each stream a number never used before in this run (markers must be unique). */
  readonly nextStream: () => number;
}

/** One process's share of a measurement, per fragment streamed. */
export interface ProcessCost {
  readonly cpuMsPerFragment: number;
  /** For the function: the execution environments' share (the handler itself). */
  readonly environmentsCpuMsPerFragment?: number;
  readonly eventLoopP99Ms: number;
}

export interface PipelineOverhead {
  /** Milliseconds from a fragment leaving the endpoint (process B) to its `token` bytes at the client (this process). */
  readonly samples: number[];
  readonly streams: number;
  /**
   * The samples of fragments sent after every stream of their round had started (its first
   * fragment sent): without the queueing behind the other chats' start-up work (DynamoDB writes,
   * Retrieve, model call), which all 50 chats do at the same instant.
   */
  readonly steadySamples: number[];
  /** Latest start of a stream (its first fragment leaving the endpoint) after its round began, ms. */
  readonly lastStreamStartMs: number;
  /** Sent fragments whose token never arrived, and chats that did not end with `result`. */
  readonly missing: number;
  readonly failedChats: number;
  /** Wall time of a round ÷ the script's own duration (fragments × gap): > 1 means something fell behind. */
  readonly slowdown: number;
  /**
   * The function's cost (process C): CPU time per fragment covers everything the function did
   * for the chats — per-chat DynamoDB and Retrieve calls included, DynamoDB Local's java not —
   * and, unlike latency, hardly depends on what else runs on the machine.
   */
  readonly function: ProcessCost;
  /** The same for the load client (this process) and the endpoint (process B), to show they kept up. */
  readonly client: ProcessCost;
  readonly endpoint: ProcessCost;
}

/**
 * `concurrency` chats at once, `rounds` times; each consumes one scripted stream (FIFO) of
 * marked fragments paced `delayMs` apart. Client, endpoint and function are separate processes
 * (as in AWS, where each chat has its own Lambda instance); they still share this machine's
 * cores. CPU time and event-loop delay are counted in each process over all rounds.
 */
export async function measurePipelineOverhead(
  options: PipelineOverheadOptions,
): Promise<PipelineOverhead> {
  const samples: number[] = [];
  const steadySamples: number[] = [];
  let lastStreamStartMs = 0;
  let missing = 0;
  let failedChats = 0;
  let wallMs = 0;
  await options.bedrock.takeSentAt(); // forget fragments of earlier measurements
  await Promise.all([options.bedrock.statsStart(), options.function.statsStart()]);
  const clientStats = startProcessStats();
  for (let round = 0; round < options.rounds; round++) {
    const markers: string[] = [];
    const firstMarkers: string[] = [];
    const scripts: ModelScript[] = [];
    for (let slot = 0; slot < options.concurrency; slot++) {
      const stream = options.nextStream();
      firstMarkers.push(`⟦s${stream}f0⟧`);
      for (let index = 0; index < options.fragments; index++) markers.push(`⟦s${stream}f${index}⟧`);
      scripts.push(
        markedAnswerScript({ stream, fragments: options.fragments, delayMs: options.delayMs }),
      );
    }
    await options.bedrock.enqueueScripts(scripts);
    const roundStartedAt = wallClockNow();
    const chats = await Promise.all(
      Array.from({ length: options.concurrency }, (_, slot) =>
        postChatTimed(options.function.url, 'Outlookでメールが送れない', `bench-overhead-${slot}`),
      ),
    );
    wallMs += wallClockNow() - roundStartedAt;
    const sentAt = await options.bedrock.takeSentAt();
    const allStartedAt = Math.max(...firstMarkers.map((m) => sentAt.get(m) ?? Number.NaN));
    lastStreamStartMs = Math.max(lastStreamStartMs, allStartedAt - roundStartedAt);
    const arrivedAt = new Map<string, number>();
    for (const chat of chats) {
      if (chat.status !== 200 || !chat.completed) failedChats++;
      for (const [marker, at] of chat.markers) arrivedAt.set(marker, at);
    }
    for (const marker of markers) {
      const sent = sentAt.get(marker);
      const arrived = arrivedAt.get(marker);
      if (sent === undefined || arrived === undefined) missing++;
      else {
        samples.push(arrived - sent);
        if (sent > allStartedAt) steadySamples.push(arrived - sent);
      }
    }
  }
  const client = clientStats.stop();
  const [endpoint, fn] = await Promise.all([
    options.bedrock.statsStop(),
    options.function.statsStop(),
  ]);
  const streams = options.concurrency * options.rounds;
  const fragments = streams * options.fragments;
  const cost = (stats: ProcessStats): ProcessCost => ({
    cpuMsPerFragment: stats.cpuMs / fragments,
    ...(stats.descendantCpuMs === undefined
      ? {}
      : { environmentsCpuMsPerFragment: stats.descendantCpuMs / fragments }),
    eventLoopP99Ms: stats.eventLoopP99Ms,
  });
  return {
    samples,
    steadySamples,
    lastStreamStartMs,
    streams,
    missing,
    failedChats,
    slowdown: wallMs / options.rounds / (options.fragments * options.delayMs),
    function: cost(fn),
    client: cost(client),
    endpoint: cost(endpoint),
  };
}
