import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RetrievedTicket, Retriever } from '../../functions/chat/ports.js';
import type { LocalStack } from '../../local/start-local-stack.js';
import { eventsNamed, postChat } from '../support/chat-client.js';
import { scriptedAnswer } from '../support/scripted-answer.js';
import { startTestStack } from '../support/start-test-stack.js';

const ticket = (issueId: string, restricted = false): RetrievedTicket => ({
  issueId,
  subject: `チケット ${issueId}`,
  category: 'VPN',
  restricted,
  text: `${issueId} の解決手順`,
  score: 0.9,
});

/** Four open tickets, and a restricted one leaked past the filter (removed after retrieval). */
const retriever: Retriever = {
  search: async () =>
    ['12345', '12346', '12347', '12348'].map((id) => ticket(id)).concat(ticket('1015', true)),
  fetchByIssueIds: async () => [],
};

const card = (issue_id: unknown) => ({ issue_id, subject: 's', summary: 'm', resolution: 'r' });

type Stack = LocalStack & { bedrock: NonNullable<LocalStack['bedrock']> };
let stack: Stack;
beforeAll(async () => {
  stack = await startTestStack({ handlerOverrides: { retriever } });
});
afterAll(() => stack?.stop());

describe('ticket cards whose issue_id drifts from the schema', () => {
  it('keeps numeric, #-prefixed, padded and full-width ids as canonical digits in ticket and result', async () => {
    const info = vi.spyOn(console, 'info');
    stack.bedrock.enqueueScript(
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
    const response = await postChat(stack.url, { message: 'VPNにつながらない' }, { user: 'ids' });
    const expected = ['12345', '12346', '12347', '12348'];
    expect(eventsNamed(response, 'ticket').map((event) => event.issue_id)).toEqual(expected);
    const result = eventsNamed(response, 'result')[0] as { results: { issue_id: string }[] };
    expect(result.results.map((event) => event.issue_id)).toEqual(expected);
    expect(info.mock.calls.flat().join('\n')).not.toContain('grounding dropped');
    info.mockRestore();
  });

  it('still drops ambiguous, invented and restricted ids, and logs each reason with counts', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    stack.bedrock.enqueueScript(
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
    const response = await postChat(stack.url, { message: 'VPNにつながらない' }, { user: 'ids' });
    expect(eventsNamed(response, 'ticket').map((event) => event.issue_id)).toEqual(['12345']);
    const result = eventsNamed(response, 'result')[0] as { results: { issue_id: string }[] };
    expect(result.results.map((event) => event.issue_id)).toEqual(['12345']);
    const lines = info.mock.calls
      .map(([line]) => String(line))
      .filter((line) => line.includes('grounding dropped'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      message: 'grounding dropped ticket cards',
      dropped: { malformed_id: 2, not_retrieved: 1, restricted: 1, duplicate: 1 },
      issueIds: {
        malformed_id: ['"12345, 12346"', '12.5'],
        not_retrieved: ['4242'],
        restricted: ['1015'],
        duplicate: ['12345'],
      },
    });
    info.mockRestore();
  });
});
