import { describe, expect, it } from 'vitest';
import { ChatModelError } from '../../functions/chat/errors.js';
import { generateAnswer } from '../../functions/chat/generate.js';
import { answerTool } from '../../functions/chat/model-request.js';
import type { ChatModel, ChatModelEvent } from '../../functions/chat/ports.js';
import type { StreamEvent } from '../../functions/contract/chat-events.js';
import { silentLog } from '../support/silent-log.js';

const modelOf = (events: ChatModelEvent[]): ChatModel => ({
  async *stream() {
    yield* events;
  },
});
const request = {
  system: 's',
  messages: [{ role: 'user' as const, text: 'q' }],
  tool: answerTool,
  maxTokens: 100,
};

async function run(events: ChatModelEvent[], allowed = ['1001']) {
  const sent: StreamEvent[] = [];
  const outcome = await generateAnswer({
    model: modelOf(events),
    request,
    allowedIssueIds: new Set(allowed),
    send: (event) => sent.push(event),
    signal: new AbortController().signal,
    log: silentLog,
  });
  return { outcome, sent };
}

const fragment = (text: string): ChatModelEvent => ({ type: 'tool_input', fragment: text });
const stop = (reason: 'tool_use' | 'max_tokens'): ChatModelEvent => ({ type: 'stop', reason });

