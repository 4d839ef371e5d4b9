import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepGenerationLease } from '../../functions/chat/generation-lease.js';
import type { GenerationRenewal, Owner } from '../../functions/chat/ports.js';

/**
 * The lease's heartbeat beats a third of a lease after the claim was dated, then every third: a
 * short answer writes nothing of its own, and a slow commit does not eat into the margin.
 */
describe('keepGenerationLease', () => {
  const owner: Owner = { tenantId: 't', userId: 'u' };
  const leaseMs = 30_000;
  const lease = { conversationId: 'c', userSeq: 1, holder: 'h' };
  let renewals: GenerationRenewal[];
  const store = {
    renewGeneration: async (_owner: Owner, renewal: GenerationRenewal) => {
      renewals.push(renewal);
      return true;
    },
  };
  const keep = (claimedUntil: Date) =>
    keepGenerationLease({
      store,
      owner,
      lease,
      claimedUntil,
      leaseMs,
      remainingTimeMs: () => 900_000,
      now: () => new Date(),
      log: { error: () => undefined } as never,
    });

  beforeEach(() => {
    renewals = [];
    vi.useFakeTimers({ now: new Date('2026-12-07T09:00:00Z') });
  });
  afterEach(() => vi.useRealTimers());

  it('writes nothing for a third of the lease after the commit dated it, then beats every third', async () => {
    const kept = keep(new Date(Date.now() + leaseMs));
    await vi.advanceTimersByTimeAsync(leaseMs / 3 - 1);
    expect(renewals).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(renewals).toHaveLength(1);
    expect(renewals[0]?.until.getTime()).toBe(Date.now() + leaseMs);
    await vi.advanceTimersByTimeAsync(leaseMs / 3);
    expect(renewals).toHaveLength(2);
    await kept.stop();
    await vi.advanceTimersByTimeAsync(leaseMs);
    expect(renewals).toHaveLength(2);
  });

  it('beats at once when the commit that took the claim was slower than a third of the lease', async () => {
    // Dated 12 s ago: only 18 s of the lease are left when the caller starts keeping it.
    const kept = keep(new Date(Date.now() + leaseMs - 12_000));
    await vi.advanceTimersByTimeAsync(0);
    expect(renewals).toHaveLength(1);
    await kept.stop();
  });

  it('counts the first beat from when the claim was dated, not from when keeping started', async () => {
    // Dated 4 s ago: the first beat is due 6 s from now.
    const kept = keep(new Date(Date.now() + leaseMs - 4_000));
    await vi.advanceTimersByTimeAsync(5_999);
    expect(renewals).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(renewals).toHaveLength(1);
    await kept.stop();
  });

  it('writes nothing once stopped before the first beat', async () => {
    const kept = keep(new Date(Date.now() + leaseMs));
    await kept.stop();
    await vi.advanceTimersByTimeAsync(2 * leaseMs);
    expect(renewals).toHaveLength(0);
  });
});
