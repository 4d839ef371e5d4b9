import { ulid } from 'ulid';
import {
  type AppendResult,
  type AppendUserTurnInput,
  ConversationNotFoundError,
  type Owner,
} from '../../chat/ports.js';
import { commitWithVersion } from './commit-with-version.js';
import { isConversationId, ownerIdOf } from './conversation-keys.js';
import { findDuplicateTurn } from './find-duplicate-turn.js';
import { planAppend } from './plan-append.js';
import type { StoreContext } from './store-context.js';
import { titleFromText } from './title-from-text.js';
import { assertTurnFits } from './turn-size-limits.js';

/**
 * Stores what the user said. The inquiry is decided from the state being committed against:
 * with an open inquiry the turn is an `option` reply to its clarification, otherwise it opens a
 * new inquiry (`question`). Without `conversationId` the conversation is created in the same commit.
 */
export async function appendUserTurn(
  context: StoreContext,
  owner: Owner,
  input: AppendUserTurnInput,
): Promise<AppendResult> {
  const ownerId = ownerIdOf(owner);
  assertTurnFits(input.text, undefined);
  if (input.conversationId !== undefined && !isConversationId(input.conversationId)) {
    throw new ConversationNotFoundError();
  }
  const { clientMessageId } = input;
  return commitWithVersion(context, {
    ownerId,
    ...(input.conversationId !== undefined ? { conversationId: input.conversationId } : {}),
    plan(state) {
      const now = context.now();
      const inquiryId = state?.openInquiryId ?? ulid(now.getTime());
      return planAppend(context, {
        ownerId,
        conversationId: input.conversationId ?? ulid(now.getTime()),
        state,
        title: titleFromText(input.text),
        turn: {
          role: 'user',
          kind: state?.openInquiryId ? 'option' : 'question',
          inquiryId,
          text: input.text,
          status: 'complete',
          ...(clientMessageId !== undefined ? { clientMessageId } : {}),
        },
        openInquiryIdAfter: inquiryId,
        now,
      });
    },
    ...(clientMessageId !== undefined
      ? { duplicate: () => findDuplicateTurn(context, ownerId, clientMessageId) }
      : {}),
  });
}
