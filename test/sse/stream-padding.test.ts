import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StreamEvent } from '../../functions/contract/chat-events.js';
import { encodeComment, encodeSseEvent } from '../../functions/sse/sse-encoding.js';
import { createSseStream, type SseStreamOptions } from '../../functions/sse/sse-stream.js';
import {
  createStreamPadding,
  paddingComment,
  type StreamPaddingMode,
} from '../../functions/sse/stream-padding.js';

const decoder = new TextDecoder();
const token = (content: string): StreamEvent => ({ event: 'token', data: { content } });

async function readChunks(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const chunks: string[] = [];
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    chunks.push(decoder.decode(read.value));
  }
  return chunks;
}

/**
 * One chat's shape on a fake clock: meta at once, a pause (retrieval, time to first token),
 * tokens 20 ms apart, a pause longer than the heartbeat interval (2 s), a ticket and the end. Each
 * write comes in a turn of its own and the reader takes it before the next (the clock advances
 * asynchronously), so every write is one chunk and the test can look at each.
 */
async function runChat(padding: SseStreamOptions['padding']): Promise<string[]> {
  const sse = createSseStream({
    heartbeatMs: 2000,
    coalesceTokens: false,
    ...(padding === undefined ? {} : { padding: { now: () => Date.now(), ...padding } }),
  });
  const chunks = readChunks(sse.stream);
  sse.send({
    event: 'meta',
    data: { conversationId: 'c', inquiryId: 'i', version: 1, modelId: 'm' },
  });
  await vi.advanceTimersByTimeAsync(1500);
  for (const content of ['Re', 'start ', 'the ', 'printer.']) {
    sse.send(token(content));
    await vi.advanceTimersByTimeAsync(20);
  }
  await vi.advanceTimersByTimeAsync(2500);
  sse.send({
    event: 'ticket',
    data: { issue_id: '1048', subject: 'Printer offline', summary: 's', resolution: 'r' },
  });
  sse.close();
  return chunks;
}

function parseWithEventsourceParser(text: string) {
  const events: Pick<EventSourceMessage, 'event' | 'data'>[] = [];
  const comments: string[] = [];
  const parser = createParser({
    onEvent: ({ event, data }) => events.push({ event, data }),
    onComment: (comment) => comments.push(comment),
  });
  parser.feed(text);
  return { events, comments };
}

function parseWithWebClient(text: string) {
  const events: Pick<EventSourceMessage, 'event' | 'data'>[] = [];
  const comments: string[] = [];
  // The browser reads network chunks of any size: feed its parser in 1000-byte slices.
  const parser = createParser({
    onEvent: ({ event, data }) => events.push({ event, data }),
    onComment: (comment) => comments.push(comment),
  });
  for (let at = 0; at < text.length; at += 1000) parser.feed(text.slice(at, at + 1000));
  return { events, comments };
}

describe('paddingComment', () => {
  it('is an SSE comment of exactly the requested bytes', () => {
    expect(paddingComment(3)).toBe(':\n\n');
    expect(paddingComment(8)).toBe(':     \n\n');
    expect(Buffer.byteLength(paddingComment(16_384))).toBe(16_384);
  });

  it('refuses sizes that cannot hold a comment', () => {
    expect(() => paddingComment(2)).toThrow(RangeError);
    expect(() => paddingComment(10.5)).toThrow(RangeError);
  });
});

