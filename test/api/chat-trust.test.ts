import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPromptMessage } from '../../local/bedrock/offline-responder/read-offline-prompt.js';
import { callApi, eventsNamed, postChat } from '../support/chat-client.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';
import { scriptedAnswer } from '../support/scripted-answer.js';
import { leakingRetriever, openTicket as open } from './handlers/leaking-retriever.js';

let chat: InProcessApi;
beforeAll(async () => {
  // The API with a retriever that ignores its filter and leaks a restricted ticket.
  chat = await startInProcessApi({ overrides: { retriever: leakingRetriever } });
});
afterAll(() => chat?.stop());

describe('trust: restricted tickets and grounding', () => {
  it('keeps leaked restricted tickets out of the prompt, kb_chunks, tickets and the result', async () => {
    chat.bedrock.enqueueScript(
      scriptedAnswer({
        response_type: 'results',
        general_advice: '手順は以下です。',
        results: [
          { issue_id: '1015', subject: 'leak', summary: 'x', resolution: 'y' },
          { issue_id: '1001', subject: open.subject, summary: 's', resolution: 'r' },
        ],
      }),
    );
    const response = await postChat(
      chat.api,
      { message: 'Salesforceにログインできない #1015' },
      { user: 'trust' },
    );
    expect(JSON.stringify(eventsNamed(response, 'kb_chunks'))).not.toContain('1015');
    expect(eventsNamed(response, 'ticket').map((ticket) => ticket.issue_id)).toEqual(['1001']);
    const result = eventsNamed(response, 'result')[0] as { results: { issue_id: string }[] };
    expect(result.results.map((ticket) => ticket.issue_id)).toEqual(['1001']);
    const body = chat.bedrock.converseRequests.at(-1)?.body;
    const prompt = JSON.stringify(body);
    expect(prompt).not.toContain('SECRET-INVESTIGATION');
    const last =
      body?.messages
        ?.at(-1)
        ?.content?.map((block) => block.text ?? '')
        .join('') ?? '';
    expect(readPromptMessage(last).tickets?.map((ticket) => ticket.issueId)).toEqual(['1001']);
  });

  it('drops a cited ticket that was not retrieved', async () => {
    chat.bedrock.enqueueScript(
      scriptedAnswer({
        response_type: 'results',
        general_advice: '確認してください。',
        results: [
          { issue_id: '#1001', subject: open.subject, summary: 's', resolution: 'r' },
          { issue_id: '4242', subject: 'invented', summary: 's', resolution: 'r' },
        ],
      }),
    );
    const response = await postChat(
      chat.api,
      { message: 'Salesforceにログインできない' },
      { user: 'grounding' },
    );
    expect(eventsNamed(response, 'ticket').map((ticket) => ticket.issue_id)).toEqual(['1001']);
    const result = eventsNamed(response, 'result')[0] as { results: { issue_id: string }[] };
    expect(result.results.map((ticket) => ticket.issue_id)).toEqual(['1001']);
  });

  it('lists the retrieved tickets by issue_id and counts them in the result and the stored answer', async () => {
    chat.bedrock.enqueueScript(
      scriptedAnswer({
        response_type: 'results',
        general_advice: '確認してください。',
        results: [],
      }),
    );
    const user = 'source-count';
    const response = await postChat(
      chat.api,
      { message: 'Salesforceにログインできない' },
      { user },
    );
    // The leaked restricted ticket is not a source: one chunk, not two.
    expect(eventsNamed(response, 'kb_chunks')).toEqual([
      { chunks: [{ issue_id: '1001', subject: open.subject, score: 0.9, preview: open.text }] },
    ]);
    const result = eventsNamed(response, 'result')[0];
    expect(result).toMatchObject({ status: 'complete', source_chunks_count: 1 });
    const stored = await callApi(
      chat.api,
      'GET',
      `/api/conversations/${result?.conversationId}`,
      undefined,
      { user },
    );
    const turns = (stored.json as { turns: { result?: Record<string, unknown> }[] }).turns;
    expect(turns.at(-1)?.result).toMatchObject({ source_chunks_count: 1 });
  });

  it('flags ticket numbers in the advice and mail draft that were not retrieved, live and stored', async () => {
    chat.bedrock.enqueueScript(
      scriptedAnswer({
        response_type: 'results',
        general_advice: '#1001 のとおりロックを解除します。#1015 と チケット4242 も同じ症状です。',
        results: [{ issue_id: '1001', subject: open.subject, summary: 's', resolution: 'r' }],
        mail_draft: 'INC-4243 と同様の手順でご案内します（参考: #1001）。',
      }),
    );
    const user = 'unverified';
    const response = await postChat(
      chat.api,
      { message: 'Salesforceにログインできない' },
      { user },
    );
    const result = eventsNamed(response, 'result')[0];
    // 1001 was retrieved; 1015 is restricted (never a source); 4242 and the Jira key INC-4243
    // (a letter prefix names a source's ticket, never the app's number: ADR 0020) were never retrieved.
    expect(result).toMatchObject({
      status: 'complete',
      unverified_references: ['1015', '4242', 'INC-4243'],
    });
    // The text itself is left as written: the web app marks, the server does not rewrite.
    expect(result?.general_advice).toContain('チケット4242');
    const stored = await callApi(
      chat.api,
      'GET',
      `/api/conversations/${result?.conversationId}`,
      undefined,
      { user },
    );
    const turns = (stored.json as { turns: { result?: Record<string, unknown> }[] }).turns;
    expect(turns.at(-1)?.result?.unverified_references).toEqual(['1015', '4242', 'INC-4243']);
  });
});
