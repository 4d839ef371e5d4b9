import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { StreamEvent } from '../../functions/contract/chat-events.js';
import { createSseStream } from '../../functions/sse/sse-stream.js';
import { trickyText } from '../support/answer-arbitraries.js';

const decoder = new TextDecoder();
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const token = (content: string): StreamEvent => ({ event: 'token', data: { content } });
const frames = (chunk: Uint8Array | undefined) =>
  decoder.decode(chunk).split('\n\n').filter(Boolean);

describe('createSseStream coalescing tokens (the default)', () => {
  it('writes a token at once when the stream is idle, before the turn ends', async () => {
    const sse = createSseStream();
    const reader = sse.stream.getReader();
    const read = reader.read();
    sse.send(token('Hi'));
    // The turn's end is a setImmediate scheduled after the token: the read must win the race.
    const first = await Promise.race([read, nextTurn().then(() => 'late' as const)]);
    expect(first).not.toBe('late');
    expect(frames((first as ReadableStreamReadResult<Uint8Array>).value)).toEqual([
      'event: token\ndata: {"content":"Hi"}',
    ]);
    sse.close();
  });

  it('merges the tokens that arrive later in the same turn into one event at its end', async () => {
    const sse = createSseStream();
    const reader = sse.stream.getReader();
    const first = reader.read();
    sse.send(token('a'));
    sse.send(token('b'));
    await Promise.resolve();
    sse.send(token('c'));
    expect(frames((await first).value)).toEqual(['event: token\ndata: {"content":"a"}']);
    const second = reader.read();
    await nextTurn();
    expect(frames((await second).value)).toEqual(['event: token\ndata: {"content":"bc"}']);
    // A new turn on an idle stream writes at once again.
    const third = reader.read();
    sse.send(token('d'));
    expect(frames((await third).value)).toEqual(['event: token\ndata: {"content":"d"}']);
    sse.close();
  });

  it('merges tokens while the consumer has not taken the previous write, and sends them when it pulls', async () => {
    const sse = createSseStream();
    sse.send(token('a')); // queued: nobody reads yet
    for (const content of ['b', 'c', 'd']) {
      await nextTurn();
      sse.send(token(content));
    }
    await nextTurn();
    const reader = sse.stream.getReader();
    expect(frames((await reader.read()).value)).toEqual(['event: token\ndata: {"content":"a"}']);
    expect(frames((await reader.read()).value)).toEqual(['event: token\ndata: {"content":"bcd"}']);
    sse.close();
  });

  it('never lets ticket, result, error or a heartbeat overtake pending tokens', async () => {
    const sse = createSseStream();
    const text = readText(sse.stream);
    sse.send(token('a'));
    sse.send(token('b'));
    sse.send({
      event: 'ticket',
      data: { issue_id: '1', subject: 's', summary: 'm', resolution: 'r' },
    });
    sse.send(token('c'));
    sse.comment('ping');
    sse.send(token('d'));
    sse.send({ event: 'error', data: { code: 'internal', message: 'y', retryable: false } });
    sse.send(token('e'));
    sse.close();
    expect((await text).split('\n\n').filter(Boolean)).toEqual([
      'event: token\ndata: {"content":"a"}',
      'event: token\ndata: {"content":"b"}',
      'event: ticket\ndata: {"issue_id":"1","subject":"s","summary":"m","resolution":"r"}',
      'event: token\ndata: {"content":"c"}',
      ': ping',
      'event: token\ndata: {"content":"d"}',
      'event: error\ndata: {"code":"internal","message":"y","retryable":false}',
      'event: token\ndata: {"content":"e"}',
    ]);
  });

  it('writes one event per token when coalescing is off', async () => {
    const sse = createSseStream({ coalesceTokens: false });
    const text = readText(sse.stream);
    sse.send(token('a'));
    sse.send(token('b'));
    sse.close();
    expect(await text).toBe(
      'event: token\ndata: {"content":"a"}\n\nevent: token\ndata: {"content":"b"}\n\n',
    );
  });

  it('keeps every character and every event in order, whatever the turns and the reader', async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('token' as const), content: trickyText(12) }),
      fc.record({
        kind: fc.constantFrom('ticket' as const, 'turn' as const, 'microtask' as const),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 10 }),
        async (steps, readerPauses) => {
          const sse = createSseStream();
          const received = readEvents(sse.stream, readerPauses);
          let expectedText = '';
          const expected: string[] = [];
          let ticket = 0;
          for (const next of steps) {
            if (next.kind === 'token') {
              sse.send(token(next.content));
              expectedText += next.content;
            } else if (next.kind === 'ticket') {
              if (expectedText !== '') expected.push(`text:${expectedText}`);
              expectedText = '';
              const issueId = String(++ticket);
              sse.send({
                event: 'ticket',
                data: { issue_id: issueId, subject: 's', summary: 'm', resolution: 'r' },
              });
              expected.push(`ticket:${issueId}`);
            } else if (next.kind === 'turn') await nextTurn();
            else await Promise.resolve();
          }
          if (expectedText !== '') expected.push(`text:${expectedText}`);
          sse.close();
          expect(joinTokens(await received)).toEqual(expected);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('createSseStream writing the rest of a turn as one chunk', () => {
  const meta: StreamEvent = {
    event: 'meta',
    data: { conversationId: 'c', inquiryId: 'i', version: 1, modelId: 'm' },
  };
  const progress = (step: 'analyzing' | 'retrieving'): StreamEvent => ({
    event: 'progress',
    data: { step },
  });

  it('writes the first event of a turn at once, and what follows in the turn as one chunk at its end', async () => {
    const sse = createSseStream();
    const reader = sse.stream.getReader();
    const first = reader.read();
    sse.send(meta);
    sse.send(progress('analyzing'));
    await Promise.resolve();
    sse.send(progress('retrieving'));
    sse.send(token('a'));
    sse.send(token('b'));
    const firstRead = await Promise.race([first, nextTurn().then(() => 'late' as const)]);
    expect(firstRead).not.toBe('late');
    expect(frames((firstRead as ReadableStreamReadResult<Uint8Array>).value)).toEqual([
      'event: meta\ndata: {"conversationId":"c","inquiryId":"i","version":1,"modelId":"m"}',
    ]);
    const second = reader.read();
    await nextTurn();
    expect(frames((await second).value)).toEqual([
      'event: progress\ndata: {"step":"analyzing"}',
      'event: progress\ndata: {"step":"retrieving"}',
      'event: token\ndata: {"content":"ab"}',
    ]);
    sse.close();
  });

  it('lets a heartbeat push out what is held, ahead of it and in the same chunk', async () => {
    vi.useFakeTimers();
    try {
      const sse = createSseStream({ heartbeatMs: 1000 });
      sse.send(meta); // queued: nobody reads yet, so what follows is held
      sse.send(progress('analyzing'));
      vi.advanceTimersByTime(1000);
      const reader = sse.stream.getReader();
      expect(frames((await reader.read()).value)).toEqual([
        'event: meta\ndata: {"conversationId":"c","inquiryId":"i","version":1,"modelId":"m"}',
      ]);
      expect(frames((await reader.read()).value)).toEqual([
        'event: progress\ndata: {"step":"analyzing"}',
        ': ping',
      ]);
      expect(sse.heartbeatsSent).toBe(1);
      sse.close();
    } finally {
      vi.useRealTimers();
    }
  });
});

async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = '';
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
  }
  return text;
}

