import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamHold } from '../../support/scripted-answer.js';
import {
  collectEvents,
  converseInput,
  fragmentsOf,
  startFixtureServer,
} from './local-bedrock-fixture.js';

describe('local Bedrock endpoint: ConverseStream', () => {
  let fixture: Awaited<ReturnType<typeof startFixtureServer>>;
  beforeAll(async () => {
    fixture = await startFixtureServer();
  });
  afterAll(() => fixture.close());

  it('streams a forced tool call as the real SDK decodes it, in Bedrock event order', async () => {
    fixture.server.enqueueScript({
      kind: 'stream',
      fragments: ['{"response_', 'type":"res', 'ults"}'],
    });
    const events = await collectEvents(fixture.runtime, converseInput('VPN'));

    expect(events.map((event) => Object.keys(event)[0])).toEqual([
      'messageStart',
      'contentBlockStart',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
      'messageStop',
      'metadata',
    ]);
    expect(events[0]?.messageStart).toEqual({ role: 'assistant' });
    expect(events[1]?.contentBlockStart?.contentBlockIndex).toBe(0);
    expect(events[1]?.contentBlockStart?.start?.toolUse).toEqual({
      toolUseId: expect.stringMatching(/^tooluse_/),
      name: 'submit_response',
    });
    expect(fragmentsOf(events)).toEqual(['{"response_', 'type":"res', 'ults"}']);
    expect(events[5]?.contentBlockStop).toEqual({ contentBlockIndex: 0 });
    expect(events[6]?.messageStop?.stopReason).toBe('tool_use');
    expect(events[7]?.metadata?.usage).toMatchObject({
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
      totalTokens: expect.any(Number),
    });
    expect(events[7]?.metadata?.metrics?.latencyMs).toEqual(expect.any(Number));
  });

  it('ends with the scripted stop reason', async () => {
    fixture.server.enqueueScript({
      kind: 'stream',
      fragments: ['{"resp'],
      stopReason: 'max_tokens',
    });
    const events = await collectEvents(fixture.runtime, converseInput('VPN'));
    expect(events.find((event) => event.messageStop)?.messageStop?.stopReason).toBe('max_tokens');
  });

  it('consumes scripts in FIFO order, one per request', async () => {
    fixture.server.enqueueScript({ kind: 'stream', fragments: ['first'] });
    fixture.server.enqueueScript({ kind: 'stream', fragments: ['second'] });
    expect(fragmentsOf(await collectEvents(fixture.runtime, converseInput('a')))).toEqual([
      'first',
    ]);
    expect(fragmentsOf(await collectEvents(fixture.runtime, converseInput('b')))).toEqual([
      'second',
    ]);
  });

  it('surfaces a throttle script as the SDK ThrottlingException after its retries', async () => {
    const retrying = await startFixtureServer({ maxAttempts: 2 });
    try {
      retrying.server.enqueueScript({ kind: 'throttle' });
      retrying.server.enqueueScript({ kind: 'throttle' });
      const failure = await retrying.runtime.send(converseInput('VPN')).catch((error) => error);
      expect(failure).toMatchObject({
        name: 'ThrottlingException',
        $metadata: { httpStatusCode: 429 },
      });
      // Both attempts reached the endpoint: the SDK treated it as retryable.
      expect(retrying.server.converseRequests).toHaveLength(2);
    } finally {
      await retrying.close();
    }
  });

  it('surfaces failAfter as ModelStreamErrorException during iteration, after N deltas', async () => {
    fixture.server.enqueueScript({
      kind: 'stream',
      fragments: ['{"a', '":', '1', '}'],
      failAfter: 2,
    });
    const response = await fixture.runtime.send(converseInput('VPN'));
    const deltas: string[] = [];
    const failure = await (async () => {
      for await (const event of response.stream ?? []) {
        const input = event.contentBlockDelta?.delta?.toolUse?.input;
        if (input !== undefined) deltas.push(input);
      }
    })().catch((error: unknown) => error);

    expect(failure).toMatchObject({ name: 'ModelStreamErrorException' });
    expect(deltas).toEqual(['{"a', '":']);
  });

  it('holds a pauseAfter stream after N deltas until its promise settles, then finishes', async () => {
    const hold = streamHold(2);
    fixture.server.enqueueScript({
      kind: 'stream',
      fragments: ['{"a', '":', '1', '}'],
      delayMs: 0,
      pauseAfter: [hold.pause],
    });
    const response = await fixture.runtime.send(converseInput('VPN'));
    const deltas: string[] = [];
    let released = false;
    let releasedBeforeThird: boolean | undefined;
    for await (const event of response.stream ?? []) {
      const input = event.contentBlockDelta?.delta?.toolUse?.input;
      if (input === undefined) continue;
      deltas.push(input);
      if (deltas.length === 2) {
        setTimeout(() => {
          released = true;
          hold.release();
        }, 100);
      }
      if (deltas.length === 3) releasedBeforeThird = released;
    }
    // Without the pause the third delta follows at once, before the timer releases it.
    expect(releasedBeforeThird).toBe(true);
    expect(deltas).toEqual(['{"a', '":', '1', '}']);
  });

  it('holds at each of several pauses in turn, releasing each only when its own promise settles', async () => {
    const holds = [1, 3].map(streamHold);
    fixture.server.enqueueScript({
      kind: 'stream',
      fragments: ['{"a', '":', '1', '}'],
      delayMs: 0,
      pauseAfter: holds.map(({ pause }) => pause),
    });
    const response = await fixture.runtime.send(converseInput('VPN'));
    const deltas: string[] = [];
    const releasedWhenSeen: number[] = [];
    let released = 0;
    for await (const event of response.stream ?? []) {
      const input = event.contentBlockDelta?.delta?.toolUse?.input;
      if (input === undefined) continue;
      deltas.push(input);
      releasedWhenSeen.push(released);
      const hold = holds.find(({ pause }) => pause.fragments === deltas.length);
      if (hold) {
        setTimeout(() => {
          released += 1;
          hold.release();
        }, 50);
      }
    }
    // Each delta after a hold arrives only once that hold's timer released it.
    expect(releasedWhenSeen).toEqual([0, 1, 1, 2]);
    expect(deltas).toEqual(['{"a', '":', '1', '}']);
  });

  it('keeps serving after a client aborts mid-stream', async () => {
    const fragments = Array.from({ length: 200 }, (_, index) => `${index},`);
    fixture.server.enqueueScript({ kind: 'stream', fragments, delayMs: 20 });
    const controller = new AbortController();
    const response = await fixture.runtime.send(converseInput('VPN'), {
      abortSignal: controller.signal,
    });
    let deltas = 0;
    await (async () => {
      for await (const event of response.stream ?? []) {
        if (event.contentBlockDelta) deltas += 1;
        controller.abort();
      }
    })().catch(() => undefined); // the SDK may end the iteration or throw AbortError
    expect(deltas).toBeLessThan(fragments.length);

    fixture.server.enqueueScript({ kind: 'stream', fragments: ['after'] });
    expect(fragmentsOf(await collectEvents(fixture.runtime, converseInput('VPN')))).toEqual([
      'after',
    ]);
  });

  it('rejects models other than offline.* with a ValidationException naming the fix', async () => {
    const failure = await fixture.runtime
      .send(converseInput('VPN', { modelId: 'anthropic.claude-3-5-sonnet-20240620-v1:0' }))
      .catch((error) => error);
    expect(failure).toMatchObject({
      name: 'ValidationException',
      $metadata: { httpStatusCode: 400 },
    });
    expect(failure.message).toContain('BEDROCK_RUNTIME_ENDPOINT');
  });

  it('records each request with the URL-decoded model id and the parsed body', async () => {
    const modelId = 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/offline.eu profile';
    fixture.server.enqueueScript({ kind: 'stream', fragments: ['{}'] });
    await collectEvents(fixture.runtime, converseInput('記録される問い合わせ', { modelId }));

    const recorded = fixture.server.converseRequests.at(-1);
    expect(recorded?.modelId).toBe(modelId);
    expect(recorded?.body.messages?.[0]?.content?.[0]?.text).toBe('記録される問い合わせ');
    expect(recorded?.body.toolConfig?.toolChoice?.tool?.name).toBe('submit_response');
  });
});
