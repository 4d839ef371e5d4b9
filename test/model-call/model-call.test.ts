import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ChatModelError } from '../../functions/chat/errors.js';
import type { ChatModelEvent } from '../../functions/chat/ports.js';
import { defineForcedTool, endingOf } from '../../functions/model-call/forced-tool.js';
import { openModelCall } from '../../functions/model-call/open-model-call.js';
import type { ToolInputStreamOutcome } from '../../functions/tool-input/stream-tool-input.js';
import { createInMemoryDailyBudget } from '../support/in-memory-daily-budget.js';
import { silentLog } from '../support/silent-log.js';

// The one model-call module: a forced tool from its schema, the ending table every stream ends
// by, and the call's deadline, reservation and charge.

/** A stream that ended normally, with `overrides` for the ending under test. */
const streamed = (
  overrides: Partial<ToolInputStreamOutcome<ChatModelEvent>> = {},
): ToolInputStreamOutcome<ChatModelEvent> => ({
  final: { value: { text: 'done' }, truncated: false },
  fragments: 3,
  malformed: false,
  aborted: false,
  stopReason: 'tool_use',
  ...overrides,
});
const words = { noun: 'summary' };
const arrived = { arrived: true, kept: true };

describe('endingOf: how a stream ended → complete, partial or failed, and the error code', () => {
  it.each([
    [
      'a guardrail block, never kept',
      { stopReason: 'guardrail_intervened' as const },
      'failed',
      'guardrail_intervened',
      false,
    ],
    [
      'a failed stream',
      { streamError: { error: new ChatModelError('model_throttled', true) } },
      'partial',
      'model_throttled',
      true,
    ],
    ['invalid JSON while streaming', { malformed: true }, 'partial', 'invalid_model_output', false],
    ['the signal', { aborted: true }, 'partial', 'timeout', true],
    [
      'a stream that just ended',
      { stopReason: undefined },
      'partial',
      'model_stream_failed',
      false,
    ],
    [
      'invalid JSON at the end',
      { final: { value: {}, truncated: false, error: { message: 'x', position: 1 } } as never },
      'partial',
      'invalid_model_output',
      false,
    ],
    [
      'max_tokens',
      { stopReason: 'max_tokens' as const },
      'partial',
      'model_output_truncated',
      false,
    ],
    [
      'a truncated tool input',
      { final: { value: {}, truncated: true } },
      'partial',
      'model_output_truncated',
      false,
    ],
  ])('%s', (_label, overrides, status, code, interrupted) => {
    const ending = endingOf(streamed(overrides), arrived, words);
    expect(ending).toMatchObject({ status, failure: { code }, interrupted });
  });

  it('is failed instead of partial when what arrived is not worth keeping', () => {
    const ending = endingOf(
      streamed({ stopReason: 'max_tokens' }),
      { arrived: true, kept: false },
      words,
    );
    expect(ending).toMatchObject({ status: 'failed', cause: 'max_tokens' });
  });

  it('is empty_model_output when nothing arrived, whatever the feature keeps', () => {
    const ending = endingOf(streamed({ fragments: 0 }), { arrived: false, kept: true }, words);
    expect(ending).toMatchObject({
      status: 'failed',
      failure: {
        code: 'empty_model_output',
        message: 'The model returned no summary. Please try again.',
      },
    });
  });

  it('words its messages with the feature’s noun, and takes the feature’s code for an abort', () => {
    const ending = endingOf(streamed({ aborted: true }), arrived, {
      noun: 'draft',
      abortedCode: 'draft_stopped',
    });
    expect(ending).toMatchObject({
      failure: {
        code: 'draft_stopped',
        message: expect.stringContaining('The draft took too long'),
      },
    });
  });

  it('is complete when the model finished the tool input', () => {
    expect(endingOf(streamed(), arrived, words)).toEqual({ status: 'complete' });
  });
});

describe('defineForcedTool', () => {
  it('gives the model the draft-7 JSON Schema of the input, without $schema', () => {
    const tool = defineForcedTool({
      name: 'submit',
      description: 'Submit it.',
      input: z.object({ text: z.string().describe('The text') }),
    });
    expect(tool).toEqual({
      name: 'submit',
      description: 'Submit it.',
      inputSchema: expect.objectContaining({
        type: 'object',
        properties: { text: { type: 'string', description: 'The text' } },
        required: ['text'],
      }),
    });
    expect(tool.inputSchema).not.toHaveProperty('$schema');
    expect(Object.isFrozen(tool)).toBe(true);
  });
});

describe('openModelCall', () => {
  const owner = { tenantId: 't', userId: 'u' };
  const day = '2026-03-02';
  const now = () => new Date(`${day}T09:00:00Z`);
  const request = {
    system: 'You summarize.',
    messages: [{ role: 'user' as const, text: 'VPN' }],
    tool: defineForcedTool({ name: 'submit', description: 'x', input: z.object({}) }),
    maxTokens: 100,
  };
  const context = (budget: ReturnType<typeof createInMemoryDailyBudget>['budget']) => ({
    config: { dailyTokenBudget: 1_000_000, remainingTimeReserveMs: 20_000 },
    budget,
    now,
    log: silentLog,
  });

  it('reserves the bound, holds the request’s once built, and settles to the charge', async () => {
    const daily = createInMemoryDailyBudget();
    const call = await openModelCall(
      owner,
      { bound: 5000, remainingTimeMs: () => 60_000 },
      context(daily.budget),
    );
    expect(daily.committed(owner, day)).toBe(5000);
    call.requestBuilt(request);
    const charged = call.ended({ request, usage: { inputTokens: 40, outputTokens: 2 } });
    await call.settle();
    expect(charged).toBe(42);
    expect(daily.committed(owner, day)).toBe(42);
  });

  it('gives everything back when the call never ended (the model was never called)', async () => {
    const daily = createInMemoryDailyBudget();
    const call = await openModelCall(
      owner,
      { bound: 5000, remainingTimeMs: () => 60_000 },
      context(daily.budget),
    );
    await call.settle();
    expect(daily.committed(owner, day)).toBe(0);
  });

  it('refuses over the budget before anything else', async () => {
    const daily = createInMemoryDailyBudget();
    await daily.budget.reserve(owner, day, 1_000_000, 1_000_000);
    await expect(
      openModelCall(owner, { bound: 1, remainingTimeMs: () => 60_000 }, context(daily.budget)),
    ).rejects.toMatchObject({ code: 'daily_budget_exceeded' });
  });

  it('sets the deadline at the remaining time less the reserve, never under a second', async () => {
    const daily = createInMemoryDailyBudget();
    const late = await openModelCall(
      owner,
      { bound: 1, remainingTimeMs: () => 20_500 },
      context(daily.budget),
    );
    expect(late.deadline.aborted).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(late.deadline.aborted).toBe(true);
  });
});
