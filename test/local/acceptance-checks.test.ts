import { describe, expect, it } from 'vitest';
import { contaminationCheck, groundingCheck } from '../integ/checks/answer-checks.js';
import { heartbeatCheck, tokenSpreadCheck } from '../integ/checks/streaming-checks.js';
import type { IntegTarget } from '../integ/integ-target.js';
import { answerOf, type ChatEventReceived, type StreamedChat } from '../integ/streamed-chat.js';
import type { SentChat, SuiteSession } from '../integ/suite-session.js';

/**
 * The acceptance checks' verdicts on recorded streams: each check must be able to fail. (The
 * dry run in acceptance-dry-run.test.ts proves the passing paths against the local stack.)
 */

interface ScriptedRead {
  readonly atMs: number;
  readonly tokens?: readonly string[];
  readonly heartbeat?: boolean;
}

function sentChat(
  reads: readonly ScriptedRead[],
  answer: {
    readonly retrieved?: readonly string[];
    readonly cards?: readonly string[];
    readonly advice?: string;
    readonly mailDraft?: string;
    readonly todos?: readonly string[];
    readonly conversationId?: string;
    readonly inquiryId?: string;
    readonly status?: 'complete' | 'truncated';
  } = {},
): SentChat {
  const lastAt = reads.at(-1)?.atMs ?? 0;
  const events: ChatEventReceived[] = [
    {
      event: 'meta',
      data: { conversationId: answer.conversationId ?? 'c1', inquiryId: answer.inquiryId ?? 'i1' },
      atMs: 0,
    },
    {
      event: 'kb_chunks',
      data: { chunks: (answer.retrieved ?? []).map((id) => ({ issue_id: id, subject: `s${id}` })) },
      atMs: 0,
    },
    ...reads.flatMap((read) =>
      (read.tokens ?? []).map((content) => ({
        event: 'token',
        data: { content },
        atMs: read.atMs,
      })),
    ),
    ...(answer.cards ?? []).map((id) => ({
      event: 'ticket',
      data: { issue_id: id, subject: `s${id}` },
      atMs: lastAt,
    })),
    {
      event: 'result',
      data: {
        response_type: 'results',
        status: answer.status ?? 'complete',
        general_advice: answer.advice ?? reads.flatMap((read) => read.tokens ?? []).join(''),
        mail_draft: answer.mailDraft ?? '',
        todo_actions: answer.todos ?? [],
      },
      atMs: lastAt,
    },
  ];
  const chat: StreamedChat = {
    status: 200,
    contentType: 'text/event-stream',
    errorBody: '',
    events,
    reads: reads.map((read) => ({
      atMs: read.atMs,
      bytes: 100,
      events: (read.tokens ?? []).map(() => 'token'),
      heartbeats: read.heartbeat ? 1 : 0,
      paddings: 0,
      adviceChars: (read.tokens ?? []).join('').length,
    })),
    heartbeatsAtMs: reads.filter((read) => read.heartbeat).map((read) => read.atMs),
    firstTokenMs: reads.find((read) => read.tokens)?.atMs,
    totalMs: lastAt,
    bytes: 100 * reads.length,
  };
  return { label: 'chat', message: 'm', chat, answer: answerOf(chat), referencedIds: [] };
}

function sessionOf(chats: readonly SentChat[], target: Partial<IntegTarget> = {}): SuiteSession {
  const queue = [...chats];
  const sent: SentChat[] = [];
  return {
    target: target as IntegTarget,
    chats: sent,
    conversationIds: new Set(),
    async send() {
      const next = queue.shift();
      if (!next) throw new Error('no scripted chat left');
      sent.push(next);
      return next;
    },
  };
}

describe('tokenSpreadCheck', () => {
  it('fails when the advice arrives in one read (a front end held the writes back)', () => {
    const burst = sentChat([{ atMs: 900, tokens: ['Restart ', 'the ', 'VPN ', 'client.'] }]);
    expect(tokenSpreadCheck(burst)).toMatchObject({
      status: 'fail',
      figures: { readsCarryingAdvice: 1 },
    });
  });

  it('fails when one read carries nearly all of it', () => {
    const chat = sentChat([
      { atMs: 100, tokens: ['R'] },
      { atMs: 900, tokens: ['estart the VPN client and check the certificate.'] },
    ]);
    expect(tokenSpreadCheck(chat).status).toBe('fail');
  });

  it('passes advice spread over reads', () => {
    const chat = sentChat([
      { atMs: 100, tokens: ['Restart '] },
      { atMs: 200, tokens: ['the VPN '] },
      { atMs: 300, tokens: ['client.'] },
    ]);
    expect(tokenSpreadCheck(chat)).toMatchObject({ status: 'pass', figures: { spreadMs: 200 } });
  });
});

