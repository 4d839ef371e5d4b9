import type { ChatEvent } from '../stream/chat-events.js';
import type { ConversationWithTurns, Turn } from './conversation-store.js';

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
