import { createSocket, type Socket } from 'node:dgram';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LocalStack } from '../../local/start-local-stack.js';
import { bundleApiHandler } from '../../scripts/bundle-api-handler.js';
import { eventsNamed, postChat } from '../support/chat-client.js';
import { results } from '../support/chat-core-harness.js';
import { scriptedAnswer } from '../support/scripted-answer.js';
import { startTestStack } from '../support/start-test-stack.js';

// X-Ray tracing (observability issue), end to end: the real X-Ray SDK under the Powertools Tracer,
// in the bundled handler under the real Lambda runtime client (local/lambda), sends its
// documents over UDP to a "daemon" — here a socket this test listens on — as in Lambda, where
// the daemon runs beside the function (AWS_XRAY_DAEMON_ADDRESS). The local execution
// environment sets what the SDK and the Tracer look for (LAMBDA_TASK_ROOT: the SDK's Lambda
// mode; AWS_EXECUTION_ENV: the Tracer works only in Lambda), and with `activeTracing` each
// invocation's trace header is sampled with Lambda's segment as parent, which the runtime client
// puts in _X_AMZN_TRACE_ID. Sources: aws-xray-sdk-core dist/lib/aws-xray.js, env/aws_lambda.js,
// utils.js (populateTraceData), daemon_config.js; @aws-lambda-powertools/tracer Tracer.js.

interface TraceDocument {
  readonly id: string;
  readonly name: string;
  readonly type?: string;
  readonly trace_id?: string;
  readonly parent_id?: string;
  readonly start_time: number;
  readonly end_time?: number;
  readonly in_progress?: boolean;
  readonly annotations?: Record<string, string | number | boolean>;
  readonly aws?: { readonly operation?: string };
  readonly subsegments?: TraceDocument[];
}

/** A stand-in X-Ray daemon: every datagram is a header line and one JSON document. */
class UdpDaemon {
  readonly datagrams: string[] = [];
  private constructor(private readonly socket: Socket) {
    socket.on('message', (message) => this.datagrams.push(message.toString('utf8')));
  }

  static async listen(): Promise<UdpDaemon> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return new UdpDaemon(socket);
  }

  get address(): string {
    const { address, port } = this.socket.address() as AddressInfo;
    return `${address}:${port}`;
  }

  /** Every document received, nested subsegments flattened, parents before children. */
  documents(): TraceDocument[] {
    const flatten = (document: TraceDocument): TraceDocument[] => [
      document,
      ...(document.subsegments ?? []).flatMap(flatten),
    ];
    return this.datagrams.flatMap((datagram) => {
      const [header, body] = datagram.split('\n');
      expect(JSON.parse(header ?? '')).toEqual({ format: 'json', version: 1 });
      return flatten(JSON.parse(body ?? '') as TraceDocument);
    });
  }

  /**
   * Resolves once a marker datagram sent now has arrived. A socket's datagrams from loopback
   * arrive in the order they were sent, so whatever the function sent before this call has
   * arrived too; the marker itself is taken out again.
   */
  async drain(): Promise<void> {
    const marker = `marker-${Date.now()}-${Math.random()}`;
    const { address, port } = this.socket.address() as AddressInfo;
    const sender = createSocket('udp4');
    try {
      await new Promise<void>((resolve, reject) =>
        sender.send(marker, port, address, (error) => (error ? reject(error) : resolve())),
      );
      await vi.waitFor(() => expect(this.datagrams).toContain(marker));
    } finally {
      sender.close();
    }
    this.datagrams.splice(this.datagrams.indexOf(marker), 1);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

type Stack = LocalStack & { bedrock: NonNullable<LocalStack['bedrock']> };
let daemon: UdpDaemon;
beforeAll(async () => {
  daemon = await UdpDaemon.listen();
});
afterAll(() => daemon?.close());

const startTracedStack = (tracing: boolean) =>
  startTestStack({
    activeTracing: true,
    functionEnvironment: {
      POWERTOOLS_TRACE_ENABLED: String(tracing),
      AWS_XRAY_DAEMON_ADDRESS: daemon.address,
    },
  }) as Promise<Stack>;

describe('tracing off (the default), even with sampled trace headers', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTracedStack(false);
  });
  afterAll(() => stack?.stop());

  it('sends nothing to the daemon', async () => {
    const response = await postChat(stack.url, { message: 'VPNにつながらない' }, { user: 'off' });
    expect(eventsNamed(response, 'result')).toHaveLength(1);
    // Instead of a pause: once the handler returned (its runtime asks for the next invocation),
    // anything it sent is on its way; the marker shows it has arrived.
    await vi.waitFor(() => expect(stack.function.quiescent).toBe(true));
    await daemon.drain();
    expect(daemon.datagrams).toEqual([]);
  });
});

