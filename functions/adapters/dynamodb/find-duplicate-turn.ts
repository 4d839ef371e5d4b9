import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type AppendResult, ConversationNotFoundError } from '../../chat/ports.js';
import { toConversationSummary } from './conversation-item.js';
import { clientMessageKeyOf, conversationKeyOf } from './conversation-keys.js';
import { readConversationItem } from './read-conversation-item.js';
import type { StoreContext } from './store-context.js';
import { type TurnItem, toTurn } from './turn-item.js';

interface ClientMessageMarker {
  readonly conversationId: string;
  readonly turnSeq: number;
}

/**
 * The turn an earlier request stored for this owner's `clientMessageId`, found through its
 * idempotency marker; `undefined` when there is no marker (the message was never stored).
 */
export async function findDuplicateTurn(
  context: StoreContext,
  ownerId: string,
  clientMessageId: string,
): Promise<AppendResult | undefined> {
  const { Item } = await context.documents.send(
    new GetCommand({
      TableName: context.tables.turns,
      Key: clientMessageKeyOf(ownerId, clientMessageId),
      ConsistentRead: true,
    }),
  );
  const marker = Item as ClientMessageMarker | undefined;
  if (!marker) return undefined;
  const conversation = await readConversationItem(context, ownerId, marker.conversationId);
  const turn = conversation
    ? ((
        await context.documents.send(
          new GetCommand({
            TableName: context.tables.turns,
            Key: {
              conversationKey: conversationKeyOf(ownerId, marker.conversationId),
              seq: marker.turnSeq,
            },
            ConsistentRead: true,
          }),
        )
      ).Item as TurnItem | undefined)
    : undefined;
  // The conversation was deleted between the marker check and now.
  if (!conversation || !turn) throw new ConversationNotFoundError();
  return { conversation: toConversationSummary(conversation), turn: toTurn(turn), duplicate: true };
}
