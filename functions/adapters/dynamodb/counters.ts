import { randomUUID } from 'node:crypto';
import {
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Owner } from '../../chat/ports.js';
import type { IssueNumbers } from '../../knowledge/ports.js';
import type { DailyBudget } from '../../model-call/daily-budget.js';
import { ownerIdOf } from './conversation-items.js';
import type { StoreContext } from './store-context.js';
import { translateUnavailable } from './store-unavailable.js';
import { jitteredBackoff } from './versioned-commit.js';

/** What an item of the Turns table beside the turns needs: the client and the table's name. */
export type TurnsTableContext = Pick<StoreContext, 'documents'> & {
  readonly tables: Pick<StoreContext['tables'], 'turns'>;
};

/*
 * Atomic counters kept as items of the Turns table, beside the idempotency markers, under keys
 * that can never look like a conversation key (which ends in a ULID), at seq 0: the daily token
 * budget per owner and the ticket numbers of published knowledge per tenant.
 */

/**
 * The daily token budget: one counter per owner and UTC day (`ownerId#budget#2026-12-01`) whose
 * `tokens` are the tokens committed that day — spent, plus reserved by calls still running
 * (ADR 0012). Two days of TTL: only today's counter matters, and a reservation a crashed function
 * never settled is forgotten with its day.
 *
 * Every write is a one-item transaction with a client request token. An ADD is not idempotent,
 * and the SDK sends a write again when its response was lost (a reset connection, a 500) though
 * DynamoDB may have applied it: a reservation applied twice would be refused by its own first
 * copy (a 429 for an admitted call), a give-back applied twice would leave the day charged too
 * little, even below zero. With the token, a repeat within 10 minutes succeeds without applying
 * again. It costs twice the write units of an update, for three small writes a chat.
 */
export function createDailyBudget(
  context: TurnsTableContext & {
    /** Between attempts that conflicted. @default jitteredBackoff() */
    readonly backoff?: (attempt: number) => Promise<void>;
  },
): DailyBudget {
  const keyOf = (owner: Owner, day: string) => ({
    conversationKey: `${ownerIdOf(owner)}#budget#${day}`,
    seq: 0,
  });
  const expiresAt = (day: string) => Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + 2 * 86_400;
  const backoff = context.backoff ?? jitteredBackoff();

  /** Writes one update of the counter; false when its condition failed. */
  async function write(update: Omit<CounterUpdate, 'TableName'>): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await context.documents.send(
          new TransactWriteCommand({
            // One per attempt, the same on every send the SDK makes of it.
            ClientRequestToken: randomUUID(),
            TransactItems: [{ Update: { TableName: context.tables.turns, ...update } }],
          }),
        );
        return true;
      } catch (error) {
        const reason = cancellationReasonOf(error);
        if (reason === 'ConditionalCheckFailed') return false;
        // Two transactions on one counter (one user's concurrent calls) can cancel each other;
        // a cancelled one applied nothing, so it is simply tried again.
        if (reason !== 'TransactionConflict' || attempt >= CONFLICT_ATTEMPTS) throw error;
        await backoff(attempt);
      }
    }
  }

  // An outage is a 503 like the conversation store's: the chat is refused before anything is
  // written, not failed as an internal error.
  return translateUnavailable<DailyBudget>({
    reserve(owner, day, tokens, limit) {
      // The check and the reservation are one conditional write: two calls can never both see
      // the room that only one of them leaves. (`tokens` kept its name from when it counted
      // only spent tokens, so a counter written before reservations still counts.)
      return write({
        Key: keyOf(owner, day),
        UpdateExpression: 'ADD tokens :tokens, chats :one SET expiresAt = :expiresAt',
        ConditionExpression: 'attribute_not_exists(tokens) OR tokens < :limit',
        ExpressionAttributeValues: {
          ':tokens': tokens,
          ':one': 1,
          ':limit': limit,
          ':expiresAt': expiresAt(day),
        },
      });
    },
    async adjust(owner, day, tokens) {
      if (tokens === 0) return;
      await write({
        Key: keyOf(owner, day),
        UpdateExpression: 'ADD tokens :tokens SET expiresAt = :expiresAt',
        ExpressionAttributeValues: { ':tokens': tokens, ':expiresAt': expiresAt(day) },
      });
    },
  });
}

type CounterUpdate = NonNullable<
  NonNullable<TransactWriteCommandInput['TransactItems']>[number]['Update']
>;

const CONFLICT_ATTEMPTS = 10;

/** Why a one-item transaction was cancelled (`CancellationReasons[0].Code`), if it was. */
function cancellationReasonOf(error: unknown): string | undefined {
  if ((error as { name?: string } | undefined)?.name !== 'TransactionCanceledException') {
    return undefined;
  }
  return (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons?.[0]?.Code;
}

/** Ticket numbers of published tickets start here, above the imported ones (ADR 0020). */
export const FIRST_PUBLISHED_ISSUE_ID = 900_001;

/**
 * Ticket numbers for published knowledge: one counter per tenant
 * (`<tenant>#knowledge#issue-number`). No TTL: a number is never handed out twice. A publish
 * that fails after taking a number leaves a gap, which costs nothing.
 */
export function createIssueNumbers(context: TurnsTableContext, firstIssueId: number): IssueNumbers {
  return translateUnavailable<IssueNumbers>({
    async next(tenantId) {
      const response = await context.documents.send(
        new UpdateCommand({
          TableName: context.tables.turns,
          Key: { conversationKey: `${tenantId}#knowledge#issue-number`, seq: 0 },
          UpdateExpression: 'ADD issued :one',
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      const issued = Number(response.Attributes?.issued);
      if (!Number.isSafeInteger(issued) || issued < 1)
        throw new Error(`The issue-number counter returned ${String(response.Attributes?.issued)}`);
      return String(firstIssueId + issued - 1);
    },
  });
}
