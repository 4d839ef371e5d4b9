import {
  BedrockAgentRuntimeClient,
  RetrieveCommand,
  type RetrieveCommandInput,
} from '@aws-sdk/client-bedrock-agent-runtime';
import {
  BedrockRuntimeClient,
  ConverseStreamCommand,
  type ConverseStreamCommandInput,
} from '@aws-sdk/client-bedrock-runtime';
import { bedrockTransport } from '../../functions/adapters/bedrock/bedrock-transport.js';
import { markedAnswerScript } from './marked-answer.js';
import { postChatTimed } from './post-chat-timed.js';
import type { BedrockProcess } from './processes/bedrock-process-client.js';
import { wallClockNow } from './wall-clock.js';

export interface TimeToFirstTokenOptions {
  /** Base URL of the function (process C). */
  readonly url: string;
  /** The local Bedrock endpoint (process B), which both paths call. */
  readonly bedrock: BedrockProcess;
  readonly region: string;
  readonly runs: number;
  readonly nextStream: () => number;
}

export interface TimeToFirstToken {
  /** POST /api/chat → first `token` event at the client, ms. */
  readonly function: number[];
  /**
   * The same Retrieve + ConverseStream requests sent directly → first `contentBlockDelta`, ms,
   * with the SDK's default transport (HTTP/2, a new session per request).
   */
  readonly bare: number[];
  /** The same, with the function's transport (`bedrockTransport`: HTTP/1.1, kept alive). */
  readonly bareSameTransport: number[];
  /** Through the function: POST → each event's arrival (`meta`, `kb_chunks`, `progress:generating`, `token`), ms. */
  readonly timeline: ReadonlyMap<string, number[]>;
  readonly failedChats: number;
}

/** The events whose arrival times show where the function's time to first token goes. */
export const TIMELINE_EVENTS = ['meta', 'kb_chunks', 'progress:generating', 'token'] as const;

const MESSAGE = 'VPNに接続できない';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * Time to first token with a model that answers at once, through the whole function and bare
 * (only the requests the function made, replayed with the real SDK clients from this process).
 * Both paths cross processes the same way: client → function (C) → endpoint (B), and client →
 * endpoint (B). The bare calls run twice: with the SDK's default transport, and with the
 * function's (connections kept alive), the peer that leaves only what the function adds. Runs
 * rotate which path goes first; one unmeasured run of each warms clients and connections.
 */
export async function measureTimeToFirstToken(
  options: TimeToFirstTokenOptions,
): Promise<TimeToFirstToken> {
  // Each client its own transport, as in the function.
  const clientsWith = (transport: 'sdk-default' | 'function') => {
    const common = { endpoint: options.bedrock.endpoint, region: options.region, credentials };
    const handler = () => (transport === 'function' ? { requestHandler: bedrockTransport() } : {});
    return {
      agentRuntime: new BedrockAgentRuntimeClient({ ...common, ...handler() }),
      runtime: new BedrockRuntimeClient({ ...common, ...handler() }),
    };
  };
  const sdkDefaults = clientsWith('sdk-default');
  const sameTransport = clientsWith('function');
  const script = () =>
    markedAnswerScript({ stream: options.nextStream(), fragments: 20, delayMs: 0 });
  let failedChats = 0;
  const timeline = new Map<string, number[]>(TIMELINE_EVENTS.map((name) => [name, []]));
  let replay:
    | { retrieve: RetrieveCommandInput[]; converse: ConverseStreamCommandInput }
    | undefined;

  const viaFunction = async (run: number) => {
    await options.bedrock.takeRequests(); // forget the bare path's requests
    await options.bedrock.enqueueScripts([script()]);
    const chat = await postChatTimed(options.url, MESSAGE, `bench-ttft-${run}`);
    const firstTokenAt = chat.eventsAt.get('token');
    if (chat.status !== 200 || !chat.completed || firstTokenAt === undefined) failedChats++;
    if (run >= 0) {
      for (const name of TIMELINE_EVENTS)
        timeline.get(name)?.push((chat.eventsAt.get(name) ?? Number.NaN) - chat.startedAt);
    }
    const requests = await options.bedrock.takeRequests();
    const converse = requests.converse.at(-1);
    if (!converse) throw new Error('the function sent no ConverseStream request');
    replay = {
      retrieve: requests.retrieve.map(
        (request) =>
          ({ knowledgeBaseId: request.knowledgeBaseId, ...request.body }) as RetrieveCommandInput,
      ),
      converse: { modelId: converse.modelId, ...converse.body } as ConverseStreamCommandInput,
    };
    return (firstTokenAt ?? Number.NaN) - chat.startedAt;
  };

  const bare = async ({ agentRuntime, runtime }: typeof sdkDefaults) => {
    if (!replay) throw new Error('no function request to replay yet');
    await options.bedrock.enqueueScripts([script()]);
    const startedAt = wallClockNow();
    for (const input of replay.retrieve) await agentRuntime.send(new RetrieveCommand(input));
    const response = await runtime.send(new ConverseStreamCommand(replay.converse));
    let firstDeltaAt = Number.NaN;
    for await (const event of response.stream ?? []) {
      if (event.contentBlockDelta && Number.isNaN(firstDeltaAt)) firstDeltaAt = wallClockNow();
    }
    return firstDeltaAt - startedAt;
  };

  try {
    await viaFunction(-1);
    await bare(sdkDefaults);
    await bare(sameTransport);
    failedChats = 0;
    const result = {
      function: [] as number[],
      bare: [] as number[],
      bareSameTransport: [] as number[],
    };
    const paths = [
      async (run: number) => result.function.push(await viaFunction(run)),
      async () => result.bare.push(await bare(sdkDefaults)),
      async () => result.bareSameTransport.push(await bare(sameTransport)),
    ];
    // Each run starts with another path, so none always follows the same one.
    for (let run = 0; run < options.runs; run++) {
      for (let step = 0; step < paths.length; step++)
        await paths[(run + step) % paths.length]?.(run);
    }
    return { ...result, timeline, failedChats };
  } finally {
    for (const clients of [sdkDefaults, sameTransport]) {
      clients.agentRuntime.destroy();
      clients.runtime.destroy();
    }
  }
}
