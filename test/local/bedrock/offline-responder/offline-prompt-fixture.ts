import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatKbTicketBlock } from '../../../../local/bedrock/offline-responder/kb-ticket-block.js';
import { PROMPT_SECTION_HEADINGS } from '../../../../local/bedrock/offline-responder/prompt-sections.js';
import { FIXTURE_TICKETS_DIR } from '../local-bedrock-fixture.js';

const ticket = (issueId: string, subject: string, category: string, score: number) =>
  formatKbTicketBlock({
    issueId,
    subject,
    category,
    score,
    text: readFileSync(join(FIXTURE_TICKETS_DIR, `${issueId}.md`), 'utf8'),
  });

/** Ticket A: Japanese, Salesforce. */
export const TICKET_A = ticket(
  '9001',
  'Salesforceにログインできない（パスワードエラー）',
  'Salesforce',
  0.82,
);
/** Ticket B: English, VPN, whose text has its own `## Inquiry` heading. */
export const TICKET_B = ticket('9004', 'Cannot log in to VPN (Login failed)', 'VPN', 0.74);

/** The last user message as the chat function assembles it. */
export function userMessage(options: {
  inquiry: string;
  tickets?: readonly string[];
  archive?: string;
  language?: 'ja' | 'en';
}): string {
  const language = options.language ?? 'ja';
  const tickets = options.tickets ?? [TICKET_A, TICKET_B];
  const knowledgeBase =
    tickets.length === 0
      ? `${PROMPT_SECTION_HEADINGS.knowledgeBase[language]}\n（類似する過去チケットは見つかりませんでした）`
      : [PROMPT_SECTION_HEADINGS.knowledgeBase[language], ...tickets].join('\n\n');
  return [
    knowledgeBase,
    ...(options.archive
      ? [`${PROMPT_SECTION_HEADINGS.archive[language]}\n${options.archive}`]
      : []),
    `${PROMPT_SECTION_HEADINGS.inquiry[language]}\n${options.inquiry}`,
  ].join('\n\n');
}
