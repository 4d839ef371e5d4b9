import type { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConversationNotFoundError } from '../../chat/ports.js';
import type { StoreContext } from './store-context.js';

/**
 * Sends a write conditioned on `attribute_exists(ownerId)`: a failed condition means the
 * conversation is missing or someone else's, which callers see as not-found.
 */
export async function sendToExistingConversation(
  context: StoreContext,
  command: UpdateCommand | DeleteCommand,
): Promise<void> {
  try {
    await context.documents.send(command);
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') {
      throw new ConversationNotFoundError();
    }
    throw error;
  }
}
