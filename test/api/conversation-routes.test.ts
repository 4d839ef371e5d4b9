import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, eventsNamed, postChat } from '../support/chat-client.js';
import { type InProcessApiOnLocalServices, startInProcessApi } from '../support/in-process-api.js';

let stack: InProcessApiOnLocalServices;
beforeAll(async () => {
  stack = await startInProcessApi({ store: 'dynamodb' });
});
afterAll(() => stack?.stop());

async function newConversation(user: string, message: string): Promise<string> {
  const response = await postChat(stack.api, { message }, { user });
  return eventsNamed(response, 'meta')[0]?.conversationId as string;
}

describe('conversation routes', () => {
  it('lists the caller’s conversations by last activity, paginated', async () => {
    const user = 'lister';
    const older = await newConversation(user, 'VPNにつながらない');
    const newer = await newConversation(user, 'Teamsで音が出ない');
    const first = await callApi(stack.api, 'GET', '/api/conversations?limit=1', undefined, {
      user,
    });
    const page = first.json as {
      items: { conversationId: string; title: string }[];
      nextCursor?: string;
    };
    expect(page.items.map((item) => item.conversationId)).toEqual([newer]);
    expect(page.items[0]?.title).toBe('Teamsで音が出ない');
    const cursor = encodeURIComponent(page.nextCursor ?? '');
    const second = await callApi(
      stack.api,
      'GET',
      `/api/conversations?limit=1&cursor=${cursor}`,
      undefined,
      { user },
    );
    expect(
      (second.json as { items: { conversationId: string }[] }).items.map(
        (item) => item.conversationId,
      ),
    ).toEqual([older]);
  });

  it('returns the turns with an ETag and answers 304 until the conversation changes', async () => {
    const user = 'etag';
    const id = await newConversation(user, 'プリンターが印刷できない');
    const full = await callApi(stack.api, 'GET', `/api/conversations/${id}`, undefined, { user });
    expect(full.status).toBe(200);
    const body = full.json as {
      version: number;
      turns: { seq: number; role: string; kind: string; status: string }[];
    };
    expect(body.turns.map((turn) => [turn.seq, turn.role, turn.kind, turn.status])).toEqual([
      [1, 'user', 'question', 'complete'],
      [2, 'assistant', expect.any(String), 'complete'],
    ]);
    const etag = full.headers.get('etag') ?? '';
    expect(etag).toBe(`"${body.version}"`);
    const cached = await callApi(stack.api, 'GET', `/api/conversations/${id}`, undefined, {
      user,
      headers: { 'if-none-match': etag },
    });
    expect(cached.status).toBe(304);

    const renamed = await callApi(
      stack.api,
      'PATCH',
      `/api/conversations/${id}`,
      { title: 'プリンター（3F）' },
      { user },
    );
    expect(renamed.status).toBe(200);
    const changed = await callApi(stack.api, 'GET', `/api/conversations/${id}`, undefined, {
      user,
      headers: { 'if-none-match': etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect((changed.json as { title: string }).title).toBe('プリンター（3F）');
  });

  it('returns the caller’s clientMessageId and stores the answer’s model id, so a reloaded page can retry and label offline answers', async () => {
    const user = 'reloader';
    const chat = await postChat(
      stack.api,
      { message: 'Zoomの音が出ない', clientMessageId: 'client-message-0001' },
      { user },
    );
    const id = eventsNamed(chat, 'meta')[0]?.conversationId as string;
    const detail = await callApi(stack.api, 'GET', `/api/conversations/${id}`, undefined, { user });
    const turns = (
      detail.json as { turns: { role: string; clientMessageId?: string; modelId?: string }[] }
    ).turns;
    expect(turns[0]).toMatchObject({ role: 'user', clientMessageId: 'client-message-0001' });
    expect(turns[1]).toMatchObject({
      role: 'assistant',
      modelId: 'offline.service-desk-responder',
    });
  });

  it('refuses an empty title', async () => {
    const id = await newConversation('renamer', 'Wi-Fiが遅い');
    const response = await callApi(
      stack.api,
      'PATCH',
      `/api/conversations/${id}`,
      { title: '  ' },
      { user: 'renamer' },
    );
    expect(response.status).toBe(400);
  });

  it('deletes a conversation and all its turns', async () => {
    const user = 'deleter';
    const id = await newConversation(user, 'Outlookが起動しない');
    expect(
      (await callApi(stack.api, 'DELETE', `/api/conversations/${id}`, undefined, { user })).status,
    ).toBe(204);
    expect(
      (await callApi(stack.api, 'GET', `/api/conversations/${id}`, undefined, { user })).status,
    ).toBe(404);
    const list = await callApi(stack.api, 'GET', '/api/conversations', undefined, { user });
    expect((list.json as { items: unknown[] }).items).toEqual([]);
  });

  it('treats every route on another user’s conversation as not found and changes nothing', async () => {
    const id = await newConversation('owner', 'Boxにログインできない');
    const before = await callApi(stack.api, 'GET', `/api/conversations/${id}`, undefined, {
      user: 'owner',
    });
    for (const [method, path, body] of [
      ['GET', `/api/conversations/${id}`, undefined],
      ['PATCH', `/api/conversations/${id}`, { title: 'stolen' }],
      ['DELETE', `/api/conversations/${id}`, undefined],
      ['POST', `/api/conversations/${id}/stop`, { userSeq: 1 }],
    ] as const) {
      const response = await callApi(stack.api, method, path, body, { user: 'intruder' });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    const after = await callApi(stack.api, 'GET', `/api/conversations/${id}`, undefined, {
      user: 'owner',
    });
    expect(after.json).toEqual(before.json);
  });
});
