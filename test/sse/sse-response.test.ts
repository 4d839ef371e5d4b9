import { describe, expect, it } from 'vitest';
import { sseResponse } from '../../functions/sse/sse-response.js';
import { SSE_RESPONSE_HEADERS } from '../../functions/sse/sse-stream.js';

/** The SSE lifecycle both streaming routes share: heartbeat, padding, one error event, the end. */

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = '';
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    text += decoder.decode(read.value, { stream: true });
  }
  return text + decoder.decode();
}

const failureEvent = {
  code: 'internal',
  message: 'It failed. Please try again.',
  retryable: true,
} as const;

describe('sseResponse', () => {
  it('answers 200 with the SSE headers and ends the body when the producer is done', async () => {
    const logged: unknown[] = [];
    const response = sseResponse(
      { failureEvent, logFailure: (error) => logged.push(error) },
      async (sse) => {
        sse.send({ event: 'progress', data: { step: 'generating' } });
      },
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers).toEqual({ ...SSE_RESPONSE_HEADERS });
    expect(await readAll(response.body)).toBe('event: progress\ndata: {"step":"generating"}\n\n');
    expect(logged).toEqual([]);
  });

  it('ends a producer that throws with one error event, and logs the error', async () => {
    const logged: unknown[] = [];
    const bug = new Error('bug');
    const response = sseResponse(
      { failureEvent, logFailure: (error) => logged.push(error) },
      async (sse) => {
        sse.send({ event: 'progress', data: { step: 'generating' } });
        throw bug;
      },
    );
    expect(await readAll(response.body)).toBe(
      'event: progress\ndata: {"step":"generating"}\n\n' +
        `event: error\ndata: ${JSON.stringify(failureEvent)}\n\n`,
    );
    expect(logged).toEqual([bug]);
  });

  it('sends no second final event when the producer throws after its result or error', async () => {
    for (const final of [
      { event: 'error', data: { code: 'model_throttled', message: 'busy', retryable: true } },
      {
        event: 'result',
        data: {
          response_type: 'results',
          general_advice: 'ok',
          conversationId: 'c',
          version: 2,
          seq: 2,
          status: 'complete',
        },
      },
    ] as const) {
      const response = sseResponse({ failureEvent, logFailure: () => undefined }, async (sse) => {
        sse.send(final);
        throw new Error('telemetry failed');
      });
      const body = await readAll(response.body);
      expect(body.match(/^event: /gm)).toHaveLength(1);
      expect(body.startsWith(`event: ${final.event}\n`)).toBe(true);
    }
  });

  it('beats while the producer works and pads writes when padding is on', async () => {
    let finish!: () => void;
    const response = sseResponse(
      {
        heartbeatMs: 20,
        padding: { mode: 'every-flush', bytes: 8 },
        failureEvent,
        logFailure: () => undefined,
      },
      (sse) =>
        new Promise<void>((resolve) => {
          finish = () => {
            expect(sse.heartbeatsSent).toBeGreaterThan(0);
            resolve();
          };
        }),
    );
    await new Promise((resolve) => setTimeout(resolve, 70));
    finish();
    const body = await readAll(response.body);
    // Each ping carries an 8-byte padding comment (`:`, five spaces, the blank line).
    expect(body).toMatch(/^(: ping\n\n: {5}\n\n)+$/);
  });
});
