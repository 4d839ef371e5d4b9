import type { Language } from './detect-language.js';

/** Section headings injected into the last user message, per inquiry language. */
export const promptLabels = {
  ja: {
    knowledgeBase: '## 過去チケットデータ（Knowledge Base検索結果）',
    noTickets: '（類似する過去チケットは見つかりませんでした）',
    archive: '## 過去の問い合わせ回答（参照用）',
    archiveQuestion: '問い合わせ',
    archiveFollowUp: '補足',
    archiveAnswer: '回答',
    archiveOmitted: (count: number) => `（さらに古い問い合わせ ${count} 件は省略）`,
    inquiry: '## 問い合わせ',
  },
  en: {
    knowledgeBase: '## Past tickets (Knowledge Base results)',
    noTickets: '(no similar past tickets were found)',
    archive: '## Earlier inquiries in this conversation (reference only)',
    archiveQuestion: 'Inquiry',
    archiveFollowUp: 'Follow-up',
    archiveAnswer: 'Answer',
    archiveOmitted: (count: number) => `(${count} older inquiries omitted)`,
    inquiry: '## Inquiry',
  },
} as const satisfies Record<Language, unknown>;
