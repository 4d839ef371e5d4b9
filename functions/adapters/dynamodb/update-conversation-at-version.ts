import type { TransactItem } from './commit-with-version.js';
import type { ConversationItem } from './conversation-item.js';
import type { StoreContext } from './store-context.js';

type MutableFields = Partial<Omit<ConversationItem, 'ownerId' | 'conversationId' | 'version'>>;

/**
 * The conversation half of a versioned commit: `SET version = expected + 1` plus `changes`
 * (an `undefined` value REMOVEs the attribute), conditioned on `version = expected`. A missing
 * row fails the condition too, so a deleted conversation can never be written back.
 * Returns the transaction item and the row as it will be once committed.
 */
export function updateConversationAtVersion(
  context: StoreContext,
  state: ConversationItem,
  changes: MutableFields,
): { item: TransactItem; after: ConversationItem } {
  const names: Record<string, string> = { '#version': 'version' };
  const values: Record<string, unknown> = {
    ':expected': state.version,
    ':next': state.version + 1,
  };
  const set = ['#version = :next'];
  const remove: string[] = [];
  Object.entries(changes).forEach(([field, value], index) => {
    names[`#f${index}`] = field;
    if (value === undefined) {
      remove.push(`#f${index}`);
    } else {
      values[`:f${index}`] = value;
      set.push(`#f${index} = :f${index}`);
    }
  });
  const item: TransactItem = {
    Update: {
      TableName: context.tables.conversations,
      Key: { ownerId: state.ownerId, conversationId: state.conversationId },
      UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
      ConditionExpression: '#version = :expected',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      // On conflict DynamoDB hands back the current row: the retry plans from it without a read.
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
  const after = { ...state, ...changes, version: state.version + 1 } as ConversationItem;
  return { item, after };
}