describe('tracing on (POWERTOOLS_TRACE_ENABLED=true)', () => {
  let stack: Stack;
  beforeAll(async () => {
    daemon.datagrams.length = 0;
    stack = await startTracedStack(true);
  });
  afterAll(() => stack?.stop());

  it('traces a chat: the request until its last byte, Retrieve, ConverseStream and DynamoDB', async () => {
    const user = 'traced-user';
    const message = 'プリンターが印刷できない';
    // An answer streamed over ~400 ms: the stop poller (every 50 ms here) reads the conversation
    // while it is written, so the trace holds that read too, whatever the machine's speed.
    stack.bedrock.enqueueScript(
      scriptedAnswer(results('プリンターのドライバーを再インストールしてください。', []), {
        size: 10,
        delayMs: 40,
      }),
    );
    const response = await postChat(stack.url, { message }, { user });
    expect(eventsNamed(response, 'result')).toHaveLength(1);
    const requestName = '## POST /api/chat';
    await vi.waitFor(() =>
      expect(daemon.documents().map((document) => document.name)).toContain(requestName),
    );

    const documents = daemon.documents();
    const request = documents.find((document) => document.name === requestName);
    // One trace, the invocation's, under Lambda's own segment (the trace header's Parent).
    expect(request?.trace_id).toMatch(/^1-[0-9a-f]{8}-[0-9a-f]{24}$/);
    expect(request?.parent_id).toMatch(/^[0-9a-f]{16}$/);
    for (const document of documents) {
      if (document.type === 'subsegment') expect(document.trace_id).toBe(request?.trace_id);
      expect(document.in_progress, document.name).toBeUndefined();
    }
    expect(request?.annotations).toMatchObject({
      route: '/api/chat',
      method: 'POST',
      status: 200,
      chat_outcome: 'complete',
      owner_hash: expect.stringMatching(/^[0-9a-f]{16}$/),
    });

    const children = documents.filter((document) => document.parent_id === request?.id);
    const calls = (name: string) =>
      children.filter((document) => document.name === name).map((document) => document.aws);
    expect(calls('BedrockAgentRuntime')).toContainEqual(
      expect.objectContaining({ operation: 'Retrieve' }),
    );
    expect(calls('BedrockRuntime')).toEqual([
      expect.objectContaining({ operation: 'ConverseStream' }),
    ]);
    const dynamoOperations = new Set(calls('DynamoDB').map((aws) => aws?.operation));
    // The user turn's commit before the first byte, and the answer's commit at the end.
    expect(dynamoOperations).toContain('TransactWriteItems');
    expect(
      calls('DynamoDB').filter((aws) => aws?.operation === 'TransactWriteItems').length,
    ).toBeGreaterThanOrEqual(2);
    // …and the stop poller's reads in between.
    expect(dynamoOperations.size).toBeGreaterThan(1);

    // The SDK's ConverseStream subsegment ends when the response starts; ours covers the stream.
    const converse = children.find((document) => document.name === 'BedrockRuntime');
    const stream = children.find((document) => document.name === '## ConverseStream stream');
    expect(stream?.annotations).toMatchObject({ stop_reason: expect.any(String) });
    expect(stream?.start_time).toBeLessThanOrEqual(converse?.start_time ?? 0);
    expect(stream?.end_time).toBeGreaterThanOrEqual(converse?.end_time ?? Infinity);
    // The request's subsegment closes after the last SDK call and the stream.
    const latestChildEnd = Math.max(...children.map((document) => document.end_time ?? Infinity));
    expect(request?.end_time).toBeGreaterThanOrEqual(latestChildEnd);

    const everything = daemon.datagrams.join('\n');
    expect(everything).not.toContain(message);
    expect(everything).not.toContain(user);
  });
});

// The stack bundles the function without the tracer when its `tracing` setting is off
// (api-function.ts, the same define as here).
describe('the API bundle', () => {
  it('holds the X-Ray SDK by default and none of it built without the tracer', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'tracer-bundle-'));
    try {
      const bundleText = async (omitTracer: boolean) => {
        const name = `handler-${omitTracer}`;
        await bundleApiHandler({ outfile: join(directory, `${name}.mjs`), omitTracer });
        // The entry and its chunks (the bundle is split, ADR 0034): all of it ships.
        const files = (await readdir(directory)).filter(
          (file) => file.startsWith(name) && file.endsWith('.mjs'),
        );
        const texts = await Promise.all(
          files.map((file) => readFile(join(directory, file), 'utf8')),
        );
        return texts.join('\n');
      };
      // The X-Ray SDK's SDK v3 middleware name, and a Tracer message.
      const xray = 'XRaySDKInstrumentation';
      const tracer = 'Failed to get the current sub/segment from the context';
      const withTracer = await bundleText(false);
      expect(withTracer).toContain(xray);
      expect(withTracer).toContain(tracer);
      const withoutTracer = await bundleText(true);
      expect(withoutTracer).not.toContain(xray);
      expect(withoutTracer).not.toContain(tracer);
      expect(withoutTracer.length).toBeLessThan(withTracer.length - 100_000);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
