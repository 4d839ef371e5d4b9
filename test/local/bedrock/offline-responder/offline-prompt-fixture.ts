import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildModelRequest } from '../../../../functions/chat/model-request.js';
import { defaultChatConfig, type RetrievedTicket } from '../../../../functions/chat/ports.js';
import { inquiryElement, ticketElement } from '../../../../functions/chat/prompt-text.js';
import { detectLanguage, type Language } from '../../../../functions/contract/language.js';
import { renderPromptMarkup } from '../../../../functions/contract/prompt-markup.js';
import { FIXTURE_TICKETS_DIR } from '../local-bedrock-fixture.js';

const ticket = (
  issueId: string,
  subject: string,
  category: string,
  score: number,
): RetrievedTicket => ({
  issueId,
  subject,
  category,
  score,
  restricted: false,
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

/** One ticket's element exactly as the chat core writes it into the Knowledge Base section. */
export function ticketBlock(retrieved: RetrievedTicket): string {
  return renderPromptMarkup([ticketElement(retrieved)]);
}

// The core never sends an empty inquiry (its history rules drop empty texts); to test how the
// responder copes with one anyway, the message is built around a placeholder that is then cut.
const EMPTY_INQUIRY_PLACEHOLDER = '(empty inquiry)';

/** The last user message as the chat core assembles it (`buildModelRequest`). */
export function userMessage(options: {
  inquiry: string;
  tickets?: readonly RetrievedTicket[];
  /** Earlier inquiries of the conversation, newest first, for the archive section. */
  archive?: readonly { question: string; advice?: string }[];
  /** @default the inquiry's language, as the chat core decides it */
  language?: Language;
}): string {
  const empty = options.inquiry === '';
  const request = buildModelRequest({
    working: [{ role: 'user', text: empty ? EMPTY_INQUIRY_PLACEHOLDER : options.inquiry }],
    archive: (options.archive ?? []).map((inquiry, index) => ({
      inquiryId: `archived-${index + 1}`,
      followUps: [],
      ...inquiry,
    })),
    tickets: options.tickets ?? [TICKET_A, TICKET_B],
    language: options.language ?? detectLanguage(options.inquiry),
    archiveBudget: defaultChatConfig.archiveBudget,
    maxTokens: defaultChatConfig.maxTokens,
  });
  const text = request.messages.at(-1)?.text ?? '';
  const placeholder = renderPromptMarkup([inquiryElement(EMPTY_INQUIRY_PLACEHOLDER)]);
  return empty ? text.replace(placeholder, renderPromptMarkup([inquiryElement('')])) : text;
}
