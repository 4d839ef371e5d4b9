import {
  type AppendAssistantTurnInput,
  type AppendResult,
  ConversationNotFoundError,
  type Owner,
} from '../../chat/ports.js';
import { commitWithVersion } from './commit-with-version.js';
import { isConversationId, ownerIdOf } from './conversation-keys.js';
import { planAppend } from './plan-append.js';
import type { StoreContext } from './store-context.js';
import { assertTurnFits } from './turn-size-limits.js';

/**
 * Stores the assistant's answer. A closing answer clears `openInquiryId` only if it still names
 * this turn's inquiry at the version being committed — a newer inquiry opened meanwhile stays open.
 */
export async function appendAssistantTurn(
  context: StoreContext,
  owner: Owner,
  input: AppendAssistantTurnInput,
): Promise<AppendResult> {
  const ownerId = ownerIdOf(owner);
  // Round-trip through JSON: validates the size as stored and drops `undefined` fields.
  const resultJson = input.result === undefined ? undefined : JSON.stringify(input.result);
  assertTurnFits(input.text, resultJson);
  if (!isConversationId(input.conversationId)) throw new ConversationNotFoundError();
  const result = resultJson === undefined ? undefined : JSON.parse(resultJson);
  return commitWithVersion(context, {
    ownerId,
    conversationId: input.conversationId,
    plan(state) {
      const closes = input.closesInquiry && state?.openInquiryId === input.inquiryId;
      return planAppend(context, {
        ownerId,
        conversationId: input.conversationId,
        state,
        title: '',
        turn: {
          role: 'assistant',
          kind: input.kind,
          inquiryId: input.inquiryId,
          text: input.text,
          ...(result !== undefined ? { result } : {}),
          status: input.status,
          ...(input.modelId ? { modelId: input.modelId } : {}),
        },
        openInquiryIdAfter: closes ? undefined : state?.openInquiryId,
        now: context.now(),
      });
    },
  });
}
