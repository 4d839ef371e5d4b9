import { describe, expect, it } from 'vitest';
import { createTicketCategories } from '../../functions/knowledge/ticket-categories.js';

/** A clock the test moves, and a bucket whose uploaded sets it changes. */
function setup(options: { deployed: string[]; uploaded: string[] }) {
  let now = Date.parse('2026-12-02T00:00:00Z');
  let uploaded = options.uploaded;
  let failure: Error | undefined;
  let reads = 0;
  const categories = createTicketCategories({
    deployed: options.deployed,
    documents: {
      async uploadedCategories() {
        reads++;
        if (failure) throw failure;
        return uploaded;
      },
    },
    now: () => new Date(now),
    refreshMs: 60_000,
    onReadFailed: () => {},
  });
  return {
    categories,
    reads: () => reads,
    advance: (ms: number) => {
      now += ms;
    },
    upload: (next: string[]) => {
      uploaded = next;
    },
    fail: (error: Error | undefined) => {
      failure = error;
    },
  };
}

describe('the categories a published ticket may take', () => {
  it('are the deployed set with the uploaded sources’ sets, one per spelling, sorted (as ticketCategorySet sorts)', async () => {
    const { categories } = setup({
      deployed: ['VPN', 'Mail'],
      uploaded: ['network', 'vpn', '<b>'],
    });
    await expect(categories.current()).resolves.toEqual(['Mail', 'VPN', 'network']);
  });

  it('read the bucket once per refresh, concurrent requests sharing the read', async () => {
    const clock = setup({ deployed: ['VPN'], uploaded: ['network'] });
    await Promise.all([clock.categories.current(), clock.categories.current()]);
    expect(clock.reads()).toBe(1);
    clock.upload(['network', 'inquiry']);
    clock.advance(59_000);
    await expect(clock.categories.current()).resolves.toEqual(['VPN', 'network']);
    clock.advance(2_000);
    await expect(clock.categories.current()).resolves.toEqual(['VPN', 'inquiry', 'network']);
    expect(clock.reads()).toBe(2);
  });

  it('keep what was known when the bucket cannot be read, and try again at the next refresh', async () => {
    const clock = setup({ deployed: ['VPN'], uploaded: ['network'] });
    await clock.categories.current();
    clock.fail(new Error('AccessDenied'));
    clock.advance(61_000);
    await expect(clock.categories.current()).resolves.toEqual(['VPN', 'network']);
    clock.fail(undefined);
    clock.upload(['inquiry']);
    clock.advance(61_000);
    await expect(clock.categories.current()).resolves.toEqual(['VPN', 'inquiry']);
  });

  it('stay open (any safe category) where the deployment knows no set, uploads or not', async () => {
    const { categories } = setup({ deployed: [], uploaded: ['network'] });
    await expect(categories.current()).resolves.toEqual([]);
  });

  it('are the deployed set alone where capture has no document bucket', async () => {
    const categories = createTicketCategories({ deployed: ['VPN'], now: () => new Date() });
    await expect(categories.current()).resolves.toEqual(['VPN']);
  });
});
