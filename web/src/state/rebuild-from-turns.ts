import type { ConversationDetail, Turn } from '../../../functions/contract/conversations.js';
import type { AssistantBubble, Bubble, ConversationView } from './bubble.js';

/**
 * Rebuilds the view of a stored conversation from `GET /conversations/{id}`, so a reload or a
 * second device shows the same bubbles the live stream did.
 */
export function rebuildFromTurns(detail: ConversationDetail): ConversationView {
  const bubbles: Bubble[] = [];
  let lastUser: Turn | undefined;
  for (const turn of detail.turns) {
    if (turn.role === 'user') {
      lastUser = turn;
      bubbles.push({
        kind: 'user',
        id: `turn-${turn.seq}`,
        text: turn.text,
        inquiryId: turn.inquiryId,
        clientMessageId: turn.clientMessageId,
        seq: turn.seq,
        ...(turn.supersedes !== undefined ? { supersedes: turn.supersedes } : {}),
        ...(turn.attachments?.length ? { attachments: turn.attachments } : {}),
      });
      continue;
    }
    bubbles.push(assistantFromTurn(turn, lastUser));
  }
  // An answer being generated elsewhere: a placeholder the next snapshot replaces.
  const { answering } = detail;
  if (answering && lastUser?.seq === answering.seq) {
    bubbles.push({
      kind: 'assistant',
      id: `answering-${answering.seq}`,
      inquiryId: lastUser.inquiryId,
      status: 'streaming',
      steps: [],
      text: '',
      tickets: [],
      inFlightUntil: answering.until,
    });
  }
  return {
    conversationId: detail.conversationId,
    title: detail.title,
    version: detail.version,
    bubbles,
    ...(detail.knowledge ? { knowledge: detail.knowledge } : {}),
  };
}

function assistantFromTurn(turn: Turn, lastUser: Turn | undefined): AssistantBubble {
  const failed = turn.status === 'failed';
  return {
    kind: 'assistant',
    id: `turn-${turn.seq}`,
    inquiryId: turn.inquiryId,
    status: turn.status,
    steps: [],
    // The stored text is the advice; fall back to the result's copy for older turns.
    text: turn.text || turn.result?.general_advice || '',
    tickets: turn.result?.results ?? [],
    result: turn.result,
    error: failed ? { code: 'stored_failure', message: '', retryable: true } : undefined,
    modelId: turn.modelId,
    seq: turn.seq,
    feedback: turn.feedback,
    mailDraftVersions: turn.mailDraftVersions,
    ...noticesOf(turn),
    // Retry re-uses the stored id only when the server tells us it; a fresh id would duplicate.
    request:
      lastUser?.clientMessageId !== undefined
        ? {
            message: lastUser.text,
            clientMessageId: lastUser.clientMessageId,
            ...(lastUser.supersedes !== undefined ? { supersedes: lastUser.supersedes } : {}),
            ...(lastUser.attachments?.length ? { attachments: lastUser.attachments } : {}),
          }
        : undefined,
  };
}

/** The notices the answer's stream showed, stored with it (ADR 0033): the same banners again. */
function noticesOf(
  turn: Turn,
): Pick<AssistantBubble, 'surge' | 'knownIssues' | 'noticesFromHistory'> {
  const { surge, knownIssues } = turn.notices ?? {};
  if (!surge && !knownIssues?.length) return {};
  return {
    ...(surge ? { surge } : {}),
    ...(knownIssues?.length ? { knownIssues } : {}),
    noticesFromHistory: true,
  };
}
