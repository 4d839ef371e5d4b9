import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paddingComment } from '../../functions/sse/stream-padding.js';
import type { LocalStack } from '../../local/start-local-stack.js';
import { eventsNamed, postChat } from '../support/chat-client.js';
import { scriptedAnswer } from '../support/scripted-answer.js';
import { startTestStack } from '../support/start-test-stack.js';

type Stack = LocalStack & { bedrock: NonNullable<LocalStack['bedrock']> };

const answer = {
  response_type: 'results' as const,
  general_advice: 'VPNクライアントを再起動し、証明書の有効期限を確認してください。',
  results: [{ issue_id: '9001', subject: 's', summary: 'm', resolution: 'r' }],
};

/** STREAM_PADDING and STREAM_PADDING_BYTES reach the chat's SSE stream through the handler. */
describe.each([
  ['off', 0],
  ['every-flush', 64],
] as const)('STREAM_PADDING=%s', (mode, bytes) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTestStack({
      functionEnvironment: {
        STREAM_PADDING: mode,
        ...(bytes > 0 ? { STREAM_PADDING_BYTES: String(bytes) } : {}),
      },
    });
  });
  afterAll(() => stack?.stop());

  it('pads the stream as configured; the events are the same either way', async () => {
    stack.bedrock.enqueueScript(scriptedAnswer(answer, { size: 8, delayMs: 5 }));
    const response = await postChat(stack.url, { message: 'VPNにつながらない' }, { user: 'p' });
    expect(eventsNamed(response, 'result')[0]).toMatchObject({
      general_advice: answer.general_advice,
      status: 'complete',
    });
    const tokens = eventsNamed(response, 'token').map((token) => token.content as string);
    expect(tokens.join('')).toBe(answer.general_advice);
    if (mode === 'off') {
      expect(response.text).not.toMatch(/^: {2}/m);
    } else {
      // Every write carries one, after its last event. Events sent in one turn leave as one
      // write (ADR 0035); the tokens come 5 ms apart, so each is a write of its own.
      const pieces = response.text.split(paddingComment(bytes));
      expect(pieces.at(-1)).toBe('');
      for (const piece of pieces.slice(0, -1)) expect(piece).toMatch(/^(?:(?:[^\n]+\n)+\n)+$/);
      expect(pieces.length - 1).toBeGreaterThanOrEqual(tokens.length + 1);
    }
  });
});
