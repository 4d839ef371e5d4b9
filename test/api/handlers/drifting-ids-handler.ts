import { createHandler } from '../../../functions/api/create-handler.js';
import { readFunctionConfig } from '../../../functions/api/function-config.js';
import type { RetrievedTicket, Retriever } from '../../../functions/chat/ports.js';

const ticket = (issueId: string, restricted = false): RetrievedTicket => ({
  issueId,
  subject: `チケット ${issueId}`,
  category: 'VPN',
  restricted,
  text: `${issueId} の解決手順`,
  score: 0.9,
});

/** Four open tickets, and a restricted one leaked past the filter (removed after retrieval). */
const retriever: Retriever = {
  search: async () =>
    ['12345', '12346', '12347', '12348'].map((id) => ticket(id)).concat(ticket('1015', true)),
  fetchByIssueIds: async () => [],
};

/** The API handler with a fixed retriever, bundled and run like the real one (chat-ticket-ids). */
export const handler = createHandler(readFunctionConfig(process.env), { retriever });
