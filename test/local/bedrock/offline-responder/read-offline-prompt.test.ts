import { describe, expect, it } from 'vitest';
import { buildModelRequest } from '../../../../functions/chat/model-request.js';
import { ticketContextElement } from '../../../../functions/chat/prompt-text.js';
import { renderPromptMarkup } from '../../../../functions/contract/prompt-markup.js';
import {
  type KbTicketBlock,
  readPromptMessage,
} from '../../../../local/bedrock/offline-responder/read-offline-prompt.js';
import { TICKET_A, TICKET_B, userMessage } from './offline-prompt-fixture.js';

const fields = ({ issueId, subject, category, score }: KbTicketBlock) => ({
  issueId,
  subject,
  category,
  score,
});

describe('readPromptMessage', () => {
  it('separates the Knowledge Base, archive and inquiry sections', () => {
    const message = readPromptMessage(
      userMessage({ inquiry: 'VPNに接続できない', archive: [{ question: '以前の質問' }] }),
    );
    expect(message.tickets?.map(fields)).toEqual([fields(TICKET_A), fields(TICKET_B)]);
    expect(message.tickets?.map((ticket) => ticket.text)).toEqual([
      TICKET_A.text.trim(),
      TICKET_B.text.trim(),
    ]);
    expect(message.archive).toEqual([{ number: 1, question: '以前の質問' }]);
    expect(message.inquiry).toBe('VPNに接続できない');
  });

  it('keeps a ticket whose text has its own "## Inquiry" heading inside its element', () => {
    const message = readPromptMessage(
      userMessage({ inquiry: 'VPN login failed', tickets: [TICKET_B, TICKET_A], language: 'en' }),
    );
    expect(message.tickets?.[0]?.text).toContain('\n## Inquiry\n');
    expect(message.tickets?.[0]?.text).toContain('## Resolution');
    expect(message.inquiry).toBe('VPN login failed');
  });

  it('does not take a ticket heading such as 「## 問い合わせ内容」 for the inquiry', () => {
    const message = readPromptMessage(userMessage({ inquiry: 'ログインできない' }));
    expect(message.tickets?.[0]?.text).toContain('## 問い合わせ内容');
    expect(message.inquiry).toBe('ログインできない');
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
      archiveBudget: 1200,
      maxTokens: 1000,
    });
    const message = readPromptMessage(request.messages.at(-1)?.text ?? '');
    expect(message.tickets).toEqual([
      { issueId: '9001', subject: 'Salesforce', category: undefined, score: 0.8, text: '本文' },
    ]);
    const entries = message.archive ?? [];
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.length).toBeLessThan(12);
    expect(entries.at(-1)).toMatchObject({ number: 12, question: '質問12' });
    expect(entries.at(-1)?.answer).toBe('回答'.repeat(150));
    expect(message.inquiry).toBe('さっきの件の続きです');
  });

  it('treats a message without markup, or with text that is not markup, as its inquiry', () => {
    expect(readPromptMessage('ただの質問です')).toEqual({ inquiry: 'ただの質問です' });
    expect(readPromptMessage('a < b & <inquiry>c')).toEqual({ inquiry: 'a < b & <inquiry>c' });
  });

  it('finds no tickets in a "nothing found" note', () => {
    const markup = renderPromptMarkup([ticketContextElement([], 'ja')]);
    expect(markup).toContain('見つかりませんでした');
    expect(readPromptMessage(markup).tickets).toEqual([]);
  });
});
