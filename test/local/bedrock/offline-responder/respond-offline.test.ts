import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, answerSchema } from '../../../../functions/contract/answer.js';
import {
  collectEvents,
  converseInput,
  fragmentsOf,
  startFixtureServer,
} from '../local-bedrock-fixture.js';
import { TICKET_A, TICKET_B, ticketBlock, userMessage } from './offline-prompt-fixture.js';

const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;

describe('offline responder behind ConverseStream', () => {
  let fixture: Awaited<ReturnType<typeof startFixtureServer>>;
  beforeAll(async () => {
    fixture = await startFixtureServer();
  });
  afterAll(() => fixture.close());

  const ask = async (...args: Parameters<typeof converseInput>) => {
    const events = await collectEvents(fixture.runtime, converseInput(...args));
    const fragments = fragmentsOf(events);
    return {
      fragments,
      stopReason: events.find((event) => event.messageStop)?.messageStop?.stopReason,
      answer: () => answerSchema.parse(JSON.parse(fragments.join(''))) as Answer,
    };
  };

  it('only ever cites tickets present in the request, across varied inquiries', async () => {
    const inquiries = [
      'ログインできない',
      'Salesforceにログインしようとするとパスワードが正しくありませんと表示されます',
      'VPNにつながりません。昨日パスワードを変更しました。',
      '#9003 と同じ症状でVPNに接続できません',
      'チケット9006のようにアカウントがロックされました',
      'プリンターで印刷できない',
      'VPN',
      'Cannot log in to the VPN after resetting my password',
      'Outlook cannot send mail, like ticket 9007',
      'The printer on the 3rd floor shows offline',
      'login',
      '',
    ];
    const responseTypes = new Set<string>();
    for (const inquiry of inquiries) {
      for (const archive of [
        undefined,
        // archived as `### 1. 問い合わせ: Teams会議の音声 (#9008)` + `回答: #9008 を参照`
        [{ question: 'Teams会議の音声 (#9008)', advice: '#9008 を参照' }],
      ]) {
        const { answer, stopReason } = await ask(userMessage({ inquiry, archive }));
        const parsed = answer();
        responseTypes.add(parsed.response_type);
        expect(stopReason).toBe('tool_use');
        for (const result of parsed.results ?? [])
          expect(['9001', '9004']).toContain(result.issue_id);
      }
    }
    expect(responseTypes).toEqual(new Set(['clarification', 'results']));
  });

  it('asks back on a short inquiry when the tickets span categories, with options from them', async () => {
    const answer = (await ask(userMessage({ inquiry: 'ログインできない' }))).answer();

    expect(answer.response_type).toBe('clarification');
    expect(answer.question).toMatch(KANA);
    expect(answer.options?.length).toBeGreaterThanOrEqual(2);
    expect(answer.options?.length).toBeLessThanOrEqual(4);
    expect(answer.options?.some((option) => option.startsWith('Salesforce'))).toBe(true);
    expect(answer.options?.some((option) => option.startsWith('VPN'))).toBe(true);
    expect(answer.results).toBeUndefined();
  });

  it('answers with results once the working buffer holds its clarification', async () => {
    const answer = (
      await ask([
        { role: 'user', text: 'ログインできない' },
        { role: 'assistant', text: 'どのシステムについてのお問い合わせですか？' },
        {
          role: 'user',
          text: userMessage({ inquiry: 'VPN：Cannot log in to VPN (Login failed)' }),
        },
      ])
    ).answer();

    expect(answer.response_type).toBe('results');
    expect(answer.results?.[0]?.issue_id).toBe('9004');
  });

  it('answers a specific Japanese inquiry with results grounded in the best ticket', async () => {
    const answer = (
      await ask(
        userMessage({
          inquiry: 'Salesforceにログインしようとするとパスワードが正しくありませんと表示されます',
        }),
      )
    ).answer();

    expect(answer.response_type).toBe('results');
    expect(answer.results?.[0]).toMatchObject({
      issue_id: '9001',
      subject: 'Salesforceにログインできない（パスワードエラー）',
      resolution: expect.stringContaining('ロックを解除'),
    });
    expect(answer.general_advice).toMatch(/^## /);
    expect(answer.general_advice).toContain('#9001');
    expect(answer.mail_draft).toMatch(KANA);
    expect(answer.todo_actions?.length).toBeGreaterThanOrEqual(3);
    expect(answer.todo_actions?.length).toBeLessThanOrEqual(5);
    expect(answer.reasoning).toEqual(expect.any(String));
  });

  it('reads an English ticket whole even though its text has an "## Inquiry" heading', async () => {
    const answer = (
      await ask(
        userMessage({
          inquiry: 'AnyConnect says Login failed after a password reset',
          language: 'en',
        }),
      )
    ).answer();

    expect(answer.results?.[0]).toMatchObject({
      issue_id: '9004',
      resolution: expect.stringContaining('password writeback'),
    });
    expect(answer.general_advice).not.toMatch(KANA);
    expect(answer.mail_draft).not.toMatch(KANA);
  });

  it("shows an imported ticket's fenced inquiry and steps without their fence lines", async () => {
    const imported = {
      issueId: 'ITSD-123',
      subject: 'Cannot connect to VPN from home',
      score: 0.9,
      restricted: false,
      text: [
        '# Cannot connect to VPN from home',
        '',
        '## Inquiry',
        '',
        '~~~',
        'Since this morning the VPN client says certificate expired.',
        '~~~',
        '',
        '## Resolution',
        '',
        '1. ~~~',
        '   We renewed the VPN certificate.',
        '   ~~~',
      ].join('\n'),
    };
    const answer = (
      await ask(
        userMessage({
          inquiry: 'The VPN client says certificate expired',
          tickets: [imported],
          language: 'en',
        }),
      )
    ).answer();

    const card = answer.results?.[0];
    expect(card?.issue_id).toBe('ITSD-123');
    expect(card?.summary).toContain('certificate expired');
    expect(`${card?.summary}\n${card?.resolution}`).not.toContain('~~~');
  });

  it('says nothing similar was found, citing nothing, when the request has no tickets', async () => {
    for (const [inquiry, phrase] of [
      ['ログインできない', '見つかりませんでした'],
      ['Cannot log in', 'No similar past ticket'],
    ] as const) {
      const answer = (await ask(userMessage({ inquiry, tickets: [] }))).answer();
      expect(answer.response_type).toBe('results');
      expect(answer.results).toEqual([]);
      expect(answer.general_advice).toContain(phrase);
    }
  });

  it('streams deterministic 1–24 character fragments in the schema field order', async () => {
    const request = userMessage({ inquiry: 'VPNにつながりません。パスワードを変更しました。' });
    const first = await ask(request);
    const second = await ask(request);
    const other = await ask(userMessage({ inquiry: 'VPNにつながりません。' }));

    expect(second.fragments).toEqual(first.fragments);
    expect(other.fragments).not.toEqual(first.fragments);
    for (const fragment of first.fragments) {
      expect(fragment.length).toBeGreaterThanOrEqual(1);
      expect(fragment.length).toBeLessThanOrEqual(24);
    }
    expect(Object.keys(first.answer())).toEqual([
      'response_type',
      'general_advice',
      'results',
      'mail_draft',
      'todo_actions',
      'reasoning',
    ]);
  });

  it('cuts fragments inside escape sequences sometimes', async () => {
    const endsInsideEscape = (fragment: string) => /(^|[^\\])(\\\\)*\\$/.test(fragment);
    const requests = ['VPNにつながりません', 'Salesforceのパスワードエラー', 'VPN login failed'];
    const fragments = (
      await Promise.all(requests.map((inquiry) => ask(userMessage({ inquiry }))))
    ).flatMap((response) => response.fragments);
    expect(fragments.some(endsInsideEscape)).toBe(true);
  });

  it('stops with max_tokens and a truncated input when maxTokens is too small', async () => {
    const request = userMessage({ inquiry: 'Salesforceのパスワードエラーでログインできません' });
    const full = (await ask(request)).fragments.join('');
    const cut = await ask(request, { maxTokens: 40 });

    expect(cut.stopReason).toBe('max_tokens');
    expect(full.startsWith(cut.fragments.join(''))).toBe(true);
    expect(cut.fragments.join('').length).toBeLessThanOrEqual(120);
    expect(() => JSON.parse(cut.fragments.join(''))).toThrow();
  });

  it('rejects a request without a tool with ValidationException', async () => {
    const command = converseInput('VPN');
    const input = { ...command.input, toolConfig: undefined };
    const failure = await fixture.runtime
      .send(Object.assign(command, { input }))
      .catch((error) => error);
    expect(failure).toMatchObject({ name: 'ValidationException' });
  });

  it('renders the two test tickets in the shared element format', () => {
    expect(ticketBlock(TICKET_A).split('\n')[0]).toBe(
      '<ticket issue_id="9001" subject="Salesforceにログインできない（パスワードエラー）" category="Salesforce" score="0.82">',
    );
    expect(ticketBlock(TICKET_B)).toContain('\n## Inquiry\n');
  });
});
