import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../functions/contract/chat-events.js';
import { encodeChatEvent } from '../../../functions/sse/sse-encoding.js';
import { ApiError } from '../../../web/src/api/api-error.js';
import { type InvalidChatEvent, readChatStream } from '../../../web/src/chat/read-chat-stream.js';
import { encodeUtf8, fakeFetch } from '../../support/fake-fetch.js';

async function read(chunks: readonly string[], init?: Parameters<typeof fakeFetch>[1]) {
  const events: StreamEvent[] = [];
  const invalid: InvalidChatEvent[] = [];
  const { fetch, requests } = fakeFetch(chunks.map(encodeUtf8), init);
  await readChatStream({
    url: '/api/chat',
    body: { message: 'VPN' },
    headers: { 'x-dev-user': 'alice' },
    fetch,
    onEvent: (event) => events.push(event),
    onInvalidEvent: (problem) => invalid.push(problem),
  });
  return { events, invalid, requests };
}

const token = (content: string): StreamEvent => ({ event: 'token', data: { content } });

describe('readChatStream', () => {
  it('POSTs the body as JSON and delivers validated events in order', async () => {
    const { events, requests } = await read([
      encodeChatEvent(token('a')),
      ': ping\n\n',
      encodeChatEvent({ event: 'progress', data: { step: 'generating' } }),
    ]);
    expect(events).toEqual([token('a'), { event: 'progress', data: { step: 'generating' } }]);
    expect(requests[0]?.init).toMatchObject({
      method: 'POST',
      body: '{"message":"VPN"}',
      headers: { 'content-type': 'application/json', 'x-dev-user': 'alice' },
    });
  });

  it('reports invalid payloads, skips them and ignores unknown event names', async () => {
    const { events, invalid } = await read([
      'event: token\ndata: not json\n\n',
      'event: progress\ndata: {"step":"dreaming"}\n\n',
      'event: future_event\ndata: {}\n\n',
      'data: {"content":"unnamed"}\n\n',
      encodeChatEvent(token('ok')),
    ]);
    expect(events).toEqual([token('ok')]);
    expect(invalid).toEqual([
      { event: 'token', data: 'not json', reason: 'data is not JSON' },
      { event: 'progress', data: '{"step":"dreaming"}', reason: expect.stringContaining('step') },
    ]);
  });

  it('decodes CRLF framing, a BOM and multi-byte characters split across reads', async () => {
    const frame = '\ufeffevent: token\r\ndata: {"content":"接続😀"}\r\n\r\n';
    const bytes = encodeUtf8(frame);
    for (let cut = 1; cut < bytes.length; cut++) {
      const events: StreamEvent[] = [];
      const { fetch } = fakeFetch([bytes.slice(0, cut), bytes.slice(cut)]);
      await readChatStream({ url: '/', body: {}, fetch, onEvent: (event) => events.push(event) });
      expect(events).toEqual([token('接続😀')]);
    }
  });

  it('throws an ApiError with the API error for a non-2xx response', async () => {
    const body =
      '{"error":{"code":"bad_request","message":"message: message is required","field":"message"}}';
    const error = await read([body], {
      status: 400,
      headers: { 'content-type': 'application/json' },
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'bad_request',
      message: 'message: message is required',
      field: 'message',
    });
  });

  it('throws an ApiError for an error body that is not the API JSON', async () => {
    const error = await read(['<html>bad gateway</html>'], {
      status: 502,
      headers: { 'content-type': 'text/html' },
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'ApiError', status: 502, code: 'unrecognized_response' });
  });

  it('throws an ApiError when a 2xx response is not an event stream', async () => {
    const error = await read(['{}'], { headers: { 'content-type': 'application/json' } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ name: 'ApiError', status: 200, code: 'not_event_stream' });
  });

  it('stops reading and rejects with the abort reason when the signal aborts', async () => {
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    const { fetch } = fakeFetch([encodeUtf8(encodeChatEvent(token('first')))], { hold: true });
    const reading = readChatStream({
      url: '/',
      body: {},
      fetch,
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event);
        controller.abort(new Error('user pressed stop'));
      },
    });
    await expect(reading).rejects.toThrow('user pressed stop');
    expect(events).toEqual([token('first')]);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const { fetch } = fakeFetch([]);
    const signal = AbortSignal.abort(new Error('gone'));
    await expect(
      readChatStream({ url: '/', body: {}, fetch, signal, onEvent: () => {} }),
    ).rejects.toThrow('gone');
  });
});
