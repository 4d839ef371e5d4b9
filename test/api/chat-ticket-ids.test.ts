import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../local/start-local-stack.js';
import { bundleTestHandler } from '../support/bundle-test-handler.js';
import { eventsNamed, postChat } from '../support/chat-client.js';
import { scriptedAnswer } from '../support/scripted-answer.js';
import { startTestStack } from '../support/start-test-stack.js';

const card = (issue_id: unknown) => ({ issue_id, subject: 's', summary: 'm', resolution: 'r' });

type Stack = LocalStack & { bedrock: NonNullable<LocalStack['bedrock']> };
let stack: Stack;
/** What the function printed (its CloudWatch log): console lines as the runtime client formats them. */
let functionLog = '';
const output = new Writable({
  write(chunk, _encoding, callback) {
    functionLog += String(chunk);
    callback();
  },
});
beforeAll(async () => {
  // The API handler with a retriever of four open tickets and a leaked restricted one.
  stack = await startTestStack({
    handlerBundle: await bundleTestHandler('test/api/handlers/drifting-ids-handler.ts'),
    functionOutput: { stdout: output, stderr: output },
  });
});

/** The function's `grounding dropped` lines logged while `action` ran (JSON after the runtime's prefix). */
async function groundingLinesOf(action: () => Promise<unknown>): Promise<string[]> {
  const before = functionLog.length;
  await action();
  // The chat's log lines are written before its stream ends; give the pipe a moment.
  await new Promise((resolve) => setTimeout(resolve, 100));
  return functionLog
    .slice(before)
    .split('\n')
    .filter((line) => line.includes('grounding dropped'))
    .map((line) => line.slice(line.indexOf('{')));
}
afterAll(() => stack?.stop());

describe('ticket cards whose issue_id drifts from the schema', () => {
  it('keeps numeric, #-prefixed, padded and full-width ids as canonical digits in ticket and result', async () => {
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
    let response = {} as Awaited<ReturnType<typeof postChat>>;
    const grounding = await groundingLinesOf(async () => {
      response = await postChat(stack.url, { message: 'VPNにつながらない' }, { user: 'ids' });
    });
    const expected = ['12345', '12346', '12347', '12348'];
    expect(eventsNamed(response, 'ticket').map((event) => event.issue_id)).toEqual(expected);
    const result = eventsNamed(response, 'result')[0] as { results: { issue_id: string }[] };
    expect(result.results.map((event) => event.issue_id)).toEqual(expected);
    expect(grounding).toEqual([]);
  });

  it('still drops ambiguous, invented and restricted ids, and logs each reason with counts', async () => {
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
    let response = {} as Awaited<ReturnType<typeof postChat>>;
    const lines = await groundingLinesOf(async () => {
      response = await postChat(stack.url, { message: 'VPNにつながらない' }, { user: 'ids' });
    });
    expect(eventsNamed(response, 'ticket').map((event) => event.issue_id)).toEqual(['12345']);
    const result = eventsNamed(response, 'result')[0] as { results: { issue_id: string }[] };
    expect(result.results.map((event) => event.issue_id)).toEqual(['12345']);
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
  });
});
