import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { Log } from '../../chat/log.js';
import type { InsightsStore } from '../../insights/ports.js';
import { deleteConversationTurns, type TurnsContext } from './change-conversation.js';
import { isConversationId } from './conversation-items.js';
import { ttlDeletionIdentity } from './table-definitions.js';
import { type BackoffOptions, jitteredBackoff } from './versioned-commit.js';

/**
 * Retention per conversation: TTL deletes a `Conversations` row `retentionDays` after its last
 * commit; this sweeper, fed by that table's stream, then deletes the conversation's turns and
 * idempotency markers. Turns carry no TTL of their own, so an active conversation keeps all of
 * them. Without the row they are already unreachable (every read starts from it), so the sweep
 * only has to happen eventually.
 */

export interface ExpiredConversationSweeperOptions {
  /** Created once per container and shared; a plain client is wrapped in a document client. */
  readonly client: DynamoDBClient | DynamoDBDocumentClient;
  /** Physical name of the `Turns` table. */
  readonly turnsTable: string;
  /**
   * The insights aggregates: an expired conversation's gap examples and solved inquiry go with
   * it (`forgetConversation`, ADR 0022). A failure fails the record (retried), as the turns'
   * sweep does: inquiry text must not outlive its conversation. @default none
   */
  readonly insights?: Pick<InsightsStore, 'forgetConversation'>;
  /** Backoff between rounds of unprocessed batch deletes. @default { baseDelayMs: 10, maxDelayMs: 500 } */
  readonly backoff?: BackoffOptions;
  /** Where a record that could not be swept is reported (the function's Powertools Logger). */
  readonly log: Pick<Log, 'error'>;
}

/** The key of a conversation whose row TTL removed. */
export interface ExpiredConversation {
  readonly ownerId: string;
  readonly conversationId: string;
}

/**
 * The conversation a stream record reports as deleted by TTL; `undefined` for anything else —
 * inserts, updates, and deletes by a user (`deleteConversation` removes those turns itself).
 * The event source mapping already filters on the same fields; this check keeps a mis-set filter
 * from deleting turns of a conversation the user still has.
 */
export function expiredConversationOf(record: DynamoDBRecord): ExpiredConversation | undefined {
  const identity = record.userIdentity as { type?: string; principalId?: string } | undefined;
  if (
    record.eventName !== 'REMOVE' ||
    identity?.type !== ttlDeletionIdentity.type ||
    identity.principalId !== ttlDeletionIdentity.principalId ||
    !record.dynamodb?.Keys
  ) {
    return undefined;
  }
  const keys = unmarshall(record.dynamodb.Keys as Record<string, AttributeValue>);
  const { ownerId, conversationId } = keys as Partial<ExpiredConversation>;
  if (typeof ownerId !== 'string' || typeof conversationId !== 'string') return undefined;
  if (!isConversationId(conversationId)) return undefined;
  return { ownerId, conversationId };
}

/**
 * The stream handler: for each TTL deletion, deletes that conversation's turns and markers, in
 * record order. On a failure it reports that record as the batch's first failure
 * (`ReportBatchItemFailures`), so Lambda retries from it; deletes are idempotent, so records
 * already swept may be swept again harmlessly.
 *
 * @example
 * export const handler = createExpiredConversationSweeper({
 *   client: new DynamoDBClient({}),
 *   turnsTable: process.env.TURNS_TABLE!,
 *   log: { error: (message, fields) => logger.error(message, { ...fields }) },
 * });
 */
export function createExpiredConversationSweeper(options: ExpiredConversationSweeperOptions) {
  const context: TurnsContext = {
    documents:
      options.client instanceof DynamoDBDocumentClient
        ? options.client
        : DynamoDBDocumentClient.from(options.client),
    tables: { turns: options.turnsTable },
    backoff: jitteredBackoff(options.backoff),
  };
  return async function sweepExpiredConversations(
    event: DynamoDBStreamEvent,
  ): Promise<DynamoDBBatchResponse> {
    for (const record of event.Records) {
      const expired = expiredConversationOf(record);
      if (!expired) continue;
      try {
        await deleteConversationTurns(context, expired.ownerId, expired.conversationId);
        // The owner id is `<tenant>#<user>`; the aggregates are per tenant.
        const tenantId = expired.ownerId.slice(0, expired.ownerId.indexOf('#'));
        await options.insights?.forgetConversation({ tenantId }, expired.conversationId);
      } catch (error) {
        options.log.error('Sweeping an expired conversation failed', {
          conversationId: expired.conversationId,
          sequenceNumber: record.dynamodb?.SequenceNumber,
          error,
        });
        return {
          batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }],
        };
      }
    }
    return { batchItemFailures: [] };
  };
}
