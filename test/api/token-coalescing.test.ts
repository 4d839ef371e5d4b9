import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsNamed, postChat } from '../support/chat-client.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';
import { scriptedAnswer } from '../support/scripted-answer.js';

let chat: InProcessApi;
beforeAll(async () => {
  // The function's defaults.
  chat = await startInProcessApi();
});
afterAll(() => chat?.stop());

const advice = '1. VPNクライアントを再起動します。\n2. 証明書の有効期限を確認します。\n'.repeat(6);

describe('token events by default', () => {
  it('coalesce fragments that arrive together into fewer events, text and order intact', async () => {
    // Back to back: the endpoint's writes reach the SDK several fragments per read.
    chat.bedrock.enqueueScript(
      scriptedAnswer(
        {
          response_type: 'results',
          general_advice: advice,
          results: [{ issue_id: '9001', subject: 's', summary: 'm', resolution: 'r' }],
        },
        { size: 3, delayMs: 0 },
      ),
    );
    const response = await postChat(chat.api, { message: 'VPNにつながらない' }, { user: 'c1' });
    const tokens = eventsNamed(response, 'token').map((token) => token.content as string);
    expect(tokens.join('')).toBe(advice);
    expect(tokens.length).toBeLessThan(Math.ceil(advice.length / 3) / 3);
    const names = response.events.map((event) => event.event);
    const lastToken = names.lastIndexOf('token');
    expect(names.slice(lastToken + 1).filter((name) => name === 'token')).toEqual([]);
    expect(names.at(-1)).toBe('result');
    expect(eventsNamed(response, 'result')[0]).toMatchObject({
      general_advice: advice,
      status: 'complete',
    });
  });

  it('still write each fragment at once when fragments arrive apart', async () => {
    const paced = 'VPNを再起動してください。';
    chat.bedrock.enqueueScript(
      scriptedAnswer(
        { response_type: 'results', general_advice: paced, results: [] },
        { size: 4, delayMs: 25 },
      ),
    );
    const response = await postChat(chat.api, { message: 'VPNにつながらない' }, { user: 'c2' });
    const tokens = eventsNamed(response, 'token').map((token) => token.content as string);
    expect(tokens.join('')).toBe(paced);
    // Nothing to merge when each fragment is alone in its turn: no fragment waited for another.
    expect(tokens.length).toBeGreaterThan(paced.length / 4 - 2);
  });
});
