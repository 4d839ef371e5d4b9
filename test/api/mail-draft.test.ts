import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Turn } from '../../functions/contract/conversations.js';
import { REMOVED_LINK_PLACEHOLDERS } from '../../functions/contract/links.js';
import {
  MAIL_DRAFT_TOOL_NAME,
  MAX_MAIL_DRAFT_VERSIONS,
} from '../../functions/contract/mail-draft.js';
import {
  type ChatResponse,
  callApi,
  eventsNamed,
  fetchConversation,
  postChat,
} from '../support/chat-client.js';
import { createInMemoryDailyBudget } from '../support/in-memory-daily-budget.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';
import { scriptedAnswer } from '../support/scripted-answer.js';

/**
 * The e-mail draft's versions (ADR 0023) through the API in process on the in-memory store and
 * the local Bedrock endpoint's offline responder (ADR 0016): edits and refinements stored as
 * versions beside the untouched original, the refine stream, what a refinement may read (the
 * recorded model request), the link and reference checks, the budget, the limits and every
 * refusal. The store's half is in the conformance suite, on DynamoDB Local too.
 */

const budget = createInMemoryDailyBudget();
let chat: InProcessApi;
beforeAll(async () => {
  chat = await startInProcessApi({
    functionEnvironment: { DAILY_TOKEN_BUDGET: '5000000' },
    overrides: { budget: budget.budget },
  });
});
afterAll(() => chat?.stop());

const draftPath = (conversationId: string, seq: number, rest = '') =>
  `/api/conversations/${conversationId}/turns/${seq}/mail-draft${rest}`;
const errorOf = (response: ChatResponse) =>
  (response.json as { error?: { code?: string; field?: string } }).error;
const today = () => new Date().toISOString().slice(0, 10);

/** A conversation of two inquiries; the second answer's draft is the one refined. */
async function twoInquiries(user: string) {
  const first = await postChat(
    chat.api,
    { message: 'VPNに接続できません。認証エラーが出ます' },
    { user },
  );
  const conversationId = eventsNamed(first, 'meta')[0]?.conversationId as string;
  const second = await postChat(
    chat.api,
    { conversationId, message: 'プリンターで印刷できません。トレイに紙はあります', inquiry: 'new' },
    { user },
  );
  const detail = await fetchConversation(chat.api, conversationId, user);
  const answers = detail.turns.filter((turn) => turn.kind === 'answer');
  expect(answers).toHaveLength(2);
  const [vpn, printer] = answers as [Turn, Turn];
  expect(vpn.inquiryId).not.toBe(printer.inquiryId);
  expect(printer.result?.mail_draft).toMatch(/\S/);
  expect(eventsNamed(second, 'result')).toHaveLength(1);
  return { conversationId, vpn, printer, detail };
}

async function answerOf(user: string, conversationId: string, seq: number) {
  const detail = await fetchConversation(chat.api, conversationId, user);
  return { detail, turn: detail.turns.find((turn) => turn.seq === seq) as Turn };
}

