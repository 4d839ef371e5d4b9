import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, eventsNamed, fetchConversation, postChat } from '../support/chat-client.js';
import { type InProcessApiOnLocalServices, startInProcessApi } from '../support/in-process-api.js';

/**
 * `POST /api/conversations/{id}/turns/{seq}/feedback` through the API in process on DynamoDB Local
 * and the local Bedrock endpoint (ADR 0016): validation against the stored answer, one feedback per answer,
 * the version bump that keeps caches honest, and owner isolation.
 */

let stack: InProcessApiOnLocalServices;
beforeAll(async () => {
  stack = await startInProcessApi({ store: 'dynamodb' });
});
afterAll(() => stack?.stop());

interface StoredTurn {
  seq: number;
  role: string;
  kind: string;
  feedback?: Record<string, unknown>;
  result?: { results?: { issue_id: string }[] };
}

interface Detail {
  version: number;
  turns: StoredTurn[];
}

async function answeredConversation(user: string, message: string) {
  const response = await postChat(stack.api, { message }, { user });
  const conversationId = eventsNamed(response, 'meta')[0]?.conversationId as string;
  const detail = await readDetail(user, conversationId);
  const answer = detail.turns.find((turn) => turn.role === 'assistant');
  if (!answer) throw new Error('the chat stored no assistant turn');
  return { conversationId, answer, detail };
}

async function readDetail(user: string, conversationId: string): Promise<Detail> {
  return (await fetchConversation(stack.api, conversationId, user)) as Detail;
}

const feedbackPath = (conversationId: string, seq: number) =>
  `/api/conversations/${conversationId}/turns/${seq}/feedback`;

const errorCodeOf = (json: unknown) => (json as { error?: { code?: string } }).error?.code;

describe('feedback on an answer', () => {
  it('stores the verdict on the answer turn, replaces it on a second post and bumps the version', async () => {
    const user = 'feedback-giver';
    const { conversationId, answer, detail } = await answeredConversation(
      user,
      'プリンターで印刷できません。トレイに紙はあります',
    );
    expect(answer.kind).toBe('answer');
    const cited = answer.result?.results?.map((ticket) => ticket.issue_id) ?? [];
    expect(cited.length).toBeGreaterThan(0);

    const first = await callApi(
      stack.api,
      'POST',
      feedbackPath(conversationId, answer.seq),
      { rating: 'up', helpfulTicketIds: [cited[0]] },
      { user },
    );
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      seq: answer.seq,
      feedback: { rating: 'up', helpfulTicketIds: [cited[0]] },
      version: detail.version + 1,
    });
    expect(first.headers.get('etag')).toBe(`"${detail.version + 1}"`);

    const afterFirst = await readDetail(user, conversationId);
    expect(afterFirst.turns.find((turn) => turn.seq === answer.seq)?.feedback).toMatchObject({
      rating: 'up',
      helpfulTicketIds: [cited[0]],
      updatedAt: expect.any(String),
    });

    const second = await callApi(
      stack.api,
      'POST',
      feedbackPath(conversationId, answer.seq),
      { rating: 'down', reason: 'incomplete', comment: '  手順が一つ足りない  ' },
      { user },
    );
    expect(second.status).toBe(200);
    const afterSecond = await readDetail(user, conversationId);
    expect(afterSecond.version).toBe(detail.version + 2);
    // Replaced as a whole: the earlier helpful ticket is gone, the comment trimmed.
    expect(afterSecond.turns.find((turn) => turn.seq === answer.seq)?.feedback).toEqual({
      rating: 'down',
      reason: 'incomplete',
      comment: '手順が一つ足りない',
      updatedAt: expect.any(String),
    });
    // Feedback is no activity in the sidebar's sense, and no other turn changed.
    expect(afterSecond.turns.filter((turn) => turn.feedback).map((turn) => turn.seq)).toEqual([
      answer.seq,
    ]);
  });

  it('refuses what the answer does not support, before writing anything', async () => {
    const user = 'feedback-validator';
    const { conversationId, answer, detail } = await answeredConversation(
      user,
      'VPNに接続できません。エラー809が出ます',
    );
    const post = (seq: number, body: unknown) =>
      callApi(stack.api, 'POST', feedbackPath(conversationId, seq), body, { user });

    const uncited = await post(answer.seq, { rating: 'up', helpfulTicketIds: ['99999999'] });
    expect([uncited.status, errorCodeOf(uncited.json)]).toEqual([400, 'ticket_not_cited']);

    const onQuestion = await post(1, { rating: 'up' });
    expect([onQuestion.status, errorCodeOf(onQuestion.json)]).toEqual([400, 'not_an_answer']);

    const unknownSeq = await post(99, { rating: 'up' });
    expect([unknownSeq.status, errorCodeOf(unknownSeq.json)]).toEqual([404, 'turn_not_found']);

    const bodies: unknown[] = [
      {},
      { rating: 'maybe' },
      { rating: 'up', reason: 'wrong' },
      { rating: 'down', reason: 'boring' },
      { rating: 'up', comment: '   ' },
      { rating: 'up', helpfulTicketIds: ['#12'] },
      { rating: 'up', extra: true },
    ];
    for (const body of bodies) {
      const refused = await post(answer.seq, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    const longComment = await post(answer.seq, { rating: 'down', comment: 'あ'.repeat(1001) });
    expect(longComment.status).toBe(413);

    const unchanged = await readDetail(user, conversationId);
    expect(unchanged.version).toBe(detail.version);
    expect(unchanged.turns.some((turn) => turn.feedback)).toBe(false);
  });

  it('treats another user’s conversation, and a malformed path, as missing', async () => {
    const { conversationId, answer } = await answeredConversation(
      'feedback-owner',
      'Teamsの会議で相手の声が聞こえない',
    );
    const foreign = await callApi(
      stack.api,
      'POST',
      feedbackPath(conversationId, answer.seq),
      { rating: 'down', reason: 'wrong' },
      { user: 'feedback-stranger' },
    );
    expect(foreign.status).toBe(404);
    const zeroSeq = await callApi(
      stack.api,
      'POST',
      feedbackPath(conversationId, 0),
      { rating: 'up' },
      { user: 'feedback-owner' },
    );
    expect(zeroSeq.status).toBe(404);
    const wrongMethod = await callApi(
      stack.api,
      'GET',
      feedbackPath(conversationId, answer.seq),
      undefined,
      { user: 'feedback-owner' },
    );
    expect(wrongMethod.status).toBe(405);
    const detail = await readDetail('feedback-owner', conversationId);
    expect(detail.turns.some((turn) => turn.feedback)).toBe(false);
  });
});
