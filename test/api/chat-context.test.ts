import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toRetrievalQuery } from '../../functions/chat/retrieval.js';
import { readPromptMessage } from '../../local/bedrock/offline-responder/read-offline-prompt.js';
import { eventsNamed, postChat } from '../support/chat-client.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';
import { scriptedAnswer } from '../support/scripted-answer.js';

let chat: InProcessApi;
beforeAll(async () => {
  chat = await startInProcessApi();
});
afterAll(() => chat?.stop());

const lastConverse = () => {
  const request = chat.bedrock.converseRequests.at(-1);
  if (!request) throw new Error('no model request');
  return request.body as {
    messages: { role: string; content: { text: string }[] }[];
    system: { text: string }[];
  };
};
const textOf = (message: { content: { text: string }[] }) =>
  message.content.map((block) => block.text).join('');

describe('context assembly through the API', () => {
  it('keeps an earlier inquiry out of the next one: only the reference section mentions it', async () => {
    const user = 'contamination';
    const first = await postChat(chat.api, { message: 'プリンターの設置依頼をしたい' }, { user });
    expect(eventsNamed(first, 'result')[0]).toMatchObject({
      response_type: 'results',
      status: 'complete',
    });
    const conversationId = eventsNamed(first, 'meta')[0]?.conversationId as string;

    const second = await postChat(
      chat.api,
      { conversationId, message: 'Salesforceにログインできない' },
      { user },
    );
    expect(eventsNamed(second, 'result')).toHaveLength(1);

    // Q2's own text, expanded with the glossary's words for it (`login`): nothing of Q1.
    const query = toRetrievalQuery('Salesforceにログインできない', { expand: true });
    expect(query).not.toContain('プリンター');
    expect(eventsNamed(second, 'kb_query')).toEqual([{ query }]);
    const retrieve = chat.bedrock.retrieveRequests.at(-1)?.body as {
      retrievalQuery: { text: string };
    };
    expect(retrieve.retrievalQuery.text).toBe(query);

    const request = lastConverse();
    expect(request.messages).toHaveLength(1);
    const last = readPromptMessage(textOf(request.messages[0] as never));
    expect(last.archive?.map((entry) => entry.question)).toEqual(['プリンターの設置依頼をしたい']);
    expect(JSON.stringify(last.tickets)).not.toContain('プリンター');
    expect(last.inquiry).toBe('Salesforceにログインできない');
    // Q1 is not the open inquiry any more: the new one has its own id.
    expect(eventsNamed(second, 'meta')[0]?.inquiryId).not.toBe(
      eventsNamed(first, 'meta')[0]?.inquiryId,
    );
  });

  it('lists closed inquiries oldest first, so the most recent one sits right before the inquiry', async () => {
    const user = 'archive-order';
    const questions = [
      'プリンターの設置依頼をしたい',
      'VPNにつながらない',
      'Teamsの会議に入れない',
    ];
    let conversationId: string | undefined;
    for (const message of questions) {
      const answered = await postChat(chat.api, { conversationId, message }, { user });
      expect(eventsNamed(answered, 'result')).toHaveLength(1);
      conversationId = eventsNamed(answered, 'meta')[0]?.conversationId as string;
    }
    await postChat(chat.api, { conversationId, message: 'Outlookが起動しない' }, { user });

    const last = textOf(lastConverse().messages.at(-1) as never);
    const entries = readPromptMessage(last).archive ?? [];
    expect(entries.map(({ number, question }) => ({ number, question }))).toEqual(
      questions.map((question, index) => ({ number: index + 1, question })),
    );
    // Nothing between the most recent closed inquiry and the current one but its own answer.
    const afterNewest = last.split(`<question>\n${questions[2]}\n</question>`)[1] ?? '';
    expect(afterNewest).toMatch(
      /^\n\n<answer>\n[^\n]*\n<\/answer>\n<\/earlier_inquiry>\n<\/earlier_inquiries>\n\n<inquiry>\nOutlookが起動しない\n<\/inquiry>$/,
    );
  });

  it('continues a clarified inquiry and archives the whole exchange as one entry', async () => {
    const user = 'clarify';
    const first = await postChat(chat.api, { message: 'ログインできない' }, { user });
    const clarification = eventsNamed(first, 'result')[0] as {
      response_type: string;
      options: string[];
      question: string;
    };
    expect(clarification.response_type).toBe('clarification');
    expect(clarification.options.length).toBeGreaterThanOrEqual(2);
    const { conversationId, inquiryId } = eventsNamed(first, 'meta')[0] as {
      conversationId: string;
      inquiryId: string;
    };

    const option = clarification.options[0] as string;
    const second = await postChat(chat.api, { conversationId, message: option }, { user });
    expect(eventsNamed(second, 'meta')[0]?.inquiryId).toBe(inquiryId);
    expect(eventsNamed(second, 'result')[0]?.response_type).toBe('results');
    const continued = lastConverse().messages;
    expect(continued.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(textOf(continued[0] as never)).toBe('<inquiry>\nログインできない\n</inquiry>');
    expect(JSON.parse(textOf(continued[1] as never))).toEqual({
      response_type: 'clarification',
      question: clarification.question,
      options: clarification.options,
    });
    expect(textOf(continued[2] as never).endsWith(`<inquiry>\n${option}\n</inquiry>`)).toBe(true);
    // Retrieval for the continued inquiry uses its user text only.
    expect(eventsNamed(second, 'kb_query')[0]?.query).toBe(
      toRetrievalQuery(`ログインできない\n${option}`, { expand: true }),
    );

    const third = await postChat(
      chat.api,
      { conversationId, message: 'Teamsの会議で音が出ない' },
      { user },
    );
    expect(eventsNamed(third, 'meta')[0]?.inquiryId).not.toBe(inquiryId);
    const request = lastConverse();
    expect(request.messages).toHaveLength(1);
    const entries = readPromptMessage(textOf(request.messages[0] as never)).archive ?? [];
    expect(entries).toMatchObject([{ number: 1, question: 'ログインできない', followUps: option }]);
  });

  it('fetches a ticket the new inquiry references by number', async () => {
    const user = 'reference';
    const first = await postChat(
      chat.api,
      { message: 'SalesforceにSSOでログインできない。フェデレーションIDが合わない' },
      { user },
    );
    const conversationId = eventsNamed(first, 'meta')[0]?.conversationId as string;
    expect(eventsNamed(first, 'ticket').map((ticket) => ticket.issue_id)).toContain('1234');
    const before = chat.bedrock.retrieveRequests.length;

    const second = await postChat(
      chat.api,
      { conversationId, message: 'さっきのチケット#1234について詳しく' },
      { user },
    );
    const fetches = chat.bedrock.retrieveRequests
      .slice(before)
      .map((request) => JSON.stringify(request.body));
    expect(fetches.some((body) => body.includes('"issue_id"') && body.includes('"1234"'))).toBe(
      true,
    );
    expect(
      readPromptMessage(textOf(lastConverse().messages.at(-1) as never)).tickets?.map(
        (ticket) => ticket.issueId,
      ),
    ).toContain('1234');
    expect(eventsNamed(second, 'result')).toHaveLength(1);
  });

  it('never parses history for references and never cites a ticket known only from history', async () => {
    const user = 'hygiene';
    // A past answer mentions #1099 (a real, unrelated ticket) — history only.
    chat.bedrock.enqueueScript(
      scriptedAnswer({
        response_type: 'results',
        general_advice: '以前の #1099 と同じ手順で解決できます。',
        results: [],
      }),
    );
    const first = await postChat(chat.api, { message: 'Teamsの通知が来ない' }, { user });
    const conversationId = eventsNamed(first, 'meta')[0]?.conversationId as string;
    const before = chat.bedrock.retrieveRequests.length;

    chat.bedrock.enqueueScript(
      scriptedAnswer({
        response_type: 'results',
        general_advice: '前回と同じです。',
        results: [{ issue_id: '1099', subject: 'fabricated', summary: 'x', resolution: 'y' }],
      }),
    );
    const second = await postChat(
      chat.api,
      { conversationId, message: 'その件の続きです。まだ直りません' },
      { user },
    );
    const bodies = chat.bedrock.retrieveRequests
      .slice(before)
      .map((request) => JSON.stringify(request.body));
    expect(bodies.some((body) => body.includes('1099'))).toBe(false);
    expect(eventsNamed(second, 'ticket')).toEqual([]);
    expect(eventsNamed(second, 'result')[0]?.results).toEqual([]);
  });
});
