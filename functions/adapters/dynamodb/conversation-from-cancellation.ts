import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { ConversationItem } from './conversation-item.js';

/**
 * The current conversation row that DynamoDB returns with a failed version condition
 * (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`), so a retry needs no extra read.
 * The document client does not unmarshall errors, so the row arrives as raw attribute values.
 * `undefined` when the row is gone (deleted) or absent.
 */
export function conversationFromCancellation(
  error: unknown,
  index: number,
): ConversationItem | undefined {
  const reasons = (error as { CancellationReasons?: { Item?: Record<string, AttributeValue> }[] })
    .CancellationReasons;
  const raw = reasons?.[index]?.Item;
  if (!raw?.version?.N) return undefined;
  return unmarshall(raw) as ConversationItem;
}
