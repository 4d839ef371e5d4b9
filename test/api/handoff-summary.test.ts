import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HANDOFF_TOOL_NAME,
  handoffSummaryEventSchema,
  handoffSummaryText,
} from '../../functions/contract/handoff.js';
import type { RecordedConverseRequest } from '../../local/bedrock/recorded-requests.js';
import { type ChatResponse, callApi, eventsNamed, postChat } from '../support/chat-client.js';
import { createInMemoryDailyBudget } from '../support/in-memory-daily-budget.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';
import { scriptedAnswer } from '../support/scripted-answer.js';

/**
 * The hand-off summary route (ADR 0024) through the API in process (ADR 0016): the function's
 * own wiring, the in-memory store and budget, the local Bedrock endpoint's offline responder in
 * its summary mode. What the model is sent is read from the endpoint's recorded requests.
 */

const DAILY_LIMIT = 5_000_000;
const budget = createInMemoryDailyBudget();
let chat: InProcessApi;
beforeAll(async () => {
  chat = await startInProcessApi({
    functionEnvironment: { DAILY_TOKEN_BUDGET: String(DAILY_LIMIT) },
    overrides: { budget: budget.budget },
  });
});
afterAll(() => chat?.stop());

const handoffPath = (conversationId: string, inquiryId: string) =>
  `/api/conversations/${conversationId}/inquiries/${inquiryId}/handoff`;

async function ask(user: string, body: Record<string, unknown>) {
  const response = await postChat(chat.api, body, { user });
  const meta = eventsNamed(response, 'meta')[0] as { conversationId: string; inquiryId: string };
  return { ...meta, response, result: eventsNamed(response, 'result')[0] };
}

/** The hand-off, with the model request it caused (the only one since the call began). */
async function handoff(
  user: string,
  conversationId: string,
  inquiryId: string,
  body: unknown = {},
) {
  const before = chat.bedrock.converseRequests.length;
  const response = await callApi(chat.api, 'POST', handoffPath(conversationId, inquiryId), body, {
    user,
  });
  const requests = chat.bedrock.converseRequests.slice(before);
  return { response, requests };
}

function summaryOf(response: ChatResponse) {
  const [summary] = eventsNamed(response, 'summary');
  return handoffSummaryEventSchema.parse(summary);
}

/** The text fields as the `summary_text` events streamed them, and the items as `summary_item`. */
function streamed(response: ChatResponse) {
  const text = (field: string) =>
    eventsNamed(response, 'summary_text')
      .filter((data) => data.field === field)
      .map((data) => data.content)
      .join('');
  const items = (field: string) =>
    eventsNamed(response, 'summary_item')
      .filter((data) => data.field === field)
      .map((data) => data.text);
  return {
    symptom: text('symptom'),
    environment: text('environment'),
    told_requester: text('told_requester'),
    tried: items('tried'),
    open_questions: items('open_questions'),
  };
}

const everythingSent = (request: RecordedConverseRequest) => JSON.stringify(request.body);
const today = () => new Date().toISOString().slice(0, 10);

