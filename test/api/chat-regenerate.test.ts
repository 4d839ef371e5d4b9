import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPromptMessage } from '../../local/bedrock/offline-responder/read-offline-prompt.js';
import {
  type ChatResponse,
  eventsNamed,
  fetchConversation,
  postChat,
} from '../support/chat-client.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';

/**
 * Regenerate and edit (ADR 0010) through the API in process: the function's wiring, the in-memory
 * store and the local Bedrock endpoint, whose recorded ConverseStream requests show what context
 * the model got.
 */

let chat: InProcessApi;
beforeAll(async () => {
  chat = await startInProcessApi();
});
afterAll(() => chat?.stop());

const printer = 'プリンターの設置依頼をしたい';
const salesforce = 'Salesforceにログインできない';

const conversationOf = (response: ChatResponse) =>
  eventsNamed(response, 'meta')[0]?.conversationId as string;

interface RecordedConverse {
  messages: { role: string; content: { text?: string }[] }[];
}

/** The messages of the model call a chat made, as text per message. */
function lastModelMessages(): { role: string; text: string }[] {
  const request = chat.bedrock.converseRequests.at(-1)?.body as RecordedConverse;
  return request.messages.map((message) => ({
    role: message.role,
    text: message.content.map((block) => block.text ?? '').join(''),
  }));
}

/** The archive entries of a last user message (past inquiries, reference only). */
const archiveEntries = (text: string) => readPromptMessage(text).archive ?? [];

async function answered(response: ChatResponse) {
  expect(response.status).toBe(200);
  expect(eventsNamed(response, 'error')).toEqual([]);
  expect(eventsNamed(response, 'result')).toHaveLength(1);
}

describe('regenerate the last answer', () => {
  it('appends a new turn pair that supersedes the last one, keeps the old, and leaves it out of context', async () => {
    const user = 'regenerate-last';
    const first = await postChat(chat.api, { message: printer }, { user });
    await answered(first);
    const conversationId = conversationOf(first);
    const second = await postChat(chat.api, { conversationId, message: salesforce }, { user });
    await answered(second);
    const before = await fetchConversation(chat.api, conversationId, user);
    expect(before.turns.map((turn) => turn.seq)).toEqual([1, 2, 3, 4]);

    const regenerated = await postChat(
      chat.api,
      { conversationId, message: salesforce, supersedes: 3 },
      { user },
    );
    await answered(regenerated);
    expect(eventsNamed(regenerated, 'meta')[0]?.inquiryId).toBe(before.turns[2]?.inquiryId);

    // The model saw the question once: the superseded pair is neither working buffer nor archive.
    const messages = lastModelMessages();
    expect(messages).toHaveLength(1);
    expect(readPromptMessage(messages[0]?.text ?? '').inquiry).toBe(salesforce);
    const archive = JSON.stringify(archiveEntries(messages[0]?.text ?? ''));
    expect(archive).toContain(printer);
    expect(archive).not.toContain(salesforce);

    const after = await fetchConversation(chat.api, conversationId, user);
    expect(after.version).toBe(before.version + 2);
    expect(
      after.turns.map(({ seq, role, kind, supersedes }) => ({ seq, role, kind, supersedes })),
    ).toEqual([
      { seq: 1, role: 'user', kind: 'question', supersedes: undefined },
      { seq: 2, role: 'assistant', kind: 'answer', supersedes: undefined },
      { seq: 3, role: 'user', kind: 'question', supersedes: undefined },
      { seq: 4, role: 'assistant', kind: 'answer', supersedes: undefined },
      { seq: 5, role: 'user', kind: 'question', supersedes: 3 },
      { seq: 6, role: 'assistant', kind: 'answer', supersedes: undefined },
    ]);
    // The old version is kept as it was.
    expect(after.turns.slice(0, 4)).toEqual(before.turns);
    expect(after.turns[4]?.inquiryId).toBe(before.turns[2]?.inquiryId);
    expect(after.turns[5]?.inquiryId).toBe(before.turns[2]?.inquiryId);

    // The next question archives the current version only: Salesforce once, as one inquiry.
    const next = await postChat(
      chat.api,
      { conversationId, message: 'VPNに接続できない' },
      { user },
    );
    await answered(next);
    const archived = lastModelMessages();
    expect(archived).toHaveLength(1);
    // Two archived inquiries, each with its question once (not a third for the old version).
    const entries = archiveEntries(archived[0]?.text ?? '');
    // The regenerated question is not a follow-up of its own earlier version.
    expect(entries.map((entry) => entry.followUps)).toEqual([undefined, undefined]);
    expect(entries.map((entry) => entry.question)).toEqual([printer, salesforce]);
  });

  it('regenerates again: a third version supersedes the second', async () => {
    const user = 'regenerate-twice';
    const first = await postChat(chat.api, { message: salesforce }, { user });
    await answered(first);
    const conversationId = conversationOf(first);
    await answered(
      await postChat(chat.api, { conversationId, message: salesforce, supersedes: 1 }, { user }),
    );
    await answered(
      await postChat(chat.api, { conversationId, message: salesforce, supersedes: 3 }, { user }),
    );
    expect(lastModelMessages()).toHaveLength(1);
    const detail = await fetchConversation(chat.api, conversationId, user);
    expect(detail.turns.map((turn) => turn.supersedes)).toEqual([
      undefined,
      undefined,
      1,
      undefined,
      3,
      undefined,
    ]);
  });
});

