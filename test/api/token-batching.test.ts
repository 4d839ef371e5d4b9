import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsNamed, postChat } from '../support/chat-client.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';
import { scriptedAnswer } from '../support/scripted-answer.js';

let chat: InProcessApi;
beforeAll(async () => {
  chat = await startInProcessApi({ functionEnvironment: { TOKEN_BATCH_MS: '40' } });
});
afterAll(() => chat?.stop());

describe('TOKEN_BATCH_MS', () => {
  it('coalesces tiny fragments into fewer token events without losing or reordering text', async () => {
    const advice = '1. VPNクライアントを再起動します。\n2. 証明書の有効期限を確認します。\n'.repeat(
      6,
    );
    chat.bedrock.enqueueScript(
      scriptedAnswer(
        { response_type: 'results', general_advice: advice, results: [] },
        { size: 3, delayMs: 2 },
      ),
    );
    const response = await postChat(
      chat.api,
      { message: 'VPNにつながらない' },
      { user: 'batching' },
    );
    const tokens = eventsNamed(response, 'token').map((token) => token.content as string);
    expect(tokens.join('')).toBe(advice);
    const fragmentsCarryingAdvice = Math.ceil(advice.length / 3);
    expect(tokens.length).toBeLessThan(fragmentsCarryingAdvice / 3);
    expect(eventsNamed(response, 'result')[0]).toMatchObject({
      general_advice: advice,
      status: 'complete',
    });
  });
});