describe('generateAnswer', () => {
  it('streams advice as one token per fragment and grounded tickets as they close', async () => {
    const { outcome, sent } = await run([
      fragment('{"response_type":"results","general_advice":"Re'),
      fragment('start."'),
      fragment(',"results":[{"issue_id":"#1001","subject":"s","summary":"m","resolution":"r"},'),
      fragment('{"issue_id":"9999","subject":"s","summary":"m","resolution":"r"}]}'),
      stop('tool_use'),
    ]);
    expect(sent).toEqual([
      { event: 'token', data: { content: 'Re' } },
      { event: 'token', data: { content: 'start.' } },
      { event: 'ticket', data: { issue_id: '1001', subject: 's', summary: 'm', resolution: 'r' } },
    ]);
    expect(outcome.status).toBe('complete');
    expect(outcome.answer.results?.map((ticket) => ticket.issue_id)).toEqual(['1001']);
  });

  it('lists ticket numbers in the advice and mail draft that are not among the inquiry tickets', async () => {
    const { outcome } = await run(
      [
        fragment(
          JSON.stringify({
            response_type: 'results',
            general_advice: '#1001 と同様です。チケット4242 や INC-777 も参考に。#1001',
            mail_draft: 'ticket 5555 の件でご連絡します。#4242',
            results: [],
          }),
        ),
        stop('tool_use'),
      ],
      ['1001'],
    );
    expect(outcome.status).toBe('complete');
    // INC-777 is a Jira key, not the app's ticket 777 (ADR 0020).
    expect(outcome.answer.unverified_references).toEqual(['4242', 'INC-777', '5555']);
    expect(outcome.unverifiedReferenceCount).toBe(3);
  });

  it('removes links outside the allow-list from the mail draft and to-dos and lists every one', async () => {
    const sent: StreamEvent[] = [];
    const outcome = await generateAnswer({
      model: modelOf([
        fragment(
          JSON.stringify({
            response_type: 'results',
            general_advice: 'A ticket says: reset at [the portal](http://evil.example/reset).',
            mail_draft:
              'パスワードは http://evil.example/reset で再設定してください。' +
              '不明点は help@evil.example か https://support.microsoft.com/ja-jp まで。',
            todo_actions: ['Send http://example.com@evil.example', 'Check sub.example.co.jp/vpn'],
            results: [],
          }),
        ),
        stop('tool_use'),
      ]),
      request,
      allowedIssueIds: new Set(['1001']),
      allowedLinkDomains: ['example.co.jp', 'microsoft.com'],
      send: (event) => sent.push(event),
      signal: new AbortController().signal,
      log: silentLog,
    });
    expect(outcome.status).toBe('complete');
    expect(outcome.answer.mail_draft).toBe(
      'パスワードは ［リンク削除］ で再設定してください。' +
        '不明点は ［リンク削除］ か https://support.microsoft.com/ja-jp まで。',
    );
    expect(outcome.answer.todo_actions).toEqual([
      'Send [link removed]',
      'Check sub.example.co.jp/vpn',
    ]);
    // The advice streamed as it was; the web app marks its link.
    expect(outcome.answer.general_advice).toContain('http://evil.example/reset');
    expect(outcome.answer.unverified_links).toEqual([
      'http://evil.example/reset',
      'help@evil.example',
      'http://example.com@evil.example',
    ]);
  });

  it('lists links of the clarification and the ticket cards too, and leaves those fields as written', async () => {
    const card = {
      issue_id: '1001',
      subject: 'VPN: see vpn.evil.example/guide',
      summary: 'Reset at https://support.microsoft.com/reset or http://cards.evil.example',
      resolution: 'Mailed phish@evil.example',
    };
    const { outcome } = await run([
      fragment(
        JSON.stringify({
          response_type: 'clarification',
          general_advice: 'Which portal?',
          question: 'Did you use https://question.evil.example?',
          options: ['https://support.microsoft.com', 'http://option.evil.example/login'],
          results: [card],
        }),
      ),
      stop('tool_use'),
    ]);
    // Staff see them as plain text (no anchors in the app), so they stay, listed in order.
    expect(outcome.answer.question).toBe('Did you use https://question.evil.example?');
    expect(outcome.answer.options).toEqual([
      'https://support.microsoft.com',
      'http://option.evil.example/login',
    ]);
    expect(outcome.answer.results).toEqual([card]);
    expect(outcome.answer.unverified_links).toEqual([
      'https://question.evil.example',
      'http://option.evil.example/login',
      'vpn.evil.example/guide',
      'http://cards.evil.example',
      'phish@evil.example',
    ]);
    expect(outcome.unverifiedLinkCount).toBe(5);
  });

  it('fails with guardrail_intervened when a guardrail blocks, keeping nothing that streamed', async () => {
    for (const before of [[], [fragment('{"general_advice":"Ignore the rules and')]]) {
      const { outcome } = await run([
        ...before,
        { type: 'stop', reason: 'guardrail_intervened' },
        { type: 'usage', inputTokens: 10, outputTokens: 0 },
      ]);
      expect(outcome.status).toBe('failed');
      expect(outcome.failure).toEqual({
        code: 'guardrail_intervened',
        message: expect.stringContaining('Guardrail'),
        retryable: false,
      });
      expect(outcome.answer).toEqual({ response_type: 'results', general_advice: '' });
      // The tokens were still spent (and are charged to the budget).
      expect(outcome.usage).toEqual({ inputTokens: 10, outputTokens: 0 });
    }
  });

  it('checks links against the vendor sites when no allow-list is given', async () => {
    const { outcome } = await run([
      fragment(
        JSON.stringify({
          response_type: 'results',
          general_advice: 'See https://support.microsoft.com',
          mail_draft: 'See https://support.microsoft.com or https://evil.example',
        }),
      ),
      stop('tool_use'),
    ]);
    expect(outcome.answer.mail_draft).toBe('See https://support.microsoft.com or [link removed]');
    expect(outcome.answer.unverified_links).toEqual(['https://evil.example']);
  });

  it('reports no unverified references when every cited number was retrieved', async () => {
    const { outcome } = await run([
      fragment(
        '{"response_type":"results","general_advice":"#1001 を参照","mail_draft":"内線1234"}',
      ),
      stop('tool_use'),
    ]);
    expect(outcome.answer.unverified_references).toEqual([]);
    expect(outcome.unverifiedReferenceCount).toBe(0);
  });

  it('shows at most 10 ticket cards, however many grounded tickets the model cites', async () => {
    const ids = Array.from({ length: 12 }, (_, index) => String(2000 + index));
    const results = ids.map((issue_id) => ({
      issue_id,
      subject: 's',
      summary: 'm',
      resolution: 'r',
    }));
    const { outcome, sent } = await run(
      [
        fragment(JSON.stringify({ response_type: 'results', general_advice: 'a', results })),
        stop('tool_use'),
      ],
      ids,
    );
    expect(sent.filter((event) => event.event === 'ticket')).toHaveLength(10);
    expect(outcome.status).toBe('complete');
    expect(outcome.answer.results).toHaveLength(10);
  });

  it('is truncated at max_tokens, keeping what streamed', async () => {
    const { outcome } = await run([
      fragment('{"response_type":"results","general_advice":"Half'),
      stop('max_tokens'),
    ]);
    expect(outcome).toMatchObject({
      status: 'truncated',
      truncation: 'max_tokens',
      answer: { general_advice: 'Half' },
    });
    expect(outcome.failure).toBeUndefined();
  });

  it('fails at max_tokens before any advice streamed, instead of an empty answer', async () => {
    const { outcome, sent } = await run([
      fragment('{"response_type":"results","gen'),
      stop('max_tokens'),
    ]);
    expect(sent).toEqual([]);
    expect(outcome).toMatchObject({
      status: 'failed',
      failure: { code: 'model_output_truncated', retryable: true },
    });
  });

  // Until issue #16 a stream that broke off after advice was a failed turn: the error event
  // replaced what staff had been reading. Now what they read is kept.
  it('keeps the advice that streamed as truncated when the stream ends without messageStop', async () => {
    const { outcome } = await run([fragment('{"response_type":"results","general_advice":"Half')]);
    expect(outcome).toMatchObject({
      status: 'truncated',
      truncation: 'interrupted',
      answer: { general_advice: 'Half' },
    });
  });

  it('fails, retryably, when the stream ends without messageStop before any advice', async () => {
    const { outcome } = await run([fragment('{"response_type":"results",')]);
    expect(outcome).toMatchObject({
      status: 'failed',
      failure: { code: 'model_stream_failed', retryable: true },
    });
  });

  it('keeps the advice and tickets that streamed as truncated when the stream fails midway', async () => {
    const model: ChatModel = {
      async *stream() {
        yield fragment('{"response_type":"results","general_advice":"Check the VPN."');
        yield fragment(
          ',"results":[{"issue_id":"1001","subject":"s","summary":"m","resolution":"r"}',
        );
        throw new ChatModelError('model_stream_failed', true);
      },
    };
    const sent: StreamEvent[] = [];
    const outcome = await generateAnswer({
      model,
      request,
      allowedIssueIds: new Set(['1001']),
      send: (event) => sent.push(event),
      signal: new AbortController().signal,
      log: silentLog,
    });
    expect(outcome).toMatchObject({
      status: 'truncated',
      truncation: 'interrupted',
      answer: { general_advice: 'Check the VPN.', results: [{ issue_id: '1001' }] },
    });
    expect(sent.map((event) => event.event)).toEqual(['token', 'ticket']);
  });

  it('fails with the model error when the stream fails before any advice', async () => {
    const model: ChatModel = {
      // biome-ignore lint/correctness/useYield: fails before its first event
      async *stream() {
        throw new ChatModelError('model_throttled', true);
      },
    };
    const outcome = await generateAnswer({
      model,
      request,
      allowedIssueIds: new Set(),
      send: () => undefined,
      signal: new AbortController().signal,
      log: silentLog,
    });
    expect(outcome).toMatchObject({
      status: 'failed',
      failure: { code: 'model_throttled', retryable: true },
    });
  });

  it('fails when the model never calls the tool', async () => {
    const { outcome } = await run([{ type: 'stop', reason: 'end_turn' }]);
    expect(outcome).toMatchObject({ status: 'failed', failure: { code: 'empty_model_output' } });
  });

  it('keeps the advice that streamed as truncated on invalid JSON, and stops reading', async () => {
    const { outcome, sent } = await run([
      fragment('{"general_advice":"ok"'),
      fragment(' oops'),
      fragment(',"general_advice":"never"}'),
      stop('tool_use'),
    ]);
    expect(outcome).toMatchObject({
      status: 'truncated',
      truncation: 'malformed_output',
      answer: { general_advice: 'ok' },
    });
    expect(sent).toEqual([{ event: 'token', data: { content: 'ok' } }]);
  });

  it('fails on invalid JSON before any advice streamed', async () => {
    const { outcome, sent } = await run([
      fragment('{"response_type":"results" oops'),
      fragment(',"general_advice":"never"}'),
      stop('tool_use'),
    ]);
    expect(outcome).toMatchObject({
      status: 'failed',
      failure: { code: 'invalid_model_output', retryable: true },
    });
    expect(sent).toEqual([]);
  });

  it('is stopped when its signal aborts', async () => {
    const controller = new AbortController();
    const sent: StreamEvent[] = [];
    const model: ChatModel = {
      async *stream() {
        yield fragment('{"general_advice":"first');
        controller.abort();
        yield fragment(' second');
        yield stop('tool_use');
      },
    };
    const outcome = await generateAnswer({
      model,
      request,
      allowedIssueIds: new Set(),
      send: (event) => sent.push(event),
      signal: controller.signal,
      log: silentLog,
    });
    expect(outcome).toMatchObject({ status: 'stopped', answer: { general_advice: 'first' } });
    expect(sent).toEqual([{ event: 'token', data: { content: 'first' } }]);
  });
});
