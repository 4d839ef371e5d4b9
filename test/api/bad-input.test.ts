import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../local/start-local-stack.js';
import { callApi, eventsNamed, postChat } from '../support/chat-client.js';
import { startTestStack } from '../support/start-test-stack.js';

let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

const conversationsOf = async (user: string) =>
  (
    (await callApi(stack.url, 'GET', '/api/conversations', undefined, { user })).json as {
      items: unknown[];
    }
  ).items;

describe('bad input is refused before the first byte and writes nothing', () => {
  it.each([
    ['malformed JSON', 400, '{"message": "hi"'],
    ['no body', 400, ''],
    ['a number as message', 400, { message: 42 }],
    ['an empty message', 400, { message: '   ' }],
    ['an unknown field', 400, { message: 'hi', ownerId: 'someone-else' }],
    ['a conversation id that is not a ULID', 400, { conversationId: '../../x', message: 'hi' }],
    ['a message over 4,000 characters', 413, { message: 'あ'.repeat(4001) }],
    ['a body over 64 KiB', 413, { message: 'hi', clientMessageId: 'x'.repeat(70_000) }],
  ])('%s → %i', async (_name, status, body) => {
    const user = `bad-${status}-${Math.random().toString(36).slice(2, 8)}`;
    const response = await postChat(stack.url, body, { user });
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.json).toMatchObject({
      error: { code: expect.any(String), message: expect.any(String) },
    });
    expect(await conversationsOf(user)).toEqual([]);
  });

  it('answers 404 for a conversation that does not exist', async () => {
    const response = await postChat(
      stack.url,
      { conversationId: '01JZZZZZZZZZZZZZZZZZZZZZZZ', message: 'hi' },
      { user: 'nobody' },
    );
    expect(response.status).toBe(404);
    expect(response.json).toEqual({
      error: { code: 'not_found', message: 'Conversation not found' },
    });
  });

  it("answers 404 for another user's conversation and leaves it unchanged", async () => {
    const owner = await postChat(
      stack.url,
      { message: 'プリンターが印刷できない' },
      { user: 'alice' },
    );
    const { conversationId } = eventsNamed(owner, 'meta')[0] as { conversationId: string };
    const before = await callApi(
      stack.url,
      'GET',
      `/api/conversations/${conversationId}`,
      undefined,
      { user: 'alice' },
    );

    const intruder = await postChat(
      stack.url,
      { conversationId, message: 'hi' },
      { user: 'mallory' },
    );
    expect(intruder.status).toBe(404);
    expect(intruder.json).toEqual({
      error: { code: 'not_found', message: 'Conversation not found' },
    });

    const after = await callApi(
      stack.url,
      'GET',
      `/api/conversations/${conversationId}`,
      undefined,
      { user: 'alice' },
    );
    expect(after.json).toEqual(before.json);
    expect(await conversationsOf('mallory')).toEqual([]);
  });

  it('rejects a malformed dev identity', async () => {
    const response = await postChat(stack.url, { message: 'hi' }, { user: 'bad user/..' });
    expect(response.status).toBe(401);
  });

  it('answers 404 for unknown routes and 405 for wrong methods', async () => {
    expect((await callApi(stack.url, 'GET', '/api/nope')).status).toBe(404);
    expect((await callApi(stack.url, 'GET', '/api/chat')).status).toBe(405);
    expect((await callApi(stack.url, 'PUT', '/api/conversations')).status).toBe(405);
  });
});
