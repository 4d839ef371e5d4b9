import type { ChatEvent } from '../stream/chat-events.js';
import type { BegunChat } from './begin-chat.js';
import type { ConversationStore } from './conversation-store.js';
import type { GenerationOutcome } from './generate-answer.js';

/**
 * Stores the assistant turn — whatever happened, so a reload shows what staff saw — then ends the
 * stream: `result` on success (carrying the version after the write) or one `error` event.
 * A `results` answer closes the inquiry; a clarification, a failure or a stop keeps it open.
 */
export async function recordAnswer(
  begun: BegunChat,
  outcome: GenerationOutcome,
  store: ConversationStore,
  send: (event: ChatEvent) => void,
  offline: boolean,
): Promise<void> {
  const { answer, status } = outcome;
  const isResults = answer.response_type === 'results';
  try {
    const saved = await store.appendAssistantTurn(begun.owner, {
      conversationId: begun.conversation.conversationId,
      inquiryId: begun.turn.inquiryId,
      kind: isResults ? 'answer' : 'clarification',
      text: answer.general_advice || answer.question || '',
      result: answer,
      status,
      closesInquiry: isResults && (status === 'complete' || status === 'truncated'),
      offline,
    });
    if (status === 'failed') {
      send({
        event: 'error',
        data: outcome.failure ?? {
          code: 'internal',
          message: 'The answer failed.',
          retryable: true,
        },
      });
      return;
    }
    send({
      event: 'result',
      data: {
        ...answer,
        conversationId: begun.conversation.conversationId,
        version: saved.conversation.version,
        status,
      },
    });
  } catch (error) {
    console.error('could not record the assistant turn', error);
    send({
      event: 'error',
      data: outcome.failure ?? {
        code: 'save_failed',
        message: 'The answer could not be saved. Please try again.',
        retryable: true,
      },
    });
  }
}
