import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPromptMessage } from '../../local/bedrock/offline-responder/read-offline-prompt.js';
import {
  eventsNamed,
  fetchConversation,
  postChat,
  type StopTarget,
  stopOnFirstToken,
} from '../support/chat-client.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';
import { scriptedAnswer } from '../support/scripted-answer.js';
import { splitIntoFragments } from '../support/split-into-fragments.js';

let chat: InProcessApi;
beforeAll(async () => {
  chat = await startInProcessApi({ overrides: { timings: { heartbeatMs: 40 } } });
});
afterAll(() => chat?.stop());

const advice = 'まずパスワードの有効期限を確認してください。次にブラウザのキャッシュを削除します。';
const fullAnswer = {
  response_type: 'results',
  general_advice: advice,
  results: [],
  todo_actions: ['確認する'],
};

async function storedTurns(conversationId: string, user: string) {
  return (await fetchConversation(chat.api, conversationId, user)).turns;
}

describe('chat failures through the API', () => {
  it('ends throttling with a retryable error and stores the user turn and a failed answer', async () => {
    // The SDK retries a throttled call (3 attempts by default); every attempt is throttled.
    for (let attempt = 0; attempt < 3; attempt++) chat.bedrock.enqueueScript({ kind: 'throttle' });
    const response = await postChat(
      chat.api,
      { message: 'VPNにつながらない' },
      { user: 'throttle' },
    );
    expect(response.status).toBe(200);
    expect(response.events.at(-1)).toEqual({
      event: 'error',
      data: { code: 'model_throttled', message: expect.any(String), retryable: true },
    });
    expect(eventsNamed(response, 'result')).toEqual([]);
    const turns = await storedTurns(
      eventsNamed(response, 'meta')[0]?.conversationId as string,
      'throttle',
    );
    expect(turns.map((turn) => [turn.role, turn.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'failed'],
    ]);
  });

  it('replays the stored answer to a retried message instead of generating again', async () => {
    const user = 'retrier';
    const body = { message: 'VPNにつながらない', clientMessageId: 'retry-message-0001' };
    for (let attempt = 0; attempt < 3; attempt++) chat.bedrock.enqueueScript({ kind: 'throttle' });
    const failed = await postChat(chat.api, body, { user });
    expect(failed.events.at(-1)?.event).toBe('error');
    const conversationId = eventsNamed(failed, 'meta')[0]?.conversationId as string;

    // The retry generates (the first attempt failed) and stores a complete answer.
    const retried = await postChat(chat.api, { ...body, conversationId }, { user });
    const answer = eventsNamed(retried, 'result')[0];
    expect(answer).toMatchObject({ status: 'complete' });

    // Retrying once more (say the result was lost on the way) replays it: no model call.
    const calls = chat.bedrock.converseRequests.length;
    const replayed = await postChat(chat.api, { ...body, conversationId }, { user });
    expect(chat.bedrock.converseRequests.length).toBe(calls);
    expect(eventsNamed(replayed, 'result')[0]).toMatchObject({
      general_advice: answer?.general_advice,
      status: 'complete',
    });
    const turns = await storedTurns(conversationId, user);
    expect(turns.map((turn) => [turn.role, turn.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'failed'],
      ['assistant', 'complete'],
    ]);
  });

  // Until issue #16 this was an error event and a failed turn: the advice staff had been reading
  // was replaced by an error, and a reload showed a failure instead of what they saw.
  it('keeps the advice that streamed before a mid-stream exception as a truncated answer, live and stored', async () => {
    const user = 'midstream';
    const fragments = splitIntoFragments(JSON.stringify(fullAnswer), [5]);
    chat.bedrock.enqueueScript({ kind: 'stream', fragments, failAfter: 12, delayMs: 0 });
    const response = await postChat(chat.api, { message: 'VPNにつながらない' }, { user });
    const streamed = eventsNamed(response, 'token')
      .map((token) => token.content)
      .join('');
    expect(streamed.length).toBeGreaterThan(0);
    expect(advice.startsWith(streamed)).toBe(true);
    expect(eventsNamed(response, 'error')).toEqual([]);
    expect(response.events.at(-1)).toMatchObject({
      event: 'result',
      data: { status: 'truncated', response_type: 'results', general_advice: streamed },
    });
    const conversationId = eventsNamed(response, 'meta')[0]?.conversationId as string;
    const turns = await storedTurns(conversationId, user);
    expect(turns.at(-1)).toMatchObject({ role: 'assistant', status: 'truncated', text: streamed });

    // What staff read is history: the next inquiry sees it in the archive.
    await postChat(chat.api, { conversationId, message: 'Teamsの音が出ない' }, { user });
    const request = chat.bedrock.converseRequests.at(-1)?.body as {
      messages: { content: { text: string }[] }[];
    };
    const lastMessage = (request.messages.at(-1)?.content ?? [])
      .map((block) => block.text)
      .join('');
    expect(readPromptMessage(lastMessage).archive).toEqual([
      { number: 1, question: 'VPNにつながらない', answer: streamed },
    ]);
  });

  it('reports a mid-stream exception before any advice as a retryable error and a failed turn', async () => {
    const fragments = splitIntoFragments(JSON.stringify(fullAnswer), [5]);
    chat.bedrock.enqueueScript({ kind: 'stream', fragments, failAfter: 2, delayMs: 0 });
    const response = await postChat(chat.api, { message: 'VPNにつながらない' }, { user: 'early' });
    expect(eventsNamed(response, 'token')).toEqual([]);
    expect(eventsNamed(response, 'result')).toEqual([]);
    expect(response.events.at(-1)).toMatchObject({
      event: 'error',
      data: { code: 'model_stream_failed', retryable: true },
    });
    const turns = await storedTurns(
      eventsNamed(response, 'meta')[0]?.conversationId as string,
      'early',
    );
    expect(turns.at(-1)).toMatchObject({ role: 'assistant', status: 'failed' });
  });

  it('turns max_tokens into a truncated result built from the partial answer, asking for 8192 tokens by default', async () => {
    const json = JSON.stringify(fullAnswer);
    chat.bedrock.enqueueScript({
      kind: 'stream',
      fragments: splitIntoFragments(json.slice(0, 60), [4]),
      stopReason: 'max_tokens',
      delayMs: 0,
    });
    const response = await postChat(
      chat.api,
      { message: 'VPNにつながらない' },
      { user: 'truncated' },
    );
    const result = eventsNamed(response, 'result')[0];
    expect(result).toMatchObject({ status: 'truncated', response_type: 'results' });
    expect(advice.startsWith(result?.general_advice as string)).toBe(true);
    const turns = await storedTurns(result?.conversationId as string, 'truncated');
    expect(turns.at(-1)).toMatchObject({ role: 'assistant', status: 'truncated' });
    const request = chat.bedrock.converseRequests.at(-1)?.body as {
      inferenceConfig: { maxTokens: number };
    };
    expect(request.inferenceConfig.maxTokens).toBe(8192);
  });

  it('reports max_tokens before any advice as a retryable error, not an empty answer', async () => {
    chat.bedrock.enqueueScript({
      kind: 'stream',
      fragments: ['{"response_type":"results",', '"reasoning":"long'],
      stopReason: 'max_tokens',
      delayMs: 0,
    });
    const response = await postChat(chat.api, { message: 'VPNにつながらない' }, { user: 'long' });
    expect(eventsNamed(response, 'result')).toEqual([]);
    expect(response.events.at(-1)).toMatchObject({
      event: 'error',
      data: { code: 'model_output_truncated', retryable: true },
    });
  });

  it('keeps the advice that streamed before invalid tool JSON as a truncated answer', async () => {
    chat.bedrock.enqueueScript({
      kind: 'stream',
      fragments: ['{"response_type":"results",', '"general_advice":"ok"', ' oops}'],
      delayMs: 0,
    });
    const response = await postChat(
      chat.api,
      { message: 'VPNにつながらない' },
      { user: 'invalid' },
    );
    expect(response.events.at(-1)).toMatchObject({
      event: 'result',
      data: { status: 'truncated', general_advice: 'ok' },
    });
    const turns = await storedTurns(
      eventsNamed(response, 'meta')[0]?.conversationId as string,
      'invalid',
    );
    expect(turns.at(-1)).toMatchObject({ role: 'assistant', status: 'truncated', text: 'ok' });
  });

  it('reports invalid tool JSON before any advice as a retryable error and a failed turn', async () => {
    chat.bedrock.enqueueScript({
      kind: 'stream',
      fragments: ['{"response_type":"results" oops', ',"general_advice":"ok"}'],
      delayMs: 0,
    });
    const response = await postChat(
      chat.api,
      { message: 'VPNにつながらない' },
      { user: 'invalid-early' },
    );
    expect(response.events.at(-1)).toMatchObject({
      event: 'error',
      data: { code: 'invalid_model_output', retryable: true },
    });
    const turns = await storedTurns(
      eventsNamed(response, 'meta')[0]?.conversationId as string,
      'invalid-early',
    );
    expect(turns.at(-1)).toMatchObject({ role: 'assistant', status: 'failed' });
  });

  it('reports a model that ends without calling the tool as a retryable error', async () => {
    chat.bedrock.enqueueScript({
      kind: 'stream',
      fragments: [],
      stopReason: 'end_turn',
      delayMs: 0,
    });
    const response = await postChat(chat.api, { message: 'VPNにつながらない' }, { user: 'empty' });
    expect(response.events.at(-1)).toMatchObject({
      event: 'error',
      data: { code: 'empty_model_output', retryable: true },
    });
    const turns = await storedTurns(
      eventsNamed(response, 'meta')[0]?.conversationId as string,
      'empty',
    );
    expect(turns.at(-1)).toMatchObject({ role: 'assistant', status: 'failed' });
  });

  it('stops mid-answer when the stop route is called, storing the partial answer as stopped', async () => {
    const slow = 'あ'.repeat(400);
    chat.bedrock.enqueueScript(
      scriptedAnswer(
        { response_type: 'results', general_advice: slow, results: [] },
        { size: 4, delayMs: 20 },
      ),
    );
    const stopper = stopOnFirstToken(chat.api, 'stopper');
    const response = await postChat(chat.api, { message: 'VPNにつながらない' }, stopper);
    expect(stopper.stopStatus()).toBe(202);
    const result = eventsNamed(response, 'result')[0];
    expect(result).toMatchObject({ status: 'stopped' });
    expect(String(result?.general_advice ?? '').length).toBeLessThan(slow.length);
    const turns = await storedTurns(result?.conversationId as string, 'stopper');
    expect(turns.at(-1)).toMatchObject({ role: 'assistant', status: 'stopped' });
  });

  // Before (issue #24, item 6): a stop was a time on the conversation, so a stop for the previous
  // answer that landed after the next message began stopped that one instead.
  it('never stops a later answer with a stop for an earlier one, however late it lands', async () => {
    const user = 'late-stopper';
    const first = await postChat(chat.api, { message: 'プリンターが動かない' }, { user });
    const earlier = eventsNamed(first, 'meta')[0] as unknown as StopTarget;
    const advice = 'い'.repeat(200);
    chat.bedrock.enqueueScript(
      scriptedAnswer(
        { response_type: 'results', general_advice: advice, results: [] },
        { size: 4, delayMs: 20 },
      ),
    );
    const stopper = stopOnFirstToken(chat.api, user, earlier);
    const later = await postChat(
      chat.api,
      { conversationId: earlier.conversationId, message: 'VPNにつながらない' },
      stopper,
    );
    expect(stopper.stopStatus()).toBe(202);
    expect(eventsNamed(later, 'result')[0]).toMatchObject({
      status: 'complete',
      general_advice: advice,
    });
  });

  it('keeps a slow model stream alive with heartbeat comments', async () => {
    chat.bedrock.enqueueScript(scriptedAnswer(fullAnswer, { initialDelayMs: 400 }));
    const response = await postChat(chat.api, { message: 'VPNにつながらない' }, { user: 'slow' });
    const beforeFirstToken = response.text.split('event: token')[0] ?? '';
    expect(beforeFirstToken).toContain(': ping\n\n');
    expect(eventsNamed(response, 'result')[0]).toMatchObject({ status: 'complete' });
  });
});
