import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, eventsNamed, postChat } from '../support/chat-client.js';
import { type InProcessApiOnLocalServices, startInProcessApi } from '../support/in-process-api.js';

// Sidebar search (`GET /api/conversations?q=`) through the API in process (ADR 0016): DynamoDB Local filters
// the caller's own rows by title and message text.

let stack: InProcessApiOnLocalServices;
beforeAll(async () => {
  stack = await startInProcessApi({ store: 'dynamodb' });
});
afterAll(() => stack?.stop());

async function chat(user: string, message: string, conversationId?: string): Promise<string> {
  const response = await postChat(
    stack.api,
    { message, ...(conversationId ? { conversationId } : {}) },
    { user },
  );
  return eventsNamed(response, 'meta')[0]?.conversationId as string;
}

async function search(user: string, query: string, extra = '') {
  const response = await callApi(
    stack.api,
    'GET',
    `/api/conversations?q=${encodeURIComponent(query)}${extra}`,
    undefined,
    { user },
  );
  return {
    status: response.status,
    ...(response.json as {
      items: { conversationId: string; title: string }[];
      nextCursor?: string;
    }),
  };
}

describe('searching the sidebar', () => {
  const user = 'searcher';
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    ids.vpn = await chat(user, 'VPNにつながらない');
    ids.teams = await chat(user, 'Teamsで音が出ない');
    await chat(user, 'ＶＰＮ経由だと音が途切れます', ids.teams);
    ids.printer = await chat(user, 'プリンターで紙詰まりが起きる');
    await chat('someone-else', 'VPNの設定を教えて');
  });

  it('finds conversations by title and by any of their messages, ignoring case and width', async () => {
    const found = await search(user, 'vpn');
    expect(found.status).toBe(200);
    // Newest activity first, like the sidebar: the Teams conversation's VPN message is later.
    expect(found.items.map((item) => item.conversationId)).toEqual([ids.teams, ids.vpn]);
    expect((await search(user, '紙詰まり')).items.map((item) => item.conversationId)).toEqual([
      ids.printer,
    ]);
  });

  it('needs every word to match', async () => {
    expect((await search(user, 'Teams 途切れ')).items.map((i) => i.conversationId)).toEqual([
      ids.teams,
    ]);
    expect((await search(user, 'Teams プリンター')).items).toEqual([]);
  });

  it('counts every word, not only the first five', async () => {
    const teams = 'Teams 音 出 途切れ VPN 経由';
    expect((await search(user, teams)).items.map((i) => i.conversationId)).toEqual([ids.teams]);
    // The sixth word occurs nowhere in it.
    expect((await search(user, 'Teams 音 出 途切れ VPN プリンター')).items).toEqual([]);
    // Five long words that occur, then short ones: one that occurs, one that does not.
    const fiveLong = 'Teams 途切れます VPN経由 音が出ない だと音が';
    expect((await search(user, `${fiveLong} 音`)).items.map((i) => i.conversationId)).toEqual([
      ids.teams,
    ]);
    expect((await search(user, `${fiveLong} 紙`)).items).toEqual([]);
    // As many words as 200 characters hold: answered, not a DynamoDB expression error.
    const manyWords = Array.from({ length: 100 }, (_, index) =>
      String.fromCodePoint(0x4e00 + index),
    ).join(' ');
    const many = await search(user, manyWords);
    expect(many.status).toBe(200);
    expect(many.items).toEqual([]);
  });

  it('finds a conversation by its new title after a rename', async () => {
    const renamed = await callApi(
      stack.api,
      'PATCH',
      `/api/conversations/${ids.printer}`,
      { title: '3F 複合機の件' },
      { user },
    );
    expect(renamed.status).toBe(200);
    expect((await search(user, '複合機')).items.map((i) => i.conversationId)).toEqual([
      ids.printer,
    ]);
  });

  it('pages through the matches with the cursor, without repeats', async () => {
    const first = await search(user, 'vpn', '&limit=1');
    expect(first.items).toHaveLength(1);
    expect(first.nextCursor).toBeDefined();
    const second = await search(
      user,
      'vpn',
      `&limit=1&cursor=${encodeURIComponent(first.nextCursor ?? '')}`,
    );
    expect([...first.items, ...second.items].map((i) => i.conversationId)).toEqual([
      ids.teams,
      ids.vpn,
    ]);
  });

  it('never shows another user’s conversations, and refuses an overlong query', async () => {
    const theirs = await search('someone-else', 'vpn');
    expect(theirs.items).toHaveLength(1);
    expect(theirs.items.map((i) => i.conversationId)).not.toContain(ids.vpn);
    expect((await search(user, 'x'.repeat(201))).status).toBe(400);
    // A blank query is no search: the whole list.
    expect((await search(user, '   ')).items).toHaveLength(3);
  });
});
