import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DailyBudget } from '../../functions/model-call/daily-budget.js';
import { eventsNamed, postChat } from '../support/chat-client.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';
import { loggedLinesOf } from '../support/logged-lines.js';

/** A budget counter that admits every chat and whose every later write fails. */
const failingBudget: DailyBudget = {
  reserve: async () => true,
  adjust: async () => {
    throw new Error('the budget table is unavailable');
  },
};

let chat: InProcessApi;
beforeAll(async () => {
  chat = await startInProcessApi({
    functionEnvironment: { LOG_LEVEL: 'INFO', DAILY_TOKEN_BUDGET: '1000000' },
    overrides: { budget: failingBudget },
  });
});
afterAll(() => chat?.stop());

describe('a failure the chat recovers from', () => {
  it('reaches the function logger as one structured line with the error, and the answer still arrives', async () => {
    let response = {} as Awaited<ReturnType<typeof postChat>>;
    const lines = await loggedLinesOf(async () => {
      response = await postChat(chat.api, { message: 'VPNにつながらない' }, { user: 'log' });
    });
    expect(eventsNamed(response, 'result')).toHaveLength(1);
    const failures = lines.filter(
      (line) => line.message === 'could not adjust the daily budget reservation',
    );
    // The settlement's write at least; a resize before the model call may fail too.
    expect(failures.length).toBeGreaterThanOrEqual(1);
    expect(failures[0]).toMatchObject({
      level: 'ERROR',
      service: expect.any(String),
      // The stack is in the log, never in the stream.
      error: {
        name: 'Error',
        message: 'the budget table is unavailable',
        stack: expect.any(String),
      },
    });
  });
});
