import type { Answer } from '../../../functions/contract/answer.js';
import type { ChatEvent } from '../../../functions/contract/chat-events.js';
import type { Turn } from '../../../functions/contract/conversations.js';

/** Builders for reducer tests: realistic events without repeating every field. */
export const ticket1 = {
  issue_id: '1001',
  subject: 'プリンター設置',
  summary: '新しいプリンターの設置依頼',
  resolution: '設置手順書を送付',
};
export const ticket2 = { ...ticket1, issue_id: '1002', subject: 'ドライバー' };

export const answer: Answer = {
  response_type: 'results',
  general_advice: 'まず再起動してください。',
  results: [ticket1, ticket2],
  mail_draft: 'お疲れさまです。',
  todo_actions: ['再起動を依頼'],
};

export const meta = (inquiryId = 'inq-1', conversationId = 'C1'): ChatEvent => ({
  event: 'meta',
  data: { conversationId, inquiryId, version: 1, modelId: 'offline.service-desk-responder' },
});
export const token = (content: string): ChatEvent => ({ event: 'token', data: { content } });
export const ticket = (data = ticket1): ChatEvent => ({ event: 'ticket', data });
export const result = (
  data: Partial<Answer> = {},
  status: 'complete' | 'truncated' | 'stopped' = 'complete',
): ChatEvent => ({
  event: 'result',
  data: { ...answer, ...data, conversationId: 'C1', version: 3, seq: 2, status },
});

/** A stored turn as `GET /conversations/{id}` returns it: a user question of `inq-1` by default. */
export const storedTurn = (seq: number, fields: Partial<Turn>): Turn => ({
  seq,
  role: 'user',
  kind: 'question',
  inquiryId: 'inq-1',
  text: '',
  status: 'complete',
  createdAt: '2026-11-30T10:00:00Z',
  ...fields,
});
