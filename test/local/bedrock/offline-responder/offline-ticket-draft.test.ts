import { ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { DRAFT_TOOL_NAME, ticketDraftSchemaFor } from '../../../../functions/contract/knowledge.js';
import { promptElement, renderPromptMarkup } from '../../../../functions/contract/prompt-markup.js';
import { draftToolFor } from '../../../../functions/knowledge/ticket-draft.js';
import { readTicketCategories } from '../../../../lib/ticket-categories.js';
import { collectEvents, fragmentsOf, startFixtureServer } from '../local-bedrock-fixture.js';

/** The sample tickets' categories, as the local stack derives them from data/tickets. */
const TICKET_CATEGORIES = readTicketCategories('data/tickets');
/** The publish form's fields, the category one of the set. */
const draftSchema = ticketDraftSchemaFor(TICKET_CATEGORIES);
/** The tool as the draft route declares it, with the set as the category's enum. */
const draftTool = draftToolFor(TICKET_CATEGORIES);

/** The transcript message as the server writes it (`transcriptText`). */
const transcript = (
  turns: readonly { staff: string; assistant?: string }[],
  cited: readonly { issueId: string; category: string; subject: string }[],
) =>
  renderPromptMarkup([
    ...turns.flatMap((turn) => [
      promptElement('staff', {}, [turn.staff]),
      ...(turn.assistant === undefined ? [] : [promptElement('assistant', {}, [turn.assistant])]),
    ]),
    promptElement(
      'cited_tickets',
      {},
      cited.map(({ issueId, category, subject }) =>
        promptElement('cited_ticket', { issue_id: issueId, category }, [subject]),
      ),
    ),
  ]);

const draftRequest = (text: string, maxTokens = 4096) =>
  new ConverseStreamCommand({
    modelId: 'offline.service-desk-responder',
    system: [{ text: 'Draft a Knowledge Base ticket from this solved inquiry.' }],
    messages: [{ role: 'user', content: [{ text }] }],
    inferenceConfig: { maxTokens },
    toolConfig: {
      tools: [
        {
          toolSpec: {
            name: DRAFT_TOOL_NAME,
            description: 'Submit the ticket draft',
            // biome-ignore lint/suspicious/noExplicitAny: the SDK types the schema as a DocumentType
            inputSchema: { json: draftTool.inputSchema as any },
          },
        },
      ],
      toolChoice: { tool: { name: DRAFT_TOOL_NAME } },
    },
  });

const ENGLISH = transcript(
  [
    {
      staff:
        'Cannot connect to the VPN since this morning. AnyConnect says "Login failed".\nI changed my password yesterday.',
      assistant:
        'The saved password in AnyConnect is probably the old one.\n- Clear the saved credentials in AnyConnect\n- Log in with the new password',
    },
    {
      staff: 'Still failing after clearing them.',
      assistant:
        'Then the account may be locked after the failed attempts.\n- Unlock the account in the directory\n1. Ask the user to log in again\n2. Record the outcome in the ticket',
    },
  ],
  [
    {
      issueId: '1011',
      category: 'VPN',
      subject: 'Cannot log in to VPN (AnyConnect: Login failed)',
    },
    { issueId: '1002', category: 'Account', subject: 'Locked' },
  ],
);

describe('offline responder: the ticket draft tool', () => {
  let fixture: Awaited<ReturnType<typeof startFixtureServer>>;
  beforeAll(async () => {
    fixture = await startFixtureServer();
  });
  afterAll(() => fixture.close());

  const draft = async (text: string, maxTokens?: number) => {
    const events = await collectEvents(fixture.runtime, draftRequest(text, maxTokens));
    const fragments = fragmentsOf(events);
    return {
      events,
      fragments,
      toolName: events.find((event) => event.contentBlockStart)?.contentBlockStart?.start?.toolUse
        ?.name,
      stopReason: events.find((event) => event.messageStop)?.messageStop?.stopReason,
      value: () => JSON.parse(fragments.join('')) as z.infer<typeof draftSchema>,
    };
  };

  it('drafts an English ticket from the transcript, streamed in fragments, valid for publishing', async () => {
    const answer = await draft(ENGLISH);
    expect(answer.toolName).toBe(DRAFT_TOOL_NAME);
    expect(answer.stopReason).toBe('tool_use');
    expect(answer.fragments.length).toBeGreaterThan(10);
    expect(Math.max(...answer.fragments.map((fragment) => fragment.length))).toBeLessThanOrEqual(
      24,
    );
    const value = answer.value();
    expect(value).toEqual({
      subject: 'Cannot connect to the VPN since this morning.',
      category: 'VPN',
      inquiry:
        'Cannot connect to the VPN since this morning. AnyConnect says "Login failed".\nI changed my password yesterday.\n\nStill failing after clearing them.',
      resolution: [
        'Unlock the account in the directory',
        'Ask the user to log in again',
        'Record the outcome in the ticket',
      ],
      restricted: false,
    });
    expect(draftSchema.safeParse(value).success).toBe(true);
    // Keys in the schema's order, as a model following the tool tends to write them.
    expect(Object.keys(value)).toEqual([
      'subject',
      'category',
      'inquiry',
      'resolution',
      'restricted',
    ]);
  });

  it('takes the answer’s closing to-do list as the steps, each once, not the advice’s bullets before it', async () => {
    const answer = await draft(
      transcript(
        [
          {
            staff: 'プリンターで印刷できません',
            assistant: [
              '## 対処方法',
              '- スプーラーを再起動する（サービス一覧から）',
              '- ドライバーを入れ直す',
              '詳しくは過去チケットを参照してください。',
              '- スプーラーを再起動する',
              '- スプーラーを再起動する',
              '- テスト印刷を確認する',
            ].join('\n'),
          },
        ],
        [{ issueId: '1084', category: 'Printer', subject: '印刷できない' }],
      ),
    );
    expect(answer.value().resolution).toEqual(['スプーラーを再起動する', 'テスト印刷を確認する']);
  });

  it('drafts a Japanese ticket: category named in the text, sentences when the answer has no list, a subject of at most 80 characters', async () => {
    const longFirstLine = `Teams会議で画面共有を開始すると相手側に黒い画面しか表示されず資料を見せられない状態が朝から続いていて、営業部の全員が同じ現象になっているため至急確認をお願いしたいです`;
    const answer = await draft(
      transcript(
        [
          {
            staff: `${longFirstLine}\n端末はWindows 11です。`,
            assistant:
              '## 対応の方針\nハードウェアアクセラレーションが原因のことがあります。Teamsの設定で「GPUハードウェアアクセラレーションを無効にする」をオンにしてください。Teamsを再起動してください。解決しない場合はキャッシュを削除します。',
          },
        ],
        [],
      ),
    );
    const value = answer.value();
    expect(value.category).toBe('Teams');
    expect([...value.subject].length).toBeLessThanOrEqual(80);
    expect(value.subject.startsWith('Teams会議で画面共有を開始すると')).toBe(true);
    expect(value.subject.endsWith('…')).toBe(true);
    expect(value.inquiry).toBe(`${longFirstLine}\n端末はWindows 11です。`);
    expect(value.resolution).toEqual([
      'ハードウェアアクセラレーションが原因のことがあります。',
      'Teamsの設定で「GPUハードウェアアクセラレーションを無効にする」をオンにしてください。',
      'Teamsを再起動してください。',
      '解決しない場合はキャッシュを削除します。',
    ]);
    expect(draftSchema.safeParse(value).success).toBe(true);
  });

  it('falls back in the inquiry language: a cited category outside the list is not taken, Software when none is named, a resolution never empty', async () => {
    const japanese = (
      await draft(
        transcript(
          [{ staff: '共有フォルダーが開けません。' }],
          [{ issueId: '77', category: 'Legacy', subject: '古い件' }],
        ),
      )
    ).value();
    expect(japanese).toMatchObject({
      subject: '共有フォルダーが開けません。',
      category: 'Software',
      resolution: ['アシスタントの回答に沿って対応しました。'],
    });
    const english = (
      await draft(transcript([{ staff: 'The scanner in room 4 is slow', assistant: '' }], []))
    ).value();
    expect(english).toMatchObject({
      category: 'Software',
      resolution: ["Resolved following the assistant's answer."],
    });
    // The earliest category named wins, whole words only ("inbox" is not Box).
    const named = (
      await draft(
        transcript([{ staff: 'My inbox in Outlook is full, then the printer failed too' }], []),
      )
    ).value();
    expect(named.category).toBe('Printer');
  });

  it('is deterministic and is cut at maxTokens with stop reason max_tokens', async () => {
    const full = await draft(ENGLISH);
    expect((await draft(ENGLISH)).fragments).toEqual(full.fragments);
    const cut = await draft(ENGLISH, 20);
    expect(cut.stopReason).toBe('max_tokens');
    expect(full.fragments.join('').startsWith(cut.fragments.join(''))).toBe(true);
    expect(cut.fragments.join('').length).toBeLessThan(full.fragments.join('').length);
  });

  it('recognises every category of the list when a staff message names it', async () => {
    for (const category of TICKET_CATEGORIES) {
      const value = (
        await draft(transcript([{ staff: `Problem: ${category} does not work` }], []))
      ).value();
      expect(value.category).toBe(category);
    }
  });
});
