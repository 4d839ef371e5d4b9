import { describe, expect, it } from 'vitest';
import {
  ChatEventValidationError,
  encodeChatEvent,
  encodeComment,
  encodeSseEvent,
} from '../../functions/sse/sse-encoding.js';

describe('encodeChatEvent', () => {
  it('frames a token event', () => {
    expect(
      encodeChatEvent({ event: 'token', data: { content: 'VPNに\n接続' } }),
    ).toMatchInlineSnapshot(`
      "event: token
      data: {"content":"VPNに\\n接続"}

      "
    `);
  });

  it('frames a meta event', () => {
    const meta = { conversationId: 'c1', inquiryId: 'i1', version: 3, modelId: 'm1' };
    expect(encodeChatEvent({ event: 'meta', data: meta })).toMatchInlineSnapshot(`
      "event: meta
      data: {"conversationId":"c1","inquiryId":"i1","version":3,"modelId":"m1"}

      "
    `);
  });

  it('rejects data that does not match the event schema', () => {
    const bad = { event: 'progress', data: { step: 'dreaming' } } as never;
    expect(() => encodeChatEvent(bad)).toThrow(ChatEventValidationError);
    expect(encodeChatEvent(bad, { validate: false })).toBe(
      'event: progress\ndata: {"step":"dreaming"}\n\n',
    );
  });
});

describe('encodeSseEvent', () => {
  it('splits multi-line data into one data line per line, for every line terminator', () => {
    expect(encodeSseEvent('note', 'a\nb\r\nc\rd\n')).toMatchInlineSnapshot(`
      "event: note
      data: a
      data: b
      data: c
      data: d
      data: 

      "
    `);
  });

  it.each(['', 'to ken', 'token\n', 'a:b', 'x\r', '1st', 'é'])(
    'rejects the event name %j',
    (name) => {
      expect(() => encodeSseEvent(name, '{}')).toThrow(TypeError);
    },
  );
});

describe('encodeComment', () => {
  it('frames a heartbeat comment', () => {
    expect(encodeComment('ping')).toBe(': ping\n\n');
    expect(encodeComment()).toBe(':\n\n');
    expect(encodeComment('a\nb')).toBe(': a\n: b\n\n');
  });
});
