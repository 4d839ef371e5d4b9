import { describe, expect, it } from 'vitest';
import {
  promptCachePolicyFor,
  withPromptCacheSupport,
} from '../../functions/adapters/bedrock/prompt-cache-support.js';
import { answerTool, buildModelRequest } from '../../functions/chat/model-request.js';
import type {
  ChatModel,
  ChatModelEvent,
  ChatModelRequest,
  ChatReport,
  Turn,
} from '../../functions/chat/ports.js';
import { buildSystemPrompt } from '../../functions/chat/prompt-text.js';
import { tokensAtLeast } from '../../functions/model-call/daily-budget.js';
import {
  alice,
  clarification as clarificationAnswer,
  harness,
  storedTurn,
} from '../support/chat-core-harness.js';
import { createInMemoryDailyBudget } from '../support/in-memory-daily-budget.js';

// Prompt caching (ADR 0009): where buildModelRequest asks for Converse cache checkpoints, and that
// without a policy the request is exactly what it was before caching existed.

const turn = storedTurn;
const clarification = (seq: number, question: string): Turn =>
  turn(seq, {
    role: 'assistant',
    kind: 'clarification',
    text: question,
    result: { response_type: 'clarification', general_advice: '', question, options: ['A', 'B'] },
  });
const tickets = [
  { issueId: '1001', subject: 'VPN', restricted: false, text: '再接続で解決', score: 0.5 },
];
const base = { tickets, language: 'ja' as const, archiveBudget: 3000, maxTokens: 1000 };
/** An inquiry with a long first message (a pasted error log) and a clarification. */
const longInquiry = [
  turn(1, {
    text: `VPNに接続できません。エラーログ:\n${'接続がタイムアウトしました。'.repeat(60)}`,
  }),
  clarification(2, '社内と社外のどちらからですか'),
  turn(3, { text: '社外から', kind: 'option' }),
];
const sonnet = { minimumTokens: 1024, cacheTools: true };

