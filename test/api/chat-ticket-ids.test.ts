import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RetrievedTicket, Retriever } from '../../functions/chat/ports.js';
import { ALL_DESK } from '../../functions/contract/desks.js';
import { eventsNamed, postChat } from '../support/chat-client.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';
import { loggedLinesOf } from '../support/logged-lines.js';
import { scriptedAnswer } from '../support/scripted-answer.js';

const card = (issue_id: unknown) => ({ issue_id, subject: 's', summary: 'm', resolution: 'r' });

let chat: InProcessApi;
beforeAll(async () => {
  // The grounding lines are the function logger's (INFO): the harness's default is SILENT.
  chat = await startInProcessApi({
    functionEnvironment: { LOG_LEVEL: 'INFO' },
    overrides: { retriever },
  });
});

const ticket = (issueId: string, restricted = false): RetrievedTicket => ({
  issueId,
  subject: `チケット ${issueId}`,
  category: 'VPN',
  restricted,
  desk: ALL_DESK,
  text: `${issueId} の解決手順`,
  score: 0.9,
});

/** Four open tickets, and a restricted one leaked past the filter (removed after retrieval). */
const retriever: Retriever = {
  search: async () =>
    ['12345', '12346', '12347', '12348'].map((id) => ticket(id)).concat(ticket('1015', true)),
  fetchByIssueIds: async () => [],
};

/**
 * The function's `grounding dropped` lines (its CloudWatch log, one JSON line each) logged while
 * `action` ran. The chat writes them before its stream ends, so they are all there once the
 * response was read: nothing to wait for.
 */
async function groundingLinesOf(
  action: () => Promise<unknown>,
): Promise<Record<string, unknown>[]> {
  const lines = await loggedLinesOf(action);
  return lines.filter((line) => String(line.message).includes('grounding dropped'));
}
afterAll(() => chat?.stop());

describe('ticket cards whose issue_id drifts from the schema', () => {
  it('keeps numeric, #-prefixed, padded and full-width ids as canonical digits in ticket and result', async () => {
    chat.bedrock.enqueueScript(
      scriptedAnswer(
        {
          response_type: 'results',
          general_advice: 'VPN を再接続してください。',
          // The seed's own payload writes the id as a number.
          results: [card(12345), card('#12346'), card(' 12347 '), card('１２３４８')],
        },
        { size: 5 },
      ),
    );
    let response = {} as Awaited<ReturnType<typeof postChat>>;
    const grounding = await groundingLinesOf(async () => {
      response = await postChat(chat.api, { message: 'VPNにつながらない' }, { user: 'ids' });
    });
    const expected = ['12345', '12346', '12347', '12348'];
    expect(eventsNamed(response, 'ticket').map((event) => event.issue_id)).toEqual(expected);
    const result = eventsNamed(response, 'result')[0] as { results: { issue_id: string }[] };
    expect(result.results.map((event) => event.issue_id)).toEqual(expected);
    expect(grounding).toEqual([]);
  });

  it('still drops ambiguous, invented and restricted ids, and logs each reason with counts', async () => {
    chat.bedrock.enqueueScript(
      scriptedAnswer({
        response_type: 'results',
        general_advice: '確認してください。',
        results: [
          card('12345, 12346'),
          card(12.5),
          card(12345),
          card(4242),
          card('1015'),
          card('#12345'),
        ],
      }),
    );
    let response = {} as Awaited<ReturnType<typeof postChat>>;
    const lines = await groundingLinesOf(async () => {
      response = await postChat(chat.api, { message: 'VPNにつながらない' }, { user: 'ids' });
    });
    expect(eventsNamed(response, 'ticket').map((event) => event.issue_id)).toEqual(['12345']);
    const result = eventsNamed(response, 'result')[0] as { results: { issue_id: string }[] };
    expect(result.results.map((event) => event.issue_id)).toEqual(['12345']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      message: 'grounding dropped ticket cards',
      dropped: { malformed_id: 2, not_retrieved: 1, restricted: 1, duplicate: 1 },
      issueIds: {
        malformed_id: ['"12345, 12346"', '12.5'],
        not_retrieved: ['4242'],
        restricted: ['1015'],
        duplicate: ['12345'],
      },
    });
  });
});