describe('edit the last question', () => {
  it('answers the edited reply to a clarification in its inquiry, without the old reply', async () => {
    const user = 'edit-reply';
    const first = await postChat(chat.api, { message: 'ログインできない' }, { user });
    expect(eventsNamed(first, 'result')[0]).toMatchObject({ response_type: 'clarification' });
    const conversationId = conversationOf(first);
    const reply = await postChat(chat.api, { conversationId, message: 'Salesforce' }, { user });
    await answered(reply);

    const edited = await postChat(
      chat.api,
      { conversationId, message: 'Microsoft Teams', supersedes: 3 },
      { user },
    );
    await answered(edited);
    // Still the clarification's inquiry: the question, the clarification, the edited reply.
    const messages = lastModelMessages();
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[0]?.text).toBe('<inquiry>\nログインできない\n</inquiry>');
    expect(readPromptMessage(messages[2]?.text ?? '').inquiry).toBe('Microsoft Teams');
    // The old reply would have been a user message of its own between them.
    expect(messages[1]?.text).toContain('"response_type":"clarification"');
    // Retrieval read the inquiry as it stands: the question and the edited reply.
    expect(eventsNamed(edited, 'kb_query')[0]?.query).toContain('Microsoft Teams');
    expect(eventsNamed(edited, 'kb_query')[0]?.query).not.toContain('Salesforce');

    const detail = await fetchConversation(chat.api, conversationId, user);
    const editedTurn = detail.turns[4];
    expect(editedTurn).toMatchObject({
      role: 'user',
      kind: 'option',
      text: 'Microsoft Teams',
      supersedes: 3,
      inquiryId: detail.turns[0]?.inquiryId,
    });
    expect(detail.turns[2]).toMatchObject({ text: 'Salesforce', kind: 'option' });
  });

  it('refuses to supersede anything but the latest question, writing nothing', async () => {
    const user = 'edit-older';
    const first = await postChat(chat.api, { message: printer }, { user });
    const conversationId = conversationOf(first);
    await answered(await postChat(chat.api, { conversationId, message: salesforce }, { user }));
    const before = await fetchConversation(chat.api, conversationId, user);
    const calls = chat.bedrock.converseRequests.length;

    for (const supersedes of [1, 2, 4, 99]) {
      const refused = await postChat(
        chat.api,
        { conversationId, message: 'VPNに接続できない', supersedes },
        { user },
      );
      expect(refused.status).toBe(409);
      expect(refused.json).toMatchObject({ error: { code: 'not_latest_question' } });
    }
    expect(await fetchConversation(chat.api, conversationId, user)).toEqual(before);
    expect(chat.bedrock.converseRequests).toHaveLength(calls);
  });

  it('rejects supersedes without a conversation, or with an inquiry intent, before the first byte', async () => {
    const user = 'edit-bad-body';
    const orphan = await postChat(chat.api, { message: printer, supersedes: 1 }, { user });
    expect(orphan.status).toBe(400);
    const first = await postChat(chat.api, { message: printer }, { user });
    const withIntent = await postChat(
      chat.api,
      { conversationId: conversationOf(first), message: printer, supersedes: 1, inquiry: 'new' },
      { user },
    );
    expect(withIntent.status).toBe(400);
    const notANumber = await postChat(
      chat.api,
      { conversationId: conversationOf(first), message: printer, supersedes: '1' },
      { user },
    );
    expect(notANumber.status).toBe(400);
  });

  it("cannot supersede another user's turn: the conversation is not found", async () => {
    const first = await postChat(chat.api, { message: printer }, { user: 'edit-owner' });
    const foreign = await postChat(
      chat.api,
      { conversationId: conversationOf(first), message: printer, supersedes: 1 },
      { user: 'edit-intruder' },
    );
    expect(foreign.status).toBe(404);
  });
});

describe('idempotent regenerate', () => {
  it('a retried regenerate with its clientMessageId replays the stored answer, one model call', async () => {
    const user = 'regenerate-retry';
    const first = await postChat(chat.api, { message: salesforce }, { user });
    await answered(first);
    const conversationId = conversationOf(first);
    const body = {
      conversationId,
      message: salesforce,
      supersedes: 1,
      clientMessageId: 'regenerate-retry-0001',
    };
    const calls = chat.bedrock.converseRequests.length;
    const original = await postChat(chat.api, body, { user });
    await answered(original);
    const detail = await fetchConversation(chat.api, conversationId, user);

    // The retry is not refused although seq 1 is no longer the latest question: it is the same message.
    const retry = await postChat(chat.api, body, { user });
    await answered(retry);
    expect(eventsNamed(retry, 'result')[0]?.seq).toBe(eventsNamed(original, 'result')[0]?.seq);
    expect(chat.bedrock.converseRequests).toHaveLength(calls + 1);
    expect(await fetchConversation(chat.api, conversationId, user)).toEqual(detail);

    // The same id for another regenerate is another message: 422.
    const reused = await postChat(chat.api, { ...body, supersedes: 3 }, { user });
    expect(reused.status).toBe(422);
    expect(reused.json).toMatchObject({ error: { code: 'client_message_id_reused' } });
  });
});
