import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../functions/contract/errors.js';
import { type ChatResponse, callApi, eventsNamed, postChat } from '../support/chat-client.js';
import { type InProcessApiOnLocalServices, startInProcessApi } from '../support/in-process-api.js';
import { scriptedAnswer } from '../support/scripted-answer.js';

// Every refusal is the API's own rule (routing, body parsing, validation, identity, ownership),
// so the API runs in process on DynamoDB Local and the local Bedrock endpoint: no runtime client,
// no Function URL front (`startInProcessApi` on the local stack's services, ADR 0016).

let stack: InProcessApiOnLocalServices;
beforeAll(async () => {
  stack = await startInProcessApi({ store: 'dynamodb' });
});
afterAll(() => stack?.stop());

const encodeCursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

const conversationsOf = async (user: string) =>
  (
    (await callApi(stack.api, 'GET', '/api/conversations', undefined, { user })).json as {
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
    const response = await postChat(stack.api, body, { user });
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.json).toMatchObject({
      error: { code: expect.any(String), message: expect.any(String) },
    });
    // Whatever the refusal, its body is the contract's (a code of the closed set).
    expect(errorBodySchema.safeParse(response.json).success).toBe(true);
    expect(await conversationsOf(user)).toEqual([]);
  });

  it.each([
    ['a lone high surrogate', 'invalid_text', { message: 'VPN\ud800につながらない' }],
    ['a lone low surrogate', 'invalid_text', { message: '\udc00' }],
    ['only NULs', 'empty_text', { message: '\u0000\u0000\u0000' }],
    ['only zero-width characters', 'empty_text', { message: '\u200b\u200c\u200d\u2060\ufeff' }],
    [
      'only invisible fillers and bidi marks',
      'empty_text',
      { message: '\u3164\u115f\u200e\u202e\u00ad \u3000' },
    ],
    // Stored text is clean text (functions/contract/user-text.ts).
    ['a bidi override', 'invalid_text', { message: '添付の invoice\u202Efdp.exe を開けない' }],
    ['an ESC', 'invalid_text', { message: 'VPN \u001b[2J につながらない' }],
    ['a NUL', 'invalid_text', { message: 'VPN\u0000につながらない' }],
  ])('refuses a message with %s (400 %s) without calling the model', async (_name, code, body) => {
    const user = `text-${Math.random().toString(36).slice(2, 8)}`;
    const calls = stack.bedrock.converseRequests.length;
    const response = await postChat(stack.api, body, { user });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      error: { code, message: expect.stringMatching(/^message: /), field: 'message' },
    });
    expect(stack.bedrock.converseRequests.length).toBe(calls);
    expect(await conversationsOf(user)).toEqual([]);
  });

  it.each([
    ['a lone surrogate', 'invalid_text', 'Printer \ud83d'],
    ['only zero-width characters', 'empty_text', '\u200b\u2060'],
    ['only NULs', 'empty_text', '\u0000'],
    ['a bidi isolate', 'invalid_text', 'Printer \u2066x\u2069'],
    ['a BEL', 'invalid_text', 'Printer\u0007'],
    ['a DEL', 'invalid_text', 'Printer\u007f'],
  ])('refuses a title with %s (400 %s) and keeps the old one', async (_name, code, title) => {
    const user = `title-${Math.random().toString(36).slice(2, 8)}`;
    const created = await postChat(stack.api, { message: 'プリンターが印刷できない' }, { user });
    const { conversationId } = eventsNamed(created, 'meta')[0] as { conversationId: string };
    const path = `/api/conversations/${conversationId}`;
    const before = await callApi(stack.api, 'GET', path, undefined, { user });
    const response = await callApi(stack.api, 'PATCH', path, { title }, { user });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      error: { code, message: expect.stringMatching(/^title: /), field: 'title' },
    });
    const after = await callApi(stack.api, 'GET', path, undefined, { user });
    expect(after.json).toEqual(before.json);
  });

  it('still accepts text with emoji (surrogate pairs) and joiners between visible characters', async () => {
    const user = `emoji-${Math.random().toString(36).slice(2, 8)}`;
    const response = await postChat(
      stack.api,
      { message: '👩\u200d💻 のPCが起動しない' },
      { user },
    );
    expect(response.status).toBe(200);
    expect(await conversationsOf(user)).toHaveLength(1);
  });

  it.each([
    ['not base64url JSON', '%%%'],
    ['JSON of the wrong shape', encodeCursor({ updatedAt: 'x' })],
    ['empty key parts', encodeCursor(['', ''])],
    [
      'a time that is not a timestamp',
      encodeCursor(['x'.repeat(1500), '01JZZZZZZZZZZZZZZZZZZZZZZZ']),
    ],
    ['an id that is not a ULID', encodeCursor(['2026-01-01T00:00:00.000Z', 'a'.repeat(1100)])],
    [
      'another owner in the key',
      encodeCursor({
        ownerId: 'local#alice',
        updatedAt: '2026-01-01T00:00:00.000Z',
        conversationId: '01JZZZZZZZZZZZZZZZZZZZZZZZ',
      }),
    ],
  ])('answers 400 for a list cursor that is %s', async (_name, cursor) => {
    const response = await callApi(
      stack.api,
      'GET',
      `/api/conversations?cursor=${encodeURIComponent(cursor)}`,
      undefined,
      { user: 'cursor-forger' },
    );
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error: { code: 'invalid_cursor', message: 'Invalid cursor' } });
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['JSON look-alike', 'application/jsonp'],
    ['no content type', undefined],
  ])('answers 415 to a chat body sent as %s and writes nothing', async (_name, contentType) => {
    const user = `ctype-${Math.random().toString(36).slice(2, 8)}`;
    const response = await postChat(stack.api, JSON.stringify({ message: 'hi' }), {
      user,
      // An undefined header is left out of the event: no content type at all.
      headers: { 'content-type': contentType as string },
    });
    expect(response.status).toBe(415);
    expect(response.json).toEqual({
      error: {
        code: 'unsupported_media_type',
        message: expect.stringContaining('application/json'),
      },
    });
    expect(await conversationsOf(user)).toEqual([]);
  });

  it('answers 415 to a rename sent as text/plain and keeps the title', async () => {
    const user = `ctype-rename-${Math.random().toString(36).slice(2, 8)}`;
    const created = await postChat(stack.api, { message: 'VPNにつながらない' }, { user });
    const { conversationId } = eventsNamed(created, 'meta')[0] as { conversationId: string };
    const path = `/api/conversations/${conversationId}`;
    const response = await callApi(stack.api, 'PATCH', path, JSON.stringify({ title: 'pwned' }), {
      user,
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });
    expect(response.status).toBe(415);
    const after = await callApi(stack.api, 'GET', path, undefined, { user });
    expect((after.json as { title: string }).title).toBe('VPNにつながらない');
  });

  // Before (issue #24, item 6): the stop route took any content type, so any page could stop an
  // answer with a simple cross-origin POST.
  it('answers 415 to a stop sent as text/plain, and the answer is not stopped', async () => {
    const user = `ctype-stop-${Math.random().toString(36).slice(2, 8)}`;
    const advice = 'う'.repeat(200);
    stack.bedrock.enqueueScript(
      scriptedAnswer(
        { response_type: 'results', general_advice: advice, results: [] },
        { size: 4, delayMs: 20 },
      ),
    );
    let stop: ChatResponse | undefined;
    const chat = await postChat(
      stack.api,
      { message: 'VPNにつながらない' },
      {
        user,
        onEvent: async (event) => {
          if (event.event !== 'meta') return;
          const { conversationId, userSeq } = event.data as {
            conversationId: string;
            userSeq: number;
          };
          stop = await callApi(
            stack.api,
            'POST',
            `/api/conversations/${conversationId}/stop`,
            JSON.stringify({ userSeq }),
            { user, headers: { 'content-type': 'text/plain;charset=UTF-8' } },
          );
        },
      },
    );
    expect(stop?.status).toBe(415);
    expect(stop?.json).toMatchObject({ error: { code: 'unsupported_media_type' } });
    expect(eventsNamed(chat, 'result')[0]).toMatchObject({
      status: 'complete',
      general_advice: advice,
    });
  });

  it.each([
    ['no body', 400, 'bad_request', ''],
    ['no userSeq', 400, 'bad_request', {}],
    ['a userSeq that is not a whole number', 400, 'bad_request', { userSeq: '1' }],
    ['userSeq 0', 400, 'bad_request', { userSeq: 0 }],
    ['an unknown field', 400, 'bad_request', { userSeq: 1, all: true }],
    ['a turn not stored yet', 404, 'turn_not_found', { userSeq: 3 }],
  ])('refuses a stop with %s (%i %s)', async (_name, status, code, body) => {
    const user = `bad-stop-${Math.random().toString(36).slice(2, 8)}`;
    const created = await postChat(stack.api, { message: 'プリンターが動かない' }, { user });
    const { conversationId } = eventsNamed(created, 'meta')[0] as { conversationId: string };
    const response = await callApi(
      stack.api,
      'POST',
      `/api/conversations/${conversationId}/stop`,
      body,
      {
        user,
        headers: { 'content-type': 'application/json' },
      },
    );
    expect(response.status).toBe(status);
    expect(response.json).toMatchObject({ error: { code, message: expect.any(String) } });
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;Charset=UTF-8',
  ])('accepts a chat body sent as %s', async (contentType) => {
    const response = await postChat(
      stack.api,
      { message: 'VPNにつながらない' },
      { user: 'ctype-ok', headers: { 'content-type': contentType } },
    );
    expect(response.status).toBe(200);
  });

  it('answers 404 for a conversation that does not exist', async () => {
    const response = await postChat(
      stack.api,
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
      stack.api,
      { message: 'プリンターが印刷できない' },
      { user: 'alice' },
    );
    const { conversationId } = eventsNamed(owner, 'meta')[0] as { conversationId: string };
    const before = await callApi(
      stack.api,
      'GET',
      `/api/conversations/${conversationId}`,
      undefined,
      {
        user: 'alice',
      },
    );

    const intruder = await postChat(
      stack.api,
      { conversationId, message: 'hi' },
      { user: 'mallory' },
    );
    expect(intruder.status).toBe(404);
    expect(intruder.json).toEqual({
      error: { code: 'not_found', message: 'Conversation not found' },
    });

    const after = await callApi(
      stack.api,
      'GET',
      `/api/conversations/${conversationId}`,
      undefined,
      {
        user: 'alice',
      },
    );
    expect(after.json).toEqual(before.json);
    expect(await conversationsOf('mallory')).toEqual([]);
  });

  it('rejects a malformed dev identity', async () => {
    const response = await postChat(stack.api, { message: 'hi' }, { user: 'bad user/..' });
    expect(response.status).toBe(401);
  });

  it('answers 404 for unknown routes and 405 for wrong methods', async () => {
    expect((await callApi(stack.api, 'GET', '/api/nope')).status).toBe(404);
    expect((await callApi(stack.api, 'GET', '/api/chat')).status).toBe(405);
    expect((await callApi(stack.api, 'PUT', '/api/conversations')).status).toBe(405);
  });
});