describe('createStreamPadding', () => {
  it('after-pause pads the first write, writes after a pause and every heartbeat', () => {
    let clock = 0;
    const padding = createStreamPadding({
      mode: 'after-pause',
      bytes: 5,
      pauseMs: 100,
      now: () => clock,
    });
    const pads = (kind: 'event' | 'heartbeat', at: number) => {
      clock = at;
      return padding.after(kind) !== '';
    };
    expect(pads('event', 0)).toBe(true); // the stream's first write
    expect(pads('event', 10)).toBe(false);
    expect(pads('event', 109)).toBe(false); // 99 ms after the previous write
    expect(pads('event', 209)).toBe(true); // 100 ms: a pause
    expect(pads('heartbeat', 210)).toBe(true);
    expect(padding.bytesAdded).toBe(15);
  });

  it.each<[StreamPaddingMode, number]>([
    ['off', 0],
    ['every-flush', 4],
  ])('%s pads %i of 4 writes', (mode, padded) => {
    const padding = createStreamPadding({ mode, bytes: 10, now: () => 0 });
    const added = ['event', 'event', 'heartbeat', 'event'].map(
      (kind) => padding.after(kind as 'event' | 'heartbeat') !== '',
    );
    expect(added.filter(Boolean)).toHaveLength(padded);
    expect(padding.bytesAdded).toBe(padded * 10);
  });
});

describe('createSseStream with padding', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('off writes exactly the bytes of a stream without the option', async () => {
    const without = await runChat(undefined);
    const off = await runChat({ mode: 'off' });
    expect(off).toEqual(without);
    // The frames of the events and heartbeats as the encoders write them, nothing else.
    const frames = [
      encodeSseEvent('meta', '{"conversationId":"c","inquiryId":"i","version":1,"modelId":"m"}'),
      ...['Re', 'start ', 'the ', 'printer.'].map((content) =>
        encodeSseEvent('token', JSON.stringify({ content })),
      ),
      encodeComment('ping'), // 2000 ms
      encodeComment('ping'), // 4000 ms
      encodeSseEvent(
        'ticket',
        '{"issue_id":"1048","subject":"Printer offline","summary":"s","resolution":"r"}',
      ),
    ];
    expect(off).toEqual(frames);
  });

  it('after-pause pads the first write, the first token after the pause and heartbeats', async () => {
    const chunks = await runChat({ mode: 'after-pause', bytes: 64 });
    const pad = paddingComment(64);
    const firstLine = (chunk: string) => chunk.split('\n')[0];
    expect(chunks.filter((chunk) => chunk.endsWith(pad)).map(firstLine)).toEqual([
      'event: meta',
      'event: token', // 1500 ms: the first token after the pause
      ': ping', // 2000 ms
      ': ping', // 4000 ms
    ]);
    // The 3 tokens that follow the first 20 ms apart are not padded, nor is the ticket 80 ms
    // after the last heartbeat: that write pushed out whatever was held.
    const unpadded = chunks.filter((chunk) => !chunk.endsWith(pad)).map(firstLine);
    expect(unpadded).toEqual(['event: token', 'event: token', 'event: token', 'event: ticket']);
  });

  it('every-flush pads every chunk', async () => {
    const chunks = await runChat({ mode: 'every-flush', bytes: 16 });
    expect(chunks.length).toBeGreaterThan(6);
    for (const chunk of chunks) expect(chunk.endsWith(paddingComment(16))).toBe(true);
  });

  it.each<StreamPaddingMode>(['after-pause', 'every-flush'])(
    '%s: eventsource-parser and the web client see the same events as without padding',
    async (mode) => {
      const plain = (await runChat(undefined)).join('');
      const padded = (await runChat({ mode, bytes: 4096 })).join('');
      expect(padded.length).toBeGreaterThan(plain.length + 4096);

      const reference = parseWithEventsourceParser(plain);
      const library = parseWithEventsourceParser(padded);
      expect(library.events).toEqual(reference.events);
      // The padding arrives as comments of spaces only; nothing else is added.
      expect(library.comments.filter((comment) => comment !== 'ping')).not.toHaveLength(0);
      for (const comment of library.comments.filter((text) => text !== 'ping')) {
        expect(comment).toMatch(/^ *$/);
      }

      const web = parseWithWebClient(padded);
      expect(web.events).toEqual(parseWithWebClient(plain).events);
      expect(web.events.map((event) => event.event)).toEqual([
        'meta',
        ...Array(4).fill('token'),
        'ticket',
      ]);
    },
  );
});