describe('editing the mail draft', () => {
  it('stores the edit as a new version beside the untouched original, with the answer draft’s checks', async () => {
    const user = 'draft-editor';
    const { conversationId, printer, detail } = await twoInquiries(user);
    const cited = printer.result?.results?.[0]?.issue_id as string;
    const text = `お世話になっております。\n手順は https://evil.example/reset をご覧ください。#${cited} と #424242 が参考です。`;
    const edited = await callApi(
      chat.api,
      'PUT',
      draftPath(conversationId, printer.seq),
      { text },
      { user },
    );
    expect(edited.status).toBe(200);
    expect(edited.json).toEqual({
      seq: printer.seq,
      number: 2,
      version: {
        text: `お世話になっております。\n手順は ${REMOVED_LINK_PLACEHOLDERS.ja} をご覧ください。#${cited} と #424242 が参考です。`,
        origin: 'edit',
        createdAt: expect.any(String),
        unverified_links: ['https://evil.example/reset'],
        unverified_references: ['424242'],
      },
      usage: { copies: 0, mailOpens: 0, edits: 1, refinements: 0 },
      conversationVersion: detail.version + 1,
    });
    const { turn, detail: after } = await answerOf(user, conversationId, printer.seq);
    expect(after.version).toBe(detail.version + 1);
    expect(turn.result?.mail_draft).toBe(printer.result?.mail_draft);
    expect(turn.mailDraftVersions).toEqual([(edited.json as { version: unknown }).version]);
  });

  it.each([
    ['no text', {}, 400, 'bad_request', 'text'],
    ['empty text', { text: '   ' }, 400, 'empty_text', 'text'],
    // As a chat message over its length: 413, the field named.
    ['text too long', { text: 'あ'.repeat(4001) }, 413, 'too_large', 'text'],
    ['an unknown field', { text: 'x', origin: 'polite' }, 400, 'bad_request', undefined],
    // Stored text is clean text (functions/contract/user-text.ts): refused, never stored.
    ['a bidi override', { text: 'invoice\u202Efdp.exe' }, 400, 'invalid_text', 'text'],
    ['a bidi isolate', { text: 'see \u2067file\u2069' }, 400, 'invalid_text', 'text'],
    ['a NUL', { text: 'Hello\u0000world' }, 400, 'invalid_text', 'text'],
    ['an ESC', { text: 'Hello \u001b[31mred' }, 400, 'invalid_text', 'text'],
    ['a BEL', { text: 'Hello\u0007' }, 400, 'invalid_text', 'text'],
    ['a DEL', { text: 'Hello\u007f' }, 400, 'invalid_text', 'text'],
    ['a lone carriage return', { text: 'Hello\rworld' }, 400, 'invalid_text', 'text'],
  ])('refuses %s with %i naming the field', async (_name, body, status, code, field) => {
    const user = `bad-edit-${code}-${field}`;
    const first = await postChat(chat.api, { message: 'Teamsの会議に入れません' }, { user });
    const conversationId = eventsNamed(first, 'meta')[0]?.conversationId as string;
    const refused = await callApi(chat.api, 'PUT', draftPath(conversationId, 2), body, { user });
    expect(refused.status).toBe(status);
    expect(errorOf(refused)).toMatchObject({ code, ...(field ? { field } : {}) });
  });

  it('never stores a bidi override or a control character, and names it in the message', async () => {
    const user = 'unclean-edit';
    const first = await postChat(chat.api, { message: 'Teamsの会議に入れません' }, { user });
    const conversationId = eventsNamed(first, 'meta')[0]?.conversationId as string;
    const refused = await chat.api.call(
      'PUT',
      draftPath(conversationId, 2),
      { text: '請求書を添付します: invoice\u202Efdp.exe' },
      { user },
    );
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toEqual({
      code: 'invalid_text',
      field: 'text',
      message:
        'text: text must not contain control characters or bidirectional overrides (found U+202E)',
    });
    // Line breaks, tabs, CRLF and the implicit direction marks are text.
    const kept = await chat.api.call(
      'PUT',
      draftPath(conversationId, 2),
      { text: 'Hello\r\n\tworld \u200Fשלום\u200E' },
      { user },
    );
    expect(kept.status).toBe(200);
    const { turn } = await answerOf(user, conversationId, 2);
    expect(turn.mailDraftVersions?.map((version) => version.text)).toEqual([
      'Hello\r\n\tworld \u200Fשלום\u200E',
    ]);
  });

  it('refuses a turn that is no answer, a missing turn and another owner’s conversation', async () => {
    const user = 'wrong-turns';
    const first = await postChat(chat.api, { message: 'Outlookが起動しません' }, { user });
    const conversationId = eventsNamed(first, 'meta')[0]?.conversationId as string;
    const body = { text: 'よろしくお願いします' };
    const question = await callApi(chat.api, 'PUT', draftPath(conversationId, 1), body, { user });
    expect([question.status, errorOf(question)?.code]).toEqual([400, 'not_an_answer']);
    const missing = await callApi(chat.api, 'PUT', draftPath(conversationId, 9), body, { user });
    expect([missing.status, errorOf(missing)?.code]).toEqual([404, 'turn_not_found']);
    const stranger = await callApi(chat.api, 'PUT', draftPath(conversationId, 2), body, {
      user: 'stranger',
    });
    expect([stranger.status, errorOf(stranger)?.code]).toEqual([404, 'not_found']);
    const refine = await callApi(
      chat.api,
      'POST',
      draftPath(conversationId, 2, '/refine'),
      { style: 'rude' },
      { user },
    );
    expect([refine.status, errorOf(refine)?.field]).toEqual([400, 'style']);
  });
});

