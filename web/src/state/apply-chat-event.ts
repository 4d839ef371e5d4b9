import type { ChatEvent } from '../../../functions/contract/chat-events.js';
import type { AssistantBubble } from './bubble.js';

/**
 * Folds one SSE event into the assistant bubble it belongs to. Returns the same object when the
 * event changes nothing visible, so memoised components do not re-render.
 */
export function applyChatEvent(bubble: AssistantBubble, event: ChatEvent): AssistantBubble {
  // A finished bubble is final: a duplicate or late event must not reopen it.
  if (bubble.status !== 'streaming') return bubble;
  switch (event.event) {
    case 'meta':
      return { ...bubble, inquiryId: event.data.inquiryId, modelId: event.data.modelId };
    case 'progress':
      return bubble.steps.includes(event.data.step)
        ? bubble
        : { ...bubble, steps: [...bubble.steps, event.data.step] };
    case 'kb_query':
      return { ...bubble, kbQuery: event.data.query };
    case 'kb_chunks':
      return { ...bubble, kbChunks: event.data.chunks };
    case 'token':
      return event.data.content === ''
        ? bubble
        : { ...bubble, text: bubble.text + event.data.content };
    case 'ticket':
      return { ...bubble, tickets: [...bubble.tickets, event.data] };
    case 'result': {
      const { conversationId: _c, version: _v, seq, status, ...answer } = event.data;
      return {
        ...bubble,
        status,
        seq,
        // The streamed text is what the user has been reading; keep it unless the result adds to it.
        text:
          answer.general_advice.length >= bubble.text.length ? answer.general_advice : bubble.text,
        // The validated list is authoritative (ungrounded tickets are dropped server-side).
        tickets: answer.results ?? bubble.tickets,
        result: answer,
      };
    }
    case 'surge':
      return { ...bubble, surge: event.data };
    case 'known_issue':
      return bubble.knownIssues?.some((issue) => issue.id === event.data.id)
        ? bubble
        : { ...bubble, knownIssues: [...(bubble.knownIssues ?? []), event.data] };
    case 'error':
      return {
        ...bubble,
        // A cut-off answer ends with a `truncated` result, never an error: an error always fails.
        status: 'failed',
        error: event.data,
      };
  }
}
