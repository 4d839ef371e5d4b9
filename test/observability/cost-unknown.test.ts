import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatReport } from '../../functions/chat/ports.js';
import { estimateCostUsd, withPrices } from '../../functions/observability/model-prices.js';
import { createObservability } from '../../functions/observability/telemetry.js';
import { loggedLinesOf } from '../support/logged-lines.js';

const UNPRICED = 'global.anthropic.claude-sonnet-9-20290101-v1:0';

const report = (modelId: string): ChatReport =>
  ({
    owner: { tenantId: 'default', userId: 'u' },
    conversationId: 'c',
    inquiryId: 'i',
    modelId,
    outcome: 'complete',
    durationMs: 10,
    inputTokens: 100,
    outputTokens: 200,
    ticketsRetrieved: 0,
    ticketsCited: 0,
    ticketsDropped: 0,
    restrictedFiltered: 0,
    unverifiedReferences: 0,
    heartbeatsSent: 0,
  }) as unknown as ChatReport;

afterEach(() => vi.restoreAllMocks());

describe('a model without a price', () => {
  it('is warned about once, at cold start, naming the setting that prices it', async () => {
    let observability: ReturnType<typeof createObservability> | undefined;
    const coldStart = await loggedLinesOf(() => {
      observability = createObservability({
        logLevel: 'INFO',
        metrics: false,
        tracing: false,
        modelId: UNPRICED,
      });
    });
    expect(coldStart).toEqual([
      expect.objectContaining({
        level: 'WARN',
        message: 'model has no price: the estimated cost of its chats is unknown',
        model_id: UNPRICED,
        hint: expect.stringContaining('modelPrices'),
      }),
    ]);
    const chats = await loggedLinesOf(() => {
      observability?.telemetry.chatFinished(report(UNPRICED));
      observability?.telemetry.chatFinished(report(UNPRICED));
    });
    expect(chats.filter((line) => line.level === 'WARN')).toEqual([]);
  });

  it('marks each chat cost_unknown and counts it in CostUnknown instead of dropping the cost', async () => {
    const observability = createObservability({
      logLevel: 'INFO',
      metrics: true,
      tracing: false,
    });
    const lines = await loggedLinesOf(() => observability.telemetry.chatFinished(report(UNPRICED)));
    const chat = lines.find((line) => line.message === 'chat finished');
    expect(chat).toMatchObject({ cost_unknown: true });
    expect(chat?.estimated_cost_usd).toBeUndefined();
    const emf = lines.find((line) => line._aws !== undefined);
    expect(emf).toMatchObject({ CostUnknown: 1 });
    expect(emf).not.toHaveProperty('EstimatedCostUSD');
  });

  it('is priced by the modelPrices setting, with no warning and no cost_unknown', async () => {
    const prices = withPrices({
      'anthropic.claude-sonnet-9-20290101-v1:0': { inputPerMillion: 4, outputPerMillion: 20 },
    });
    expect(estimateCostUsd(UNPRICED, { inputTokens: 100, outputTokens: 200 }, prices)).toBeCloseTo(
      (100 * 4 + 200 * 20) / 1e6,
      12,
    );
    let observability: ReturnType<typeof createObservability> | undefined;
    const lines = await loggedLinesOf(() => {
      observability = createObservability({
        logLevel: 'INFO',
        metrics: true,
        tracing: false,
        modelId: UNPRICED,
        prices,
      });
      observability.telemetry.chatFinished(report(UNPRICED));
    });
    expect(lines.filter((line) => line.level === 'WARN')).toEqual([]);
    const chat = lines.find((line) => line.message === 'chat finished');
    expect(chat).not.toHaveProperty('cost_unknown');
    expect(chat?.estimated_cost_usd).toBeCloseTo(0.0044, 12);
    expect(lines.find((line) => line._aws !== undefined)).toMatchObject({
      EstimatedCostUSD: expect.closeTo(0.0044, 12),
    });
  });
});
