import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toRetrievalQuery } from '../../functions/chat/retrieval.js';
import { readPromptMessage } from '../../local/bedrock/offline-responder/read-offline-prompt.js';
import {
  type ChatResponse,
  eventsNamed,
  postChat,
  stopOnFirstToken,
} from '../support/chat-client.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';
import { scriptedAnswer } from '../support/scripted-answer.js';

let chat: InProcessApi;
beforeAll(async () => {
  chat = await startInProcessApi();
});
afterAll(() => chat?.stop());

const q1 = 'プリンターの設置依頼をしたい';
const q2 = 'Salesforceにログインできない';

/**
 * Q2 was answered as an inquiry of its own: retrieval saw Q2 only, the model got one message
 * whose current-inquiry section is Q2 alone, and the inquiry id is new.
 */
function expectAnsweredAlone(first: ChatResponse, second: ChatResponse, message: string) {
  expect(eventsNamed(second, 'result')).toHaveLength(1);
  // The query is Q2's own text (plus the glossary's words for it), nothing of Q1.
  const query = toRetrievalQuery(message, { expand: true });
  expect(eventsNamed(second, 'kb_query')).toEqual([{ query }]);
  const retrieve = chat.bedrock.retrieveRequests.at(-1)?.body as {
    retrievalQuery: { text: string };
  };
  expect(retrieve.retrievalQuery.text).toBe(query);
  const request = chat.bedrock.converseRequests.at(-1)?.body as {
    messages: { role: string; content: { text: string }[] }[];
  };
  expect(request.messages).toHaveLength(1);
  const last = request.messages[0]?.content.map((block) => block.text).join('') ?? '';
  expect(readPromptMessage(last).inquiry).toBe(message);
  expect(eventsNamed(second, 'meta')[0]?.inquiryId).not.toBe(
    eventsNamed(first, 'meta')[0]?.inquiryId,
  );
}

const conversationOf = (response: ChatResponse) =>
  eventsNamed(response, 'meta')[0]?.conversationId as string;

describe('a new inquiry through the API', () => {
  it('answers the question after a throttled one on its own', async () => {
    const user = 'throttled-then-new';
    // The SDK retries a throttled call (3 attempts by default); every attempt is throttled.
    for (let attempt = 0; attempt < 3; attempt++) chat.bedrock.enqueueScript({ kind: 'throttle' });
    const first = await postChat(chat.api, { message: q1 }, { user });
    expect(eventsNamed(first, 'error')[0]).toMatchObject({ code: 'model_throttled' });

    const second = await postChat(
      chat.api,
      { conversationId: conversationOf(first), message: q2 },
      { user },
    );
    expectAnsweredAlone(first, second, q2);
  });

  it('answers the question after a stopped one on its own', async () => {
    const user = 'stopped-then-new';
    chat.bedrock.enqueueScript(
      scriptedAnswer(
        { response_type: 'results', general_advice: 'あ'.repeat(400), results: [] },
        { size: 4, delayMs: 20 },
      ),
    );
    const first = await postChat(chat.api, { message: q1 }, stopOnFirstToken(chat.api, user));
    expect(eventsNamed(first, 'result')[0]).toMatchObject({ status: 'stopped' });

    const second = await postChat(
      chat.api,
      { conversationId: conversationOf(first), message: q2 },
      { user },
    );
    expect(eventsNamed(second, 'result')[0]).toMatchObject({ status: 'complete' });
    expectAnsweredAlone(first, second, q2);
  });

  it('starts a new inquiry on request while a clarification awaits its reply', async () => {
    const user = 'new-over-clarification';
    const first = await postChat(chat.api, { message: 'ログインできない' }, { user });
    expect(eventsNamed(first, 'result')[0]).toMatchObject({ response_type: 'clarification' });

    const second = await postChat(
      chat.api,
      { conversationId: conversationOf(first), message: q1, inquiry: 'new' },
      { user },
    );
    expectAnsweredAlone(first, second, q1);
  });

  it('rejects an unknown inquiry intent before the first byte', async () => {
    const response = await postChat(
      chat.api,
      { message: q1, inquiry: 'merge' },
      { user: 'bad-intent' },
    );
    expect(response.status).toBe(400);
  });
});