describe('refining the mail draft', () => {
  it('streams a refinement from the draft, its inquiry and that answer’s cited tickets only, and stores it', async () => {
    const user = 'draft-refiner';
    const { conversationId, vpn, printer } = await twoInquiries(user);
    const calls = chat.bedrock.converseRequests.length;
    const retrievals = chat.bedrock.retrieveRequests.length;
    const spentBefore = budget.committed({ tenantId: 'local', userId: user }, today());

    const refined = await callApi(
      chat.api,
      'POST',
      draftPath(conversationId, printer.seq, '/refine'),
      { style: 'shorter' },
      { user },
    );
    expect(refined.status).toBe(200);
    expect(
      refined.events.map((event) => event.event).filter((name) => name !== 'mail_draft_token'),
    ).toEqual(['meta', 'progress', 'mail_draft_version']);
    const streamed = eventsNamed(refined, 'mail_draft_token')
      .map((data) => data.content)
      .join('');
    const [stored] = eventsNamed(refined, 'mail_draft_version');
    expect(stored).toMatchObject({
      seq: printer.seq,
      number: 2,
      version: { origin: 'shorter', text: streamed },
      usage: { edits: 0, refinements: 1 },
    });
    const original = printer.result?.mail_draft as string;
    expect(streamed.length).toBeGreaterThan(0);
    expect(streamed.length).toBeLessThan(original.length);

    // Exactly one model call, no retrieval: the request holds this inquiry and these cards only.
    expect(chat.bedrock.converseRequests.length).toBe(calls + 1);
    expect(chat.bedrock.retrieveRequests.length).toBe(retrievals);
    const request = chat.bedrock.converseRequests.at(-1)?.body;
    expect(request?.toolConfig?.toolChoice?.tool?.name).toBe(MAIL_DRAFT_TOOL_NAME);
    expect(request?.messages).toHaveLength(1);
    const prompt = request?.messages?.[0]?.content?.map((block) => block.text ?? '').join('') ?? '';
    expect(prompt).toContain('プリンターで印刷できません');
    expect(prompt).not.toContain('VPN');
    const vpnDraft = vpn.result?.mail_draft as string;
    expect(prompt).not.toContain(
      vpnDraft.split('\n').find((line) => line.includes('VPN')) ?? 'VPN',
    );
    const citedInPrompt = [...prompt.matchAll(/<cited_ticket issue_id="([^"]+)"/g)].map(
      (match) => match[1],
    );
    expect(citedInPrompt).toEqual(printer.result?.results?.map((ticket) => ticket.issue_id));
    for (const ticket of vpn.result?.results ?? []) {
      if (!printer.result?.results?.some((card) => card.issue_id === ticket.issue_id))
        expect(prompt).not.toContain(ticket.subject);
    }

    // The budget: charged what the refinement used, nothing left reserved.
    const spentAfter = budget.committed({ tenantId: 'local', userId: user }, today());
    expect(spentAfter).toBeGreaterThan(spentBefore);
    expect(spentAfter - spentBefore).toBeLessThan(20_000);

    // A second refinement starts from the latest version; both survive a reload.
    const numbered = await callApi(
      chat.api,
      'POST',
      draftPath(conversationId, printer.seq, '/refine'),
      { style: 'numbered_steps' },
      { user },
    );
    const [second] = eventsNamed(numbered, 'mail_draft_version');
    expect(second).toMatchObject({ number: 3, version: { origin: 'numbered_steps' } });
    const secondText = (second?.version as { text?: string } | undefined)?.text ?? '';
    expect(secondText.startsWith('1. ')).toBe(true);
    expect(secondText).toContain(streamed.split('\n')[0]?.slice(0, 10));
    const { turn } = await answerOf(user, conversationId, printer.seq);
    expect(turn.mailDraftVersions?.map((version) => version.origin)).toEqual([
      'shorter',
      'numbered_steps',
    ]);
    expect(turn.result?.mail_draft).toBe(original);
  });

  it('announces a different number for each of concurrent refinements, as the reload shows them', async () => {
    const user = 'draft-racer';
    const { conversationId, printer } = await twoInquiries(user);
    // Both load the answer before either is stored: the number is the store's, not the load's.
    const styles = ['shorter', 'polite', 'numbered_steps'] as const;
    const refined = await Promise.all(
      styles.map((style) =>
        chat.api.call(
          'POST',
          draftPath(conversationId, printer.seq, '/refine'),
          { style, basedOn: 1 },
          { user },
        ),
      ),
    );
    const announced = refined.map((response) => {
      const [stored] = eventsNamed(response, 'mail_draft_version') as {
        number?: number;
        version: { origin: string };
      }[];
      return { number: stored?.number, origin: stored?.version.origin };
    });
    expect(announced.map((stored) => stored.number).sort()).toEqual([2, 3, 4]);
    const { turn } = await answerOf(user, conversationId, printer.seq);
    for (const stored of announced) {
      expect(turn.mailDraftVersions?.[(stored.number ?? 0) - 2]?.origin).toBe(stored.origin);
    }
  });

  it('refines the version named by basedOn, and into the other language', async () => {
    const user = 'draft-translator';
    const { conversationId, printer } = await twoInquiries(user);
    await callApi(
      chat.api,
      'PUT',
      draftPath(conversationId, printer.seq),
      { text: '短い版です。' },
      { user },
    );
    const english = await callApi(
      chat.api,
      'POST',
      draftPath(conversationId, printer.seq, '/refine'),
      { style: 'other_language', basedOn: 1 },
      { user },
    );
    const [stored] = eventsNamed(english, 'mail_draft_version');
    const text = (stored?.version as { text?: string } | undefined)?.text ?? '';
    expect(text).toContain('Thank you for contacting the IT Service Desk.');
    const prompt = chat.bedrock.converseRequests.at(-1)?.body.messages?.[0]?.content?.[0]?.text;
    expect(prompt).toContain('<answer_language>\nen\n</answer_language>');
    expect(prompt).toContain('<refinement style="other_language">');
    // basedOn 1 is the original: the edit is not what was refined.
    expect(prompt).not.toContain('短い版です。');
    expect(prompt).toContain((printer.result?.mail_draft ?? '').split('\n')[0]);
    const beyond = await callApi(
      chat.api,
      'POST',
      draftPath(conversationId, printer.seq, '/refine'),
      { style: 'polite', basedOn: 5 },
      { user },
    );
    expect([beyond.status, errorOf(beyond)?.field]).toEqual([400, 'basedOn']);
  });

  it('applies the link and reference checks to a refinement before it is stored', async () => {
    const user = 'draft-checker';
    const { conversationId, printer } = await twoInquiries(user);
    chat.bedrock.enqueueScript(
      scriptedAnswer({
        mail_draft: 'Please see http://phish.example/login and ticket #777777. Regards',
      }),
    );
    const refined = await callApi(
      chat.api,
      'POST',
      draftPath(conversationId, printer.seq, '/refine'),
      { style: 'polite' },
      { user },
    );
    const [stored] = eventsNamed(refined, 'mail_draft_version');
    expect(stored?.version).toMatchObject({
      text: `Please see ${REMOVED_LINK_PLACEHOLDERS.en} and ticket #777777. Regards`,
      unverified_links: ['http://phish.example/login'],
      unverified_references: ['777777'],
    });
  });

  it('ends with an error event after the first byte when the model fails, storing nothing', async () => {
    const user = 'draft-failure';
    const { conversationId, printer } = await twoInquiries(user);
    chat.bedrock.enqueueScript(
      scriptedAnswer(
        { mail_draft: 'This refinement never finishes because the stream breaks.' },
        { failAfter: 4 },
      ),
    );
    const failed = await callApi(
      chat.api,
      'POST',
      draftPath(conversationId, printer.seq, '/refine'),
      { style: 'shorter' },
      { user },
    );
    expect(failed.status).toBe(200);
    expect(eventsNamed(failed, 'mail_draft_token').length).toBeGreaterThan(0);
    expect(failed.events.at(-1)?.event).toBe('error');
    expect(eventsNamed(failed, 'mail_draft_version')).toHaveLength(0);
    const { turn } = await answerOf(user, conversationId, printer.seq);
    expect(turn.mailDraftVersions).toBeUndefined();
  });

  it('refuses before the first byte when the draft is full, without calling the model', async () => {
    const user = 'draft-full';
    const { conversationId, printer } = await twoInquiries(user);
    for (let index = 0; index < MAX_MAIL_DRAFT_VERSIONS; index++) {
      const edited = await callApi(
        chat.api,
        'PUT',
        draftPath(conversationId, printer.seq),
        { text: `版 ${index}` },
        { user },
      );
      expect(edited.status).toBe(200);
    }
    const calls = chat.bedrock.converseRequests.length;
    const edit = await callApi(
      chat.api,
      'PUT',
      draftPath(conversationId, printer.seq),
      { text: 'もう一つ' },
      { user },
    );
    expect([edit.status, errorOf(edit)?.code]).toEqual([409, 'mail_draft_full']);
    const refine = await callApi(
      chat.api,
      'POST',
      draftPath(conversationId, printer.seq, '/refine'),
      { style: 'shorter' },
      { user },
    );
    expect([refine.status, errorOf(refine)?.code]).toEqual([409, 'mail_draft_full']);
    expect(chat.bedrock.converseRequests.length).toBe(calls);
  });
});

