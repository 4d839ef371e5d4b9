import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSseStream, SSE_RESPONSE_HEADERS } from '../../functions/sse/sse-stream.js';

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = '';
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    text += decoder.decode(read.value, { stream: true });
  }
  return text + decoder.decode();
}

describe('createSseStream', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes events and heartbeats, then ends on close', async () => {
    const sse = createSseStream({ heartbeatMs: 1000 });
    expect(sse.send({ event: 'progress', data: { step: 'analyzing' } })).toBe(true);
    vi.advanceTimersByTime(2500);
    sse.close();
    expect(await readAll(sse.stream)).toBe(
      'event: progress\ndata: {"step":"analyzing"}\n\n: ping\n\n: ping\n\n',
    );
  });

  it('stops the heartbeat on close and ignores writes after it', async () => {
    const sse = createSseStream({ heartbeatMs: 1000 });
    sse.close();
    sse.close();
    expect(sse.closed).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(sse.send({ event: 'token', data: { content: 'late' } })).toBe(false);
    expect(sse.comment('late')).toBe(false);
    expect(await readAll(sse.stream)).toBe('');
  });

  it('stops the heartbeat when the consumer cancels the body', async () => {
    const sse = createSseStream({ heartbeatMs: 1000 });
    await sse.stream.cancel();
    expect(sse.closed).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(sse.send({ event: 'token', data: { content: 'x' } })).toBe(false);
  });

  it('sends a heartbeat every 10 s by default', async () => {
    const sse = createSseStream();
    vi.advanceTimersByTime(9_999);
    sse.comment('mark');
    vi.advanceTimersByTime(1);
    sse.close();
    expect(await readAll(sse.stream)).toBe(': mark\n\n: ping\n\n');
  });
});

describe('SSE_RESPONSE_HEADERS', () => {
  it('declares an uncompressed, unbuffered UTF-8 event stream', () => {
    expect(SSE_RESPONSE_HEADERS).toEqual({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    expect(Object.keys(SSE_RESPONSE_HEADERS)).not.toContain('content-encoding');
  });
});
