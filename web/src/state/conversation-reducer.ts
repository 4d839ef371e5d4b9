import { applyChatEvent } from './apply-chat-event.js';
import type { AssistantBubble, Bubble, ChatSend, ConversationView } from './bubble.js';
import type { ConversationAction } from './conversation-action.js';
import { rebuildFromTurns } from './rebuild-from-turns.js';

/**
 * Pure reducer: one conversation's view state from user actions and SSE events.
 * Events are routed by request id, so a late event of an old request can never land in a newer
 * bubble, and unchanged bubbles keep their identity (React.memo skips them per token).
 */
export function conversationReducer(
  view: ConversationView,
  action: ConversationAction,
): ConversationView {
  switch (action.type) {
    case 'send':
      return sendMessage(view, action.requestId, action);
    case 'event': {
      const next = updateAssistant(view, action.requestId, (bubble) =>
        applyChatEvent(bubble, action.event),
      );
      if (action.event.event === 'meta') {
        const { conversationId, inquiryId, version, userSeq } = action.event.data;
        return {
          ...next,
          conversationId,
          version,
          bubbles: tagUser(next, action.requestId, inquiryId, userSeq),
        };
      }
      if (action.event.event === 'result') {
        return { ...next, version: action.event.data.version, activeRequestId: undefined };
      }
      return action.event.event === 'error' ? { ...next, activeRequestId: undefined } : next;
    }
    case 'request_failed':
      return {
        ...updateAssistant(view, action.requestId, (bubble) => ({
          ...bubble,
          status: 'failed',
          error: action.error,
        })),
        activeRequestId: undefined,
      };
    case 'stream_ended':
      return {
        ...updateAssistant(view, action.requestId, (bubble) =>
          bubble.status !== 'streaming'
            ? bubble
            : action.stopped
              ? { ...bubble, status: 'stopped' }
              : {
                  ...bubble,
                  status: 'failed',
                  error: { code: 'stream_cut', message: '', retryable: true },
                },
        ),
        activeRequestId: undefined,
      };
    case 'history':
      // Never let a stored snapshot overwrite a stream that is still arriving.
      return view.activeRequestId ? view : rebuildFromTurns(action.detail);
    case 'renamed':
      return { ...view, title: action.title };
    case 'published': {
      const known = view.knowledge ?? [];
      if (known.some((entry) => entry.inquiryId === action.knowledge.inquiryId)) return view;
      return { ...view, knowledge: [...known, action.knowledge] };
    }
    case 'feedback': {
      const index = view.bubbles.findIndex((b) => b.kind === 'assistant' && b.seq === action.seq);
      const bubble = view.bubbles[index];
      if (bubble?.kind !== 'assistant') return view;
      const bubbles = view.bubbles.slice();
      bubbles[index] = { ...bubble, feedback: action.feedback };
      // Never move backwards: a stream or a reload may already know a later version.
      return { ...view, bubbles, version: Math.max(view.version ?? 0, action.version) };
    }
  }
}

function sendMessage(view: ConversationView, requestId: string, sent: ChatSend): ConversationView {
  const { message, clientMessageId, supersedes, attachments } = sent;
  const assistant: AssistantBubble = {
    kind: 'assistant',
    id: requestId,
    status: 'streaming',
    steps: [],
    text: '',
    tickets: [],
    request: {
      message,
      clientMessageId,
      ...(supersedes !== undefined ? { supersedes } : {}),
      ...(attachments !== undefined ? { attachments } : {}),
    },
  };
  // A retry keeps the user's bubble (the server de-duplicates the turn) and replaces the failed answer.
  const retried = view.bubbles.findIndex(
    (b) => b.kind === 'user' && b.clientMessageId === clientMessageId,
  );
  const kept =
    retried >= 0
      ? view.bubbles.slice(0, retried + 1)
      : [
          ...view.bubbles,
          {
            kind: 'user' as const,
            id: `user-${requestId}`,
            text: message,
            clientMessageId,
            ...(supersedes !== undefined ? { supersedes } : {}),
            ...(attachments?.length ? { attachments } : {}),
          },
        ];
  return { ...view, bubbles: [...kept, assistant], activeRequestId: requestId };
}

function updateAssistant(
  view: ConversationView,
  requestId: string,
  update: (bubble: AssistantBubble) => AssistantBubble,
): ConversationView {
  const index = view.bubbles.findIndex((b) => b.kind === 'assistant' && b.id === requestId);
  const bubble = view.bubbles[index];
  if (bubble?.kind !== 'assistant') return view;
  const bubbles = view.bubbles.slice();
  bubbles[index] = update(bubble);
  return { ...view, bubbles };
}

/**
 * The user bubble of a request learns its inquiry (boundaries are drawn from it) and its stored
 * seq (what an edit of it supersedes) from `meta`.
 */
function tagUser(
  view: ConversationView,
  requestId: string,
  inquiryId: string,
  seq: number | undefined,
): Bubble[] {
  const answerIndex = view.bubbles.findIndex((b) => b.kind === 'assistant' && b.id === requestId);
  const userIndex = answerIndex - 1;
  const user = view.bubbles[userIndex];
  if (user?.kind !== 'user' || (user.inquiryId === inquiryId && user.seq === seq)) {
    return [...view.bubbles];
  }
  const bubbles = view.bubbles.slice();
  bubbles[userIndex] = { ...user, inquiryId, ...(seq !== undefined ? { seq } : {}) };
  return bubbles;
}