describe('links in the draft, its edits and refinements (ADR 0013)', () => {
  /** Each link form of issue 48; none may survive, each must be listed. */
  const hostile = [
    'Reset at [https://support.microsoft.com/ja-jp](https://evil.example/ms).',
    'Glued: https://support.microsoft.com)https://glued.evil.example/a',
    'Piped: https://support.microsoft.com|https://pipe.evil.example/b',
    'Run javascript:alert(document.cookie) or data:text/html;base64,PHNjcmlwdD4=',
    'Or https://support.microsoft.com@userinfo.evil.example/c and http://support.microsoft.com/d',
    'Kept: https://support.microsoft.com/ja-jp',
  ].join('\n');
  const listed = [
    'https://evil.example/ms',
    'https://glued.evil.example/a',
    'https://pipe.evil.example/b',
    'javascript:alert(document.cookie)',
    'data:text/html;base64,PHNjcmlwdD4=',
    'https://support.microsoft.com@userinfo.evil.example/c',
    'http://support.microsoft.com/d',
  ];
  const expectClean = (text: string | undefined) => {
    expect(text).toContain('Kept: https://support.microsoft.com/ja-jp');
    expect(text).not.toMatch(/evil|javascript:|data:|http:/u);
    expect(text).toContain(REMOVED_LINK_PLACEHOLDERS.en);
  };

  it('removes and lists them in the answer’s draft and to-dos, an edit and a refinement', async () => {
    const user = 'draft-link-forms';
    chat.bedrock.enqueueScript(
      scriptedAnswer({
        response_type: 'results',
        general_advice: 'See the draft.',
        results: [],
        mail_draft: hostile,
        todo_actions: ['Send javascript:alert(1)', 'Open <https://evil.example/todo>'],
      }),
    );
    const first = await postChat(chat.api, { message: 'Reset my password please' }, { user });
    const conversationId = eventsNamed(first, 'meta')[0]?.conversationId as string;
    const { turn } = await answerOf(user, conversationId, 2);
    expectClean(turn.result?.mail_draft);
    expect(turn.result?.todo_actions).toEqual(['Send [link removed]', 'Open [link removed]']);
    expect(turn.result?.unverified_links).toEqual(
      expect.arrayContaining([...listed, 'javascript:alert(1)', 'https://evil.example/todo']),
    );

    const edited = await chat.api.call(
      'PUT',
      draftPath(conversationId, 2),
      { text: hostile },
      { user },
    );
    const editVersion = (edited.json as { version: { text: string; unverified_links: string[] } })
      .version;
    expectClean(editVersion.text);
    expect(editVersion.unverified_links).toEqual(listed);

    chat.bedrock.enqueueScript(scriptedAnswer({ mail_draft: hostile }));
    const refined = await chat.api.call(
      'POST',
      draftPath(conversationId, 2, '/refine'),
      { style: 'polite' },
      { user },
    );
    const [stored] = eventsNamed(refined, 'mail_draft_version');
    const refinedVersion = stored?.version as { text: string; unverified_links: string[] };
    expectClean(refinedVersion.text);
    expect(refinedVersion.unverified_links).toEqual(listed);
    const after = await answerOf(user, conversationId, 2);
    for (const version of after.turn.mailDraftVersions ?? []) expectClean(version.text);
  });
});

