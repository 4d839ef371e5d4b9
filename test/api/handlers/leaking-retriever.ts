import type { RetrievedTicket, Retriever } from '../../../functions/chat/ports.js';
import { ALL_DESK } from '../../../functions/contract/desks.js';

export const openTicket: RetrievedTicket = {
  issueId: '1001',
  subject: 'Salesforceにログインできない',
  category: 'Salesforce',
  restricted: false,
  desk: ALL_DESK,
  text: 'パスワードのロックを解除して解決。',
  score: 0.9,
};

export const restrictedTicket: RetrievedTicket = {
  issueId: '1015',
  subject: '役員PCの調査（閲覧制限）',
  category: 'Security',
  restricted: true,
  text: 'SECRET-INVESTIGATION の詳細',
  score: 0.95,
};

/** A retriever that ignores its filter and leaks a restricted ticket, as a misconfigured KB might. */
export const leakingRetriever: Retriever = {
  search: async () => [restrictedTicket, openTicket],
  fetchByIssueIds: async () => [restrictedTicket],
};
