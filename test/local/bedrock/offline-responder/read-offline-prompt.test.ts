import { describe, expect, it } from 'vitest';
import type { Language } from '../../../../functions/chat/inquiry-rules.js';
import { buildModelRequest } from '../../../../functions/chat/model-request.js';
import type { RetrievedTicket } from '../../../../functions/chat/ports.js';
import { formatTicketBlock, promptLabels } from '../../../../functions/chat/prompt-text.js';
import {
  parseKbTicketBlocks,
  splitPromptSections,
} from '../../../../local/bedrock/offline-responder/read-offline-prompt.js';
import { TICKET_A, TICKET_B, ticketBlock, userMessage } from './offline-prompt-fixture.js';

// The core demotes a ticket's own headings (`## Inquiry` → `#### Inquiry`); a hand-written
// prompt may not, and the section splitter must not depend on it.
const withRawTicketHeadings = (
  inquiry: string,
  tickets: readonly RetrievedTicket[],
  language: Language = 'ja',
) =>
  [
    promptLabels[language].knowledgeBase,
    ...tickets.map(formatTicketBlock),
    `${promptLabels[language].inquiry}\n${inquiry}`,
  ].join('\n\n');

describe('splitPromptSections', () => {
  it('separates the Knowledge Base, archive and inquiry sections', () => {
    const sections = splitPromptSections(
      `前置き\n\n${userMessage({ inquiry: 'VPNに接続できない', archive: [{ question: '以前の質問' }] })}`,
    );
    expect(sections.preamble).toBe('前置き');
    expect(sections.knowledgeBase).toBe(`${ticketBlock(TICKET_A)}\n\n${ticketBlock(TICKET_B)}`);
    expect(sections.archive).toBe('### 1. 問い合わせ: 以前の質問');
    expect(sections.inquiry).toBe('VPNに接続できない');
  });

  it('keeps a ticket whose text has its own "## Inquiry" heading inside the Knowledge Base', () => {
    const sections = splitPromptSections(
      withRawTicketHeadings('VPN login failed', [TICKET_B, TICKET_A], 'en'),
    );
    expect(sections.knowledgeBase).toContain('## Resolution');
    expect(sections.knowledgeBase).toContain('### Ticket 9001');
    expect(sections.inquiry).toBe('VPN login failed');
  });

  it('does not take a ticket heading such as 「## 問い合わせ内容」 for the inquiry', () => {
    const sections = splitPromptSections(
      withRawTicketHeadings('ログインできない', [TICKET_A, TICKET_B]),
    );
    expect(sections.knowledgeBase).toContain('## 問い合わせ内容');
    expect(sections.inquiry).toBe('ログインできない');
  });

  it('reads a real model request whose archive is shrunk and ends with the most recent inquiry', () => {
    const archive = Array.from({ length: 12 }, (_, index) => ({
      inquiryId: `I${12 - index}`,
      question: `質問${12 - index}`,
      followUps: [],
      advice: '回答'.repeat(150),
    }));
    const request = buildModelRequest({
      working: [{ role: 'user', text: 'さっきの件の続きです' }],
      archive,
      tickets: [
        { issueId: '9001', subject: 'Salesforce', restricted: false, text: '本文', score: 0.8 },
      ],
      language: 'ja',
      archiveBudget: 800,
      maxTokens: 1000,
    });
    const sections = splitPromptSections(request.messages.at(-1)?.text ?? '');
    expect(sections.knowledgeBase).toContain('### Ticket 9001: Salesforce');
    expect(sections.archive).toMatch(/^（さらに古い問い合わせ \d+ 件は省略）\n### /);
    expect(sections.archive).toMatch(/### 12\. 問い合わせ: 質問12\n回答: [^\n]+$/);
    expect(sections.inquiry).toBe('さっきの件の続きです');
  });

  it('treats a message without sections as preamble only', () => {
    expect(splitPromptSections('ただの質問です')).toEqual({
      preamble: 'ただの質問です',
      knowledgeBase: undefined,
      archive: undefined,
      inquiry: undefined,
    });
  });
});

describe('parseKbTicketBlocks', () => {
  it("reads back what the chat core's formatTicketBlock writes", () => {
    const tickets = [
      {
        issueId: '1234',
        subject: 'SalesforceにSSOでログインできない',
        category: 'Salesforce',
        score: 0.83,
        text: '# 見出し\n\n## 問い合わせ内容\n\n本文',
      },
      { issueId: '77', subject: 'Printer offline', text: 'issue: not a field line\nmore' },
    ];
    const section = tickets.map(formatTicketBlock).join('\n\n');
    expect(parseKbTicketBlocks(section)).toEqual([
      { ...tickets[0], status: undefined, createdAt: undefined },
      {
        ...tickets[1],
        category: undefined,
        status: undefined,
        createdAt: undefined,
        score: undefined,
      },
    ]);
  });

  it('reads every ticket of the Knowledge Base section the chat core assembles', () => {
    for (const language of ['ja', 'en'] as const) {
      const section = splitPromptSections(userMessage({ inquiry: 'VPN', language })).knowledgeBase;
      expect(
        parseKbTicketBlocks(section ?? '').map(({ issueId, subject, category, score }) => ({
          issueId,
          subject,
          category,
          score,
        })),
      ).toEqual(
        [TICKET_A, TICKET_B].map(({ issueId, subject, category, score }) => ({
          issueId,
          subject,
          category,
          score,
        })),
      );
    }
  });

  it('accepts optional fields in any order, a blank line before the text and CRLF', () => {
    const section =
      'note\r\n### Ticket 42: From heading\r\nscore: 0.5\r\nsubject: From field\r\nissue_id: 42\r\nstatus: resolved\r\n\r\nBody';
    expect(parseKbTicketBlocks(section)).toEqual([
      {
        issueId: '42',
        subject: 'From field',
        category: undefined,
        status: 'resolved',
        createdAt: undefined,
        score: 0.5,
        text: 'Body',
      },
    ]);
  });

  it('finds no tickets in a "nothing found" note', () => {
    expect(parseKbTicketBlocks(promptLabels.ja.noTickets)).toEqual([]);
  });
});
