import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../local/start-local-stack.js';
import { eventsNamed, fetchConversation, postChat } from '../support/chat-client.js';
import { slowAnswer } from '../support/scripted-answer.js';
import { startTestStack } from '../support/start-test-stack.js';

// A copy that crashed mid-answer (issue #24, item 7), through the local stack: its execution
// environment is killed while it streams, as an out-of-memory or fatal error would, and a retry
// of the same message must take over once the crashed copy's lease lapsed. A stack of its own,
// with a short lease: chat-exactly-once.test.ts keeps the default, so ten copies on a loaded
// machine never see a live holder's lease lapse.

type Stack = LocalStack & { bedrock: NonNullable<LocalStack['bedrock']> };
let stack: Stack;
/** Short enough for a test to wait out, long enough for a loaded machine to renew in time. */
const leaseMs = 3000;
beforeAll(async () => {
  stack = await startTestStack({ timings: { generationLeaseMs: leaseMs } });
});
afterAll(() => stack?.stop());

async function storedTurns(conversationId: string, user: string) {
  return (await fetchConversation(stack.url, conversationId, user)).turns;
}

describe('a copy that crashed mid-answer', () => {
  // Before (issue #24, item 7): the claim lasted the function's whole timeout (about 270 s
  // locally), and a retry after a crash waited on the dead claim until its own time ran out.
  it('takes over from a copy that crashed mid-answer once its lease lapsed, and answers', async () => {
    const user = 'crashed-copy';
    const created = await postChat(stack.url, { message: 'VPNにつながらない' }, { user });
    const conversationId = eventsNamed(created, 'meta')[0]?.conversationId as string;
    stack.bedrock.enqueueScript(slowAnswer());
    const body = {
      conversationId,
      message: 'プリンターも印刷しない',
      clientMessageId: 'crash-0001',
    };
    let crashing: Promise<number> | undefined;
    await postChat(stack.url, body, {
      user,
      onEvent: (event) => {
        if (event.event === 'token') crashing ??= stack.function.crashBusyEnvironments();
      },
    }).catch(() => undefined); // the crashed copy's stream breaks off
    // Awaited here, not in the event handler: the stream breaks off as soon as the process is
    // killed, which can be before the kill has seen the process exit.
    expect(await crashing).toBeGreaterThan(0);

    const calls = stack.bedrock.converseRequests.length;
    const retried = await postChat(stack.url, body, { user });
    expect(eventsNamed(retried, 'error')).toEqual([]);
    expect(eventsNamed(retried, 'result')[0]).toMatchObject({ status: 'complete' });
    expect(stack.bedrock.converseRequests.length - calls).toBe(1);
    const turns = await storedTurns(conversationId, user);
    expect(turns.map((turn) => [turn.role, turn.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
  }, 60_000);
});