describe('heartbeatCheck', () => {
  const longAnswer = { message: 'long', minSpanMs: 60_000, how: 'scripted' };
  const beats = (times: readonly number[]) => [
    ...times.map((atMs) => ({ atMs, heartbeat: true })),
    { atMs: (times.at(-1) ?? 0) + 1000, tokens: ['done'] },
  ];

  it('passes heartbeats every 10 s over 60 s', async () => {
    const chat = sentChat(beats([10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000]));
    const outcome = await heartbeatCheck(sessionOf([chat], { heartbeatMs: 10_000, longAnswer }));
    expect(outcome).toMatchObject({ status: 'pass', figures: { heartbeatSpanMs: 60_000 } });
  });

  it('accepts a long answer that ran into MAX_TOKENS (truncated): the stream survived', async () => {
    const times = [10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000];
    const chat = sentChat(beats(times), { status: 'truncated' });
    const outcome = await heartbeatCheck(sessionOf([chat], { heartbeatMs: 10_000, longAnswer }));
    expect(outcome).toMatchObject({ status: 'pass', figures: { answerStatus: 'truncated' } });
  });

  it('fails when the answer ends before the span is covered', async () => {
    const chat = sentChat(beats([10_000, 20_000, 30_000]));
    const outcome = await heartbeatCheck(sessionOf([chat], { heartbeatMs: 10_000, longAnswer }));
    expect(outcome.status).toBe('fail');
    expect(outcome.summary).toMatch(/20000 ms only/);
  });

  it('fails when heartbeats arrive held back, in bunches', async () => {
    const chat = sentChat(beats([10_000, 10_001, 45_000, 45_001, 70_000, 70_001]));
    const outcome = await heartbeatCheck(sessionOf([chat], { heartbeatMs: 10_000, longAnswer }));
    expect(outcome.status).toBe('fail');
    expect(outcome.summary).toMatch(/held back/);
  });
});

describe('groundingCheck', () => {
  it('fails a card that is not among its chat’s retrieved tickets', () => {
    const session = sessionOf([]);
    (session.chats as SentChat[]).push(
      sentChat([{ atMs: 1, tokens: ['a'] }], {
        retrieved: ['1001', '1002'],
        cards: ['1001', '1099'],
      }),
    );
    expect(groundingCheck(session)).toMatchObject({
      status: 'fail',
      figures: { ticketCards: 2, ungroundedCards: 1 },
    });
  });

  it('fails when no answer had a card to check', () => {
    const session = sessionOf([]);
    (session.chats as SentChat[]).push(
      sentChat([{ atMs: 1, tokens: ['a'] }], { retrieved: ['1001'] }),
    );
    expect(groundingCheck(session).status).toBe('fail');
  });
});

describe('contaminationCheck', () => {
  const q1 = sentChat([{ atMs: 1, tokens: ['プリンター'] }], {
    retrieved: ['1096'],
    cards: ['1096'],
    inquiryId: 'q1',
  });

  it('fails when Q2’s to-dos carry a printer word or Q2’s draft names Q1’s ticket', async () => {
    const q2 = sentChat([{ atMs: 1, tokens: ['Salesforce'] }], {
      retrieved: ['1001'],
      cards: ['1001'],
      inquiryId: 'q2',
      mailDraft: '#1096 と同様に対応します',
      todos: ['プリンターを再起動する'],
    });
    const outcome = await contaminationCheck(sessionOf([q1, q2]));
    expect(outcome.status).toBe('fail');
    expect(outcome.details).toContain('todo_actions says "プリンター"');
    expect(outcome.details).toContain("mail_draft names Q1's ticket #1096");
  });

  it('fails when Q2 was answered as part of Q1’s inquiry', async () => {
    const q2 = sentChat([{ atMs: 1, tokens: ['Salesforce'] }], {
      retrieved: ['1001'],
      inquiryId: 'q1',
    });
    expect((await contaminationCheck(sessionOf([q1, q2]))).summary).toMatch(/Q1's inquiry/);
  });

  it('passes a clean Q2', async () => {
    const q2 = sentChat([{ atMs: 1, tokens: ['Salesforceのパスワードをリセットしてください'] }], {
      retrieved: ['1001'],
      cards: ['1001'],
      inquiryId: 'q2',
      mailDraft: 'パスワードのリセット手順をお送りします',
      todos: ['パスワードをリセットする'],
    });
    expect((await contaminationCheck(sessionOf([q1, q2]))).status).toBe('pass');
  });
});
