import type { ConversationItem } from './conversation-item.js';

type AttributeValue = { S?: string; N?: string; BOOL?: boolean; NULL?: boolean };

/**
 * The current conversation row that DynamoDB returns with a failed version condition
 * (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`), so a retry needs no extra read.
 * The document client does not unmarshall errors, and the row holds only strings and numbers,
 * so this small converter is enough. `undefined` when the row is gone (deleted) or absent.
 */
export function conversationFromCancellation(
  error: unknown,
  index: number,
): ConversationItem | undefined {
  const reasons = (error as { CancellationReasons?: { Item?: Record<string, AttributeValue> }[] })
    .CancellationReasons;
  const raw = reasons?.[index]?.Item;
  if (!raw?.version?.N) return undefined;
  const item: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value.S !== undefined) item[name] = value.S;
    else if (value.N !== undefined) item[name] = Number(value.N);
    else if (value.BOOL !== undefined) item[name] = value.BOOL;
  }
  return item as unknown as ConversationItem;
}
