import type { Owner } from '../../functions/chat/ports.js';
import { ownerKey } from '../../functions/chat/ports.js';
import type { DailyBudget } from '../../functions/model-call/daily-budget.js';

/**
 * The daily budget in memory, for core tests: the DynamoDB adapter's rules (a reservation is
 * admitted only while the day's committed tokens are below the limit, adjustments add whatever
 * they are), checked case by case against DynamoDB Local in
 * `test/adapters/dynamodb/daily-budget.test.ts`. `committed` reads a day's count back.
 */
export function createInMemoryDailyBudget() {
  const counters = new Map<string, number>();
  const keyOf = (owner: Owner, day: string) => `${ownerKey(owner)}#${day}`;
  const budget: DailyBudget = {
    async reserve(owner, day, tokens, limit) {
      const key = keyOf(owner, day);
      const committed = counters.get(key);
      if (committed !== undefined && committed >= limit) return false;
      counters.set(key, (committed ?? 0) + tokens);
      return true;
    },
    async adjust(owner, day, tokens) {
      const key = keyOf(owner, day);
      counters.set(key, (counters.get(key) ?? 0) + tokens);
    },
  };
  return {
    budget,
    /** The day's committed tokens: spent plus still reserved; 0 for a day never touched. */
    committed: (owner: Owner, day: string) => counters.get(keyOf(owner, day)) ?? 0,
  };
}