describe('buildModelRequest with prompt caching', () => {
  it('sends no checkpoints and the same bytes as before when caching is off', () => {
    const off = buildModelRequest({ ...base, working: longInquiry, archive: [] });
    expect(off.cacheCheckpoints).toBeUndefined();
    expect(Object.keys(off)).toEqual(['system', 'messages', 'tool', 'maxTokens']);
    const cached = buildModelRequest({
      ...base,
      working: longInquiry,
      archive: [],
      promptCache: sonnet,
    });
    const { cacheCheckpoints: _placed, ...rest } = cached;
    expect(JSON.stringify(rest)).toBe(JSON.stringify(off));
  });

  it('puts a checkpoint after the last history message, never after the new user message', () => {
    const request = buildModelRequest({
      ...base,
      working: longInquiry,
      archive: [],
      promptCache: sonnet,
    });
    expect(request.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(request.cacheCheckpoints).toEqual({
      afterTool: false,
      afterSystem: false,
      afterMessage: 1,
    });
  });

  it('skips a checkpoint whose prefix is under the minimum and counts its tokens toward the next', () => {
    const staticTokens =
      tokensAtLeast(JSON.stringify(answerTool)) + tokensAtLeast(buildSystemPrompt('ja'));
    // Tool + system alone are under Claude Sonnet's 1,024: no checkpoint on a first message.
    expect(staticTokens).toBeLessThan(1024);
    const first = buildModelRequest({
      ...base,
      working: [turn(1, { text: 'VPNにつながらない' })],
      archive: [],
      promptCache: sonnet,
    });
    expect(first.cacheCheckpoints).toBeUndefined();
    // A model with a lower minimum caches tool and system separately.
    const low = buildModelRequest({
      ...base,
      working: [turn(1, { text: 'VPNにつながらない' })],
      archive: [],
      promptCache: { minimumTokens: 300, cacheTools: true },
    });
    expect(low.cacheCheckpoints).toEqual({ afterTool: true, afterSystem: true });
    // A short history after them does not reach the minimum on its own.
    const shortHistory = buildModelRequest({
      ...base,
      working: [turn(1, { text: 'Q' }), clarification(2, 'どれ?'), turn(3, { text: 'A' })],
      archive: [],
      promptCache: { minimumTokens: 300, cacheTools: true },
    });
    expect(shortHistory.cacheCheckpoints).toEqual({ afterTool: true, afterSystem: true });
  });

  it('sends no checkpoint after the tools to a model that cannot cache them (Nova)', () => {
    const request = buildModelRequest({
      ...base,
      working: [turn(1, { text: 'VPNにつながらない' })],
      archive: [],
      promptCache: { minimumTokens: 300, cacheTools: false },
    });
    // The tool's tokens count toward the system checkpoint instead.
    expect(request.cacheCheckpoints).toEqual({ afterTool: false, afterSystem: true });
  });

  it('estimates tokens low: 4 ASCII or 1.5 other characters per token', () => {
    expect(tokensAtLeast('abcd'.repeat(100))).toBe(100);
    expect(tokensAtLeast('接続'.repeat(75))).toBe(100);
    expect(tokensAtLeast('')).toBe(0);
  });
});

describe('promptCachePolicyFor', () => {
  it('caches where the model supports it, inference profiles included, and never when off', () => {
    expect(
      promptCachePolicyFor('global.anthropic.claude-sonnet-4-5-20250929-v1:0', 'auto'),
    ).toEqual({ minimumTokens: 1024, cacheTools: true });
    expect(promptCachePolicyFor('us.anthropic.claude-haiku-4-5-20251001-v1:0', 'auto')).toEqual({
      minimumTokens: 4096,
      cacheTools: true,
    });
    expect(promptCachePolicyFor('amazon.nova-pro-v1:0', 'auto')).toEqual({
      minimumTokens: 1000,
      cacheTools: false,
    });
    expect(promptCachePolicyFor('global.anthropic.claude-sonnet-4-5-20250929-v1:0', 'off')).toBe(
      undefined,
    );
    expect(promptCachePolicyFor('meta.llama3-70b-instruct-v1:0', 'auto')).toBeUndefined();
  });

  it('knows no emulator, and caches a model the PROMPT_CACHE_MODELS setting adds', () => {
    expect(promptCachePolicyFor('offline.service-desk-responder', 'auto')).toBeUndefined();
    const added = withPromptCacheSupport({
      'offline.service-desk-responder': { minimumTokens: 512, cacheTools: false },
    });
    expect(promptCachePolicyFor('offline.service-desk-responder', 'auto', added)).toEqual({
      minimumTokens: 512,
      cacheTools: false,
    });
    expect(promptCachePolicyFor('offline.service-desk-responder', 'off', added)).toBeUndefined();
    // The built-in entries stay.
    expect(promptCachePolicyFor('amazon.nova-pro-v1:0', 'auto', added)).toEqual({
      minimumTokens: 1000,
      cacheTools: false,
    });
  });
});

describe('a chat with prompt caching', () => {
  /** A model that answers `clarification` and reports the given usage, recording requests. */
  function usageModel(usage: Omit<Extract<ChatModelEvent, { type: 'usage' }>, 'type'>) {
    const requests: ChatModelRequest[] = [];
    const model: ChatModel = {
      async *stream(request) {
        requests.push(request);
        yield { type: 'tool_input', fragment: JSON.stringify(clarificationAnswer) };
        yield { type: 'stop', reason: 'tool_use' };
        yield { type: 'usage', ...usage };
      },
    };
    return { model, requests };
  }

  it('asks for checkpoints, stores and reports the cache counts, and charges every token to the budget', async () => {
    const usage = {
      inputTokens: 300,
      outputTokens: 50,
      cacheReadInputTokens: 1500,
      cacheWriteInputTokens: 700,
    };
    const { model, requests } = usageModel(usage);
    const reports: ChatReport[] = [];
    const daily = createInMemoryDailyBudget();
    const { chat, store } = harness({
      model,
      config: { promptCache: sonnet, dailyTokenBudget: 1_000_000 },
      budget: daily.budget,
      now: () => new Date('2026-03-02T09:00:00Z'),
      telemetry: { chatFinished: (report) => reports.push(report) },
    });
    const first = await chat(`VPNに接続できません。${'接続がタイムアウトしました。'.repeat(60)}`);
    await chat('社外から', { conversationId: first.conversationId });

    expect(requests[0]?.cacheCheckpoints).toBeUndefined();
    expect(requests[1]?.cacheCheckpoints).toEqual({
      afterTool: false,
      afterSystem: false,
      afterMessage: 1,
    });
    const { turns } = await store.loadConversation(alice, first.conversationId);
    expect(turns.at(-1)?.usage).toMatchObject(usage);
    expect(reports.at(-1)).toMatchObject(usage);
    // Both reservations settled to what the model reported: 300 + 50 + 1500 + 700 each.
    expect(daily.committed(alice, '2026-03-02')).toBe(2 * 2550);
  });

  it('sends no checkpoints without a policy', async () => {
    const { model, requests } = usageModel({ inputTokens: 10, outputTokens: 5 });
    const { chat } = harness({ model });
    const first = await chat(`VPNに接続できません。${'接続がタイムアウトしました。'.repeat(60)}`);
    await chat('社外から', { conversationId: first.conversationId });
    expect(requests.map((request) => request.cacheCheckpoints)).toEqual([undefined, undefined]);
  });
});