/** Decodes the events, pausing between reads for the given numbers of turns (a slow consumer). */
async function readEvents(
  stream: ReadableStream<Uint8Array>,
  pauses: readonly number[],
): Promise<{ event: string; data: Record<string, string> }[]> {
  const events: { event: string; data: Record<string, string> }[] = [];
  const parser = createParser({
    onEvent: (message) =>
      events.push({ event: message.event ?? '', data: JSON.parse(message.data) }),
  });
  const reader = stream.getReader();
  const textDecoder = new TextDecoder();
  for (let reads = 0; ; reads++) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(textDecoder.decode(value, { stream: true }));
    for (let pause = pauses[reads % pauses.length] ?? 0; pause > 0; pause--) await nextTurn();
  }
  return events;
}

/** Consecutive token events joined: what a reader sees, independent of how they were cut. */
function joinTokens(events: readonly { event: string; data: Record<string, string> }[]): string[] {
  const joined: string[] = [];
  let text = '';
  for (const event of events) {
    if (event.event === 'token') {
      expect(event.data.content).not.toBe('');
      text += event.data.content;
      continue;
    }
    if (text !== '') joined.push(`text:${text}`);
    text = '';
    joined.push(`${event.event}:${event.data.issue_id}`);
  }
  if (text !== '') joined.push(`text:${text}`);
  return joined;
}
