import { DynamoDBDocumentClient, type TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDailyBudget } from '../../../functions/adapters/dynamodb/counters.js';
import type { Owner } from '../../../functions/chat/ports.js';
import type { DailyBudget } from '../../../functions/model-call/daily-budget.js';
import { readCommittedTokens } from '../../support/daily-budget-counter.js';
import {
  createTestClient,
  createTestTables,
  type TestTables,
} from '../../support/dynamodb-test-tables.js';
import { createInMemoryDailyBudget } from '../../support/in-memory-daily-budget.js';
import { alice, bob } from './store-fixture.js';

// The daily budget's store protocol (ADR 0012), the same cases against DynamoDB Local and the
// in-memory budget the core tests use: a reservation is one conditional write, admitted only
// while the day's committed tokens are below the limit.

let t: TestTables;
beforeAll(async () => {
  t = await createTestTables('budget');
});
afterAll(() => t.dispose());

interface Subject {
  readonly budget: DailyBudget;
  committed(owner: Owner, day: string): Promise<number>;
}

const subjects: Record<string, () => Subject> = {
  'DynamoDB Local': () => {
    const documents = DynamoDBDocumentClient.from(t.client);
    return {
      budget: createDailyBudget({ documents, tables: t.tables }),
      committed: (owner, day) => readCommittedTokens(documents, t.tables.turns, owner, day),
    };
  },
  'the in-memory budget': () => {
    const memory = createInMemoryDailyBudget();
    return { budget: memory.budget, committed: async (owner, day) => memory.committed(owner, day) };
  },
};

// Each case takes its own day, so the DynamoDB cases share one table without seeing each other.
let days = 0;
const freshDay = () => new Date(Date.UTC(2031, 0, 1 + days++)).toISOString().slice(0, 10);

describe.each(Object.keys(subjects))('the daily budget on %s', (name) => {
  const subject = () => (subjects[name] as () => Subject)();

  it('reserves while the committed tokens are below the limit, then refuses without adding', async () => {
    const { budget, committed } = subject();
    const day = freshDay();
    expect(await budget.reserve(alice, day, 600, 1000)).toBe(true);
    expect(await budget.reserve(alice, day, 600, 1000)).toBe(true);
    expect(await committed(alice, day)).toBe(1200);
    expect(await budget.reserve(alice, day, 1, 1000)).toBe(false);
    expect(await committed(alice, day)).toBe(1200);
  });

  it('adjusts by any amount, giving back with a negative one, so settled calls make room again', async () => {
    const { budget, committed } = subject();
    const day = freshDay();
    expect(await budget.reserve(alice, day, 5000, 1000)).toBe(true);
    expect(await budget.reserve(alice, day, 5000, 1000)).toBe(false);
    await budget.adjust(alice, day, 300 - 5000); // settled to what the call used
    expect(await committed(alice, day)).toBe(300);
    expect(await budget.reserve(alice, day, 5000, 1000)).toBe(true);
    await budget.adjust(alice, day, -5000); // released: it never called the model
    await budget.adjust(alice, day, 0);
    expect(await committed(alice, day)).toBe(300);
  });

  it('keeps owners and days apart', async () => {
    const { budget, committed } = subject();
    const day = freshDay();
    const nextDay = freshDay();
    expect(await budget.reserve(alice, day, 5000, 1000)).toBe(true);
    expect(await budget.reserve(bob, day, 5000, 1000)).toBe(true);
    expect(await budget.reserve(alice, nextDay, 5000, 1000)).toBe(true);
    expect(await committed(alice, day)).toBe(5000);
    expect(await committed(bob, nextDay)).toBe(0);
  });

  it('admits exactly the reservations that found room when twenty arrive at once', async () => {
    const { budget, committed } = subject();
    const day = freshDay();
    // 0, 400, 800 are below 1000; the fourth finds 1200 whatever the order.
    const admitted = await Promise.all(
      Array.from({ length: 20 }, () => budget.reserve(alice, day, 400, 1000)),
    );
    expect(admitted.filter(Boolean)).toHaveLength(3);
    expect(await committed(alice, day)).toBe(1200);
  });
});

describe('the daily budget on DynamoDB Local when a response is lost', () => {
  // The SDK sends a write again when it never got the response (a reset connection, a 500),
  // though DynamoDB may have applied it: an ADD applied twice would reserve or give back twice.
  function losingClient() {
    const { client } = createTestClient();
    let loseNext = false;
    client.middlewareStack.add(
      (next) => async (args) => {
        const output = await next(args);
        if (!loseNext) return output;
        loseNext = false;
        throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError', $metadata: {} });
      },
      { step: 'deserialize', name: 'loseOneResponse' },
    );
    const documents = DynamoDBDocumentClient.from(client);
    return {
      budget: createDailyBudget({ documents, tables: t.tables }),
      committed: (day: string) => readCommittedTokens(documents, t.tables.turns, alice, day),
      loseNextResponse: () => {
        loseNext = true;
      },
      wasLost: () => !loseNext,
      close: () => client.destroy(),
    };
  }

  it('applies an adjustment once although the SDK sends it again', async () => {
    const subject = losingClient();
    const day = freshDay();
    expect(await subject.budget.reserve(alice, day, 5000, 1000)).toBe(true);
    subject.loseNextResponse();
    await subject.budget.adjust(alice, day, 300 - 5000);

    expect(subject.wasLost()).toBe(true);
    expect(await subject.committed(day)).toBe(300);
    subject.close();
  });

  it('admits a reservation once although the SDK sends it again', async () => {
    const subject = losingClient();
    const day = freshDay();
    subject.loseNextResponse();
    // Applied the first time; sent again, it would find 5000 ≥ 1000 and be refused.
    expect(await subject.budget.reserve(alice, day, 5000, 1000)).toBe(true);

    expect(subject.wasLost()).toBe(true);
    expect(await subject.committed(day)).toBe(5000);
    subject.close();
  });
});

describe('the daily budget on DynamoDB Local when concurrent writes conflict', () => {
  it('tries a write a concurrent transaction cancelled again, with a fresh token', async () => {
    // DynamoDB Local serializes transactions, so the cancellation DynamoDB sends when two
    // transactions on one counter collide is injected in front of the real client.
    const documents = DynamoDBDocumentClient.from(t.client);
    const tokens: string[] = [];
    let conflicts = 0;
    const conflicting = {
      async send(command: TransactWriteCommand) {
        tokens.push(command.input.ClientRequestToken ?? '');
        if (conflicts > 0) {
          conflicts -= 1;
          throw Object.assign(new Error('Transaction cancelled [TransactionConflict]'), {
            name: 'TransactionCanceledException',
            CancellationReasons: [{ Code: 'TransactionConflict' }],
          });
        }
        return documents.send(command);
      },
    } as unknown as DynamoDBDocumentClient;
    const budget = createDailyBudget({
      documents: conflicting,
      tables: t.tables,
      backoff: async () => undefined,
    });
    const day = freshDay();

    conflicts = 2;
    expect(await budget.reserve(alice, day, 5000, 1000)).toBe(true);
    conflicts = 1;
    await budget.adjust(alice, day, 300 - 5000);

    expect(await readCommittedTokens(documents, t.tables.turns, alice, day)).toBe(300);
    expect(tokens).toHaveLength(5);
    expect(new Set(tokens).size).toBe(5);
  });
});