describe('the hand-off summary', () => {
  it('streams a solved inquiry field by field, from its turns and cited tickets only', async () => {
    const user = 'handoff-solved';
    // Another conversation of the same user, and an earlier inquiry of the same conversation:
    // neither may reach the summary's model request.
    const elsewhere = await ask(user, { message: 'Outlookの予定表が同期されない (Quokka社の件)' });
    const earlier = await ask(user, {
      message: 'プリンターで名札を印刷すると白紙で出てきます ZEBRA-LABEL',
    });
    expect(earlier.result?.response_type).toBe('results');
    const asked = await ask(user, {
      conversationId: earlier.conversationId,
      inquiry: 'new',
      message: 'Windows 11 のノートPCで自宅からVPNにつながらない',
    });
    expect(asked.conversationId).toBe(earlier.conversationId);
    expect(asked.inquiryId).not.toBe(earlier.inquiryId);
    expect(asked.result?.response_type).toBe('results');
    const cited = ((asked.result?.results ?? []) as { issue_id: string }[]).map(
      (ticket) => ticket.issue_id,
    );
    expect(cited.length).toBeGreaterThan(0);

    const { response, requests } = await handoff(user, asked.conversationId, asked.inquiryId);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.events.map((event) => event.event).slice(0, 2)).toEqual(['meta', 'progress']);
    expect(response.events.at(-1)?.event).toBe('summary');

    // One model request: the forced tool, one user message holding this inquiry alone.
    expect(requests).toHaveLength(1);
    const [request] = requests as [RecordedConverseRequest];
    expect(request.body.toolConfig?.toolChoice?.tool?.name).toBe(HANDOFF_TOOL_NAME);
    expect(request.body.messages).toHaveLength(1);
    const sent = everythingSent(request);
    expect(sent).toContain('Windows 11 のノートPCで自宅からVPNにつながらない');
    for (const issueId of cited) expect(sent).toContain(`issue_id=\\"${issueId}\\"`);
    for (const foreign of ['ZEBRA-LABEL', '名札', 'Quokka', 'Outlook', earlier.inquiryId]) {
      expect(sent, `${foreign} leaked into the summary request`).not.toContain(foreign);
    }
    // Tickets the earlier inquiry cited, and this one did not, are not sent either.
    const earlierOnly = ((earlier.result?.results ?? []) as { issue_id: string }[])
      .map((ticket) => ticket.issue_id)
      .filter((issueId) => !cited.includes(issueId));
    for (const issueId of earlierOnly) expect(sent).not.toContain(`issue_id=\\"${issueId}\\"`);
    expect(elsewhere.conversationId).not.toBe(asked.conversationId);

    const summary = summaryOf(response);
    // The final summary is exactly what streamed.
    expect(streamed(response)).toEqual({
      symptom: summary.symptom,
      environment: summary.environment,
      told_requester: summary.told_requester,
      tried: summary.tried,
      open_questions: summary.open_questions,
    });
    expect(summary).toMatchObject({ language: 'ja', outcome: 'solved', complete: true });
    expect(summary.symptom).toContain('VPNにつながらない');
    expect(summary.environment).toContain('Windows 11');
    // What was tried names the cited tickets' steps; what the requester was told is the mail draft.
    expect(summary.tried.some((item) => cited.some((id) => item.includes(id)))).toBe(true);
    const mailDraft = asked.result?.mail_draft as string;
    expect(summary.told_requester.length).toBeGreaterThan(0);
    expect(mailDraft).toContain(summary.told_requester.split(' ')[0] as string);
    expect(summary.open_questions.length).toBeGreaterThan(0);
  });

  it('writes in the language the body asks for, else the inquiry’s', async () => {
    const user = 'handoff-language';
    const asked = await ask(user, { message: 'Teams の会議に参加できない、マイクが認識されない' });
    const inJapanese = await handoff(user, asked.conversationId, asked.inquiryId);
    expect(summaryOf(inJapanese.response).language).toBe('ja');
    expect(JSON.stringify(inJapanese.requests[0]?.body.system)).toContain(
      'Write every text field in Japanese',
    );

    const inEnglish = await handoff(user, asked.conversationId, asked.inquiryId, {
      language: 'en',
    });
    const summary = summaryOf(inEnglish.response);
    expect(summary.language).toBe('en');
    expect(JSON.stringify(inEnglish.requests[0]?.body.system)).toContain(
      'Write every text field in English',
    );
    // The offline responder's own wording follows the asked language.
    expect(summary.open_questions.join(' ')).toMatch(/[A-Za-z]{4,}/);
    expect(summary.open_questions.join(' ')).not.toMatch(/[\u3040-\u30ff]/);
  });

  it('summarizes an inquiry whose clarification is still open, with the question as open', async () => {
    const user = 'handoff-clarification';
    const asked = await ask(user, { message: 'ログインできない' });
    expect(asked.result?.response_type).toBe('clarification');
    const { response, requests } = await handoff(user, asked.conversationId, asked.inquiryId);
    const summary = summaryOf(response);
    expect(summary.outcome).toBe('clarification_open');
    expect(everythingSent(requests[0] as RecordedConverseRequest)).toContain(
      'inquiry_outcome value=\\"clarification_open\\"',
    );
    const question = asked.result?.question as string;
    expect(summary.open_questions[0]).toBe(question.split(/(?<=[。？?])/)[0]?.trim());
    expect(summary.tried).toEqual([]);
  });

  it('summarizes an answer without results and a failed answer as unsolved', async () => {
    const user = 'handoff-unsolved';
    chat.bedrock.enqueueScript(
      scriptedAnswer({
        response_type: 'results',
        general_advice: '該当する過去チケットは見つかりませんでした。',
        results: [],
        mail_draft: 'お問い合わせありがとうございます。現在調査しております。',
      }),
    );
    const noResults = await ask(user, { message: 'ZX-81端末のバーコードリーダーが反応しない' });
    const first = await handoff(user, noResults.conversationId, noResults.inquiryId);
    expect(summaryOf(first.response)).toMatchObject({
      outcome: 'no_results',
      tried: [],
      told_requester: 'お問い合わせありがとうございます。 現在調査しております。',
    });
    expect(summaryOf(first.response).open_questions.join('')).toContain('類似の過去チケット');

    // Every attempt of the SDK's retries is throttled: the answer fails and is stored failed.
    for (let attempt = 0; attempt < 3; attempt++) chat.bedrock.enqueueScript({ kind: 'throttle' });
    const failed = await ask(user, { message: '共有フォルダにアクセスできない' });
    expect(failed.response.events.at(-1)?.event).toBe('error');
    const second = await handoff(user, failed.conversationId, failed.inquiryId);
    expect(second.response.status).toBe(200);
    const summary = summaryOf(second.response);
    expect(summary).toMatchObject({ outcome: 'answer_failed', complete: true });
    expect(summary.symptom).toContain('共有フォルダにアクセスできない');
    expect(summary.open_questions.join('')).toContain('失敗');
    expect(everythingSent(second.requests[0] as RecordedConverseRequest)).toContain(
      'status=\\"failed\\"',
    );
  });

  it('removes and lists links that may not go on, in the items as they stream and in the summary', async () => {
    const user = 'handoff-links';
    const asked = await ask(user, { message: 'Outlookでパスワードを再設定したい' });
    chat.bedrock.enqueueScript(
      scriptedAnswer({
        symptom:
          '[https://support.microsoft.com/ja-jp](https://evil.example/ms) を開くとエラーになる',
        environment: 'Windows 11',
        tried: ['javascript:alert(1) を実行', 'https://support.microsoft.com/ja-jp を確認'],
        told_requester: 'https://support.microsoft.com)https://glued.evil.example/a を案内',
        open_questions: ['<data:text/html,hi> は何か？'],
      }),
    );
    const { response } = await handoff(user, asked.conversationId, asked.inquiryId);
    expect(response.status).toBe(200);
    const summary = summaryOf(response);
    expect(summary).toMatchObject({
      symptom: '［リンク削除］ を開くとエラーになる',
      tried: ['［リンク削除］ を実行', 'https://support.microsoft.com/ja-jp を確認'],
      told_requester: 'https://support.microsoft.com)［リンク削除］ を案内',
      open_questions: ['［リンク削除］ は何か？'],
      unverified_links: [
        'https://evil.example/ms',
        'javascript:alert(1)',
        'https://glued.evil.example/a',
        'data:text/html,hi',
      ],
    });
    // The items streamed are the checked ones; the copied text carries none of the links.
    expect(streamed(response).tried).toEqual(summary.tried);
    expect(streamed(response).open_questions).toEqual(summary.open_questions);
    expect(handoffSummaryText(summary, 'ja')).not.toMatch(/evil|javascript:|data:/u);
  });

  it('reserves the daily budget before the first byte and settles it to the tokens used', async () => {
    const user = 'handoff-budget';
    const owner = { tenantId: 'local', userId: user };
    const asked = await ask(user, { message: 'Wi-Fiが頻繁に切れる' });
    const before = budget.committed(owner, today());
    expect(before).toBeGreaterThan(0);
    const { response, requests } = await handoff(user, asked.conversationId, asked.inquiryId);
    expect(response.status).toBe(200);
    const charged = budget.committed(owner, today()) - before;
    // Settled to the model's usage report, which the offline responder counts as a third of the
    // characters it read (the request) and wrote (the tool input) — not the reservation's bound
    // (the prompt's UTF-8 bytes plus 2048 output tokens), which is several times more.
    const {
      language: _language,
      outcome: _outcome,
      complete: _complete,
      ...written
    } = summaryOf(response);
    const read = JSON.stringify((requests[0] as RecordedConverseRequest).body).length;
    expect(charged).toBe(Math.ceil(read / 3) + Math.ceil(JSON.stringify(written).length / 3));
    expect(charged).toBeLessThan(read);

    // Over the limit: 429 before anything is streamed, and no model call.
    await budget.budget.adjust(owner, today(), DAILY_LIMIT);
    const calls = chat.bedrock.converseRequests.length;
    const refused = await handoff(user, asked.conversationId, asked.inquiryId);
    expect(refused.response.status).toBe(429);
    expect(refused.response.json).toMatchObject({ error: { code: 'daily_budget_exceeded' } });
    expect(chat.bedrock.converseRequests.length).toBe(calls);
  });

  it('refuses bad input with the error contract before anything streams', async () => {
    const user = 'handoff-refusals';
    const asked = await ask(user, { message: 'VPNにつながらない' });
    const path = handoffPath(asked.conversationId, asked.inquiryId);
    const calls = chat.bedrock.converseRequests.length;
    const refusal = async (
      body: unknown,
      options: { user?: string; headers?: Record<string, string> } = {},
      at = path,
    ) => {
      const response = await callApi(chat.api, 'POST', at, body, { user, ...options });
      return [response.status, response.json];
    };
    expect(await refusal({ language: 'fr' })).toEqual([
      400,
      {
        error: {
          code: 'bad_request',
          field: 'language',
          message: expect.stringMatching(/^language: /),
        },
      },
    ]);
    expect(await refusal({ langauge: 'en' })).toEqual([
      400,
      { error: { code: 'bad_request', message: expect.stringContaining('langauge') } },
    ]);
    expect(await refusal('[1')).toEqual([
      400,
      { error: { code: 'bad_request', message: 'Request body is not valid JSON' } },
    ]);
    expect(await refusal('{}', { headers: { 'content-type': 'text/plain' } })).toEqual([
      415,
      { error: { code: 'unsupported_media_type', message: expect.any(String) } },
    ]);
    // An inquiry of no turn in this conversation, and someone else's conversation: 404.
    const otherInquiry = '01JAAAAAAAAAAAAAAAAAAAAAAA';
    expect(await refusal({}, {}, handoffPath(asked.conversationId, otherInquiry))).toEqual([
      404,
      { error: { code: 'inquiry_not_found', message: expect.any(String) } },
    ]);
    expect(await refusal({}, { user: 'someone-else' })).toEqual([
      404,
      { error: { code: 'not_found', message: 'Conversation not found' } },
    ]);
    expect(chat.bedrock.converseRequests.length).toBe(calls);
  });
});
