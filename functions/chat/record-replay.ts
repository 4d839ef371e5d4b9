import type { ChatEvent } from '../contract/chat-events.js';
import type { GenerationOutcome } from './generate.js';
import {
  type ConversationStore,
  type ConversationWithTurns,
  StoreUnavailableError,
  type Turn,
} from './ports.js';
import type { BegunChat } from './run-chat.js';

/**
 * The end of a chat: recording the assistant turn and sending the final event, or replaying an
 * answer already stored for a retried message.
 */

/**
 * Stores the assistant turn — whatever happened, so a reload shows what staff saw — then ends the
 * stream: `result` on success (carrying the version after the write) or one `error` event.
 * Only a complete clarification keeps the inquiry open (the store applies the inquiry rules).
 */
export async function recordAnswer(
  begun: BegunChat,
  outcome: GenerationOutcome,
  store: ConversationStore,
  send: (event: ChatEvent) => void,
  modelId: string,
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
      modelId,
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
      data:
        outcome.failure ??
        (error instanceof StoreUnavailableError
          ? storeUnavailableFailure
          : {
              code: 'save_failed',
              message: 'The answer could not be saved. Please try again.',
              retryable: true,
            }),
    });
  }
}

/** The `error` event of a stream whose store became unreachable after the first byte. */
export const storeUnavailableFailure = {
  code: 'store_unavailable',
  message: 'The conversation store is temporarily unavailable. Please try again shortly.',
  retryable: true,
} as const;

/**
 * A retried POST (same clientMessageId) whose answer was already stored gets that answer again
 * instead of a second generation. Returns false when there is nothing final to replay.
 */
export function replayStoredAnswer(
  loaded: ConversationWithTurns,
  userTurn: Turn,
  send: (event: ChatEvent) => void,
): boolean {
  // The latest final answer of this inquiry after the retried turn: an earlier attempt may have
  // failed before a later one succeeded.
  const answer = loaded.turns
    .filter(
      (turn) =>
        turn.seq > userTurn.seq &&
        turn.role === 'assistant' &&
        turn.inquiryId === userTurn.inquiryId &&
        turn.result !== undefined &&
        FINAL.has(turn.status),
    )
    .at(-1);
  const result = answer?.result;
  if (!answer || !result) return false;
  if (result.general_advice) send({ event: 'token', data: { content: result.general_advice } });
  for (const ticket of result.results ?? []) send({ event: 'ticket', data: ticket });
  const { conversationId, version } = loaded.conversation;
  send({
    event: 'result',
    data: {
      ...result,
      conversationId,
      version,
      status: answer.status as 'complete' | 'truncated' | 'stopped',
    },
  });
  return true;
}

const FINAL = new Set<Turn['status']>(['complete', 'truncated', 'stopped']);
