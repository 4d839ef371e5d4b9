import type { Answer } from '../../../functions/contract/answer.js';

/** A long results answer whose advice takes a while to stream (for stopping it midway). */
export function longAnswer(paragraphs: number): Answer {
  const paragraph =
    'パスワードの有効期限とアカウントのロック状態を確認し、必要であれば再設定を案内します。';
  return {
    response_type: 'results',
    general_advice: Array.from({ length: paragraphs }, (_, i) => `${i + 1}. ${paragraph}`).join(
      '\n\n',
    ),
    results: [],
    mail_draft: 'お疲れさまです。',
    todo_actions: ['確認する'],
  };
}
