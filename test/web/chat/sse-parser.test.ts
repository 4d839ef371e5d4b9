import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseParser, type SseMessage } from '../../../web/src/chat/sse-parser.js';

function parse(chunks: readonly string[]) {
  const events: SseMessage[] = [];
  const comments: string[] = [];
  const retries: number[] = [];
  const parser = createSseParser({
    onEvent: (message) => events.push(message),
    onComment: (text) => comments.push(text),
    onRetry: (ms) => retries.push(ms),
  });
  for (const chunk of chunks) parser.feed(chunk);
  return { events, comments, retries };
}

const message = (event: string, data: string, id = ''): SseMessage => ({ event, data, id });

describe('createSseParser', () => {
  it.each([
    ['LF', 'event: a\ndata: 1\n\ndata: 2\n\n'],
    ['CRLF', 'event: a\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n'],
    ['CR', 'event: a\rdata: 1\r\rdata: 2\r\r'],
    ['BOM', '\ufeffevent: a\ndata: 1\n\ndata: 2\n\n'],
  ])('parses %s streams, split at every position', (_name, stream) => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const { events } = parse([stream.slice(0, cut), stream.slice(cut)]);
      expect(events).toEqual([message('a', '1'), message('message', '2')]);
    }
  });

  it('counts a CRLF split across chunks once', () => {
    const { events } = parse(['data: 1\r', '\ndata: 2\r', '\n\r', '\n']);
    expect(events).toEqual([message('message', '1\n2')]);
  });

  it('strips only one BOM, only at the start', () => {
    expect(parse(['\ufeff\ufeffdata: x\n\n']).events).toEqual([]);
    expect(parse(['data: \ufeffx\n\n']).events).toEqual([message('message', '\ufeffx')]);
  });

  it('joins multi-line data, reports comments and retry, keeps the last id', () => {
    const { events, comments, retries } = parse([
      ': ping\n:raw\nid: 7\nretry: 1500\nretry: x\ndata\ndata:  two spaces\ndata:3\n\n',
    ]);
    expect(events).toEqual([message('message', '\n two spaces\n3', '7')]);
    expect(comments).toEqual(['ping', 'raw']);
    expect(retries).toEqual([1500]);
  });

  it('does not dispatch events without data or an unfinished last event', () => {
    expect(parse(['event: a\n\nevent: b\ndata: 1']).events).toEqual([]);
  });

  it('resets the event type after each dispatch and ignores unknown fields', () => {
    const { events } = parse(['event: a\nfoo: bar\ndata: 1\n\ndata: 2\n\n']);
    expect(events).toEqual([message('a', '1'), message('message', '2')]);
  });

  it('gives the same events for any chunking', () => {
    const stream = ': hi\r\nevent: token\r\ndata: {"content":"a\\nb"}\r\n\r\nevent: x\rdata:\r\r';
    const expected = parse([stream]).events;
    fc.assert(
      fc.property(fc.array(fc.nat({ max: stream.length }), { maxLength: 6 }), (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), stream.length];
        const chunks = points.slice(1).map((end, index) => stream.slice(points[index], end));
        expect(parse(chunks).events).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