describe('counting what staff did with the draft', () => {
  it('counts copies and opens in the mail client on the answer, never text', async () => {
    const user = 'draft-sender';
    const first = await postChat(chat.api, { message: 'Excelが固まります' }, { user });
    const conversationId = eventsNamed(first, 'meta')[0]?.conversationId as string;
    const actions = draftPath(conversationId, 2, '/actions');
    const copied = await callApi(chat.api, 'POST', actions, { action: 'copy' }, { user });
    expect(copied.json).toMatchObject({ seq: 2, usage: { copies: 1, mailOpens: 0 } });
    await callApi(chat.api, 'POST', actions, { action: 'copy', version: 1 }, { user });
    const opened = await callApi(chat.api, 'POST', actions, { action: 'open_in_mail' }, { user });
    expect(opened.json).toMatchObject({ usage: { copies: 2, mailOpens: 1, edits: 0 } });
    const { turn } = await answerOf(user, conversationId, 2);
    expect(turn).toMatchObject({ mailDraftCopies: 2, mailDraftMailOpens: 1 });
    const bad = await callApi(chat.api, 'POST', actions, { action: 'print' }, { user });
    expect([bad.status, errorOf(bad)?.field]).toEqual([400, 'action']);
    const beyond = await callApi(
      chat.api,
      'POST',
      actions,
      { action: 'copy', version: 2 },
      { user },
    );
    expect([beyond.status, errorOf(beyond)?.field]).toEqual([400, 'version']);
  });
});

describe('the daily budget', () => {
  it('refuses a refinement with 429 once the day is spent, before any model call', async () => {
    const user = 'draft-spender';
    const { conversationId, printer } = await twoInquiries(user);
    await budget.budget.adjust({ tenantId: 'local', userId: user }, today(), 5_000_000);
    const calls = chat.bedrock.converseRequests.length;
    const refused = await callApi(
      chat.api,
      'POST',
      draftPath(conversationId, printer.seq, '/refine'),
      { style: 'polite' },
      { user },
    );
    expect([refused.status, errorOf(refused)?.code]).toEqual([429, 'daily_budget_exceeded']);
    expect(chat.bedrock.converseRequests.length).toBe(calls);
  });
});
