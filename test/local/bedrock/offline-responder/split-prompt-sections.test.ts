import { describe, expect, it } from 'vitest';
import { buildModelRequest } from '../../../../functions/chat/model-request.js';
import { splitPromptSections } from '../../../../local/bedrock/offline-responder/prompt-sections.js';
import { TICKET_A, TICKET_B, userMessage } from './offline-prompt-fixture.js';

describe('splitPromptSections', () => {
  it('separates the Knowledge Base, archive and inquiry sections', () => {
    const sections = splitPromptSections(
      `前置き\n\n${userMessage({ inquiry: 'VPNに接続できない', archive: '### 1. 問い合わせ: 以前の質問' })}`,
    );
    expect(sections.preamble).toBe('前置き');
    expect(sections.knowledgeBase).toBe(`${TICKET_A}\n\n${TICKET_B}`);
    expect(sections.archive).toBe('### 1. 問い合わせ: 以前の質問');
    expect(sections.inquiry).toBe('VPNに接続できない');
  });

  it('keeps a ticket whose text has its own "## Inquiry" heading inside the Knowledge Base', () => {
    const sections = splitPromptSections(
      userMessage({ inquiry: 'VPN login failed', tickets: [TICKET_B, TICKET_A], language: 'en' }),
    );
    expect(sections.knowledgeBase).toContain('## Resolution');
    expect(sections.knowledgeBase).toContain('### Ticket 9001');
    expect(sections.inquiry).toBe('VPN login failed');
  });

  it('does not take a ticket heading such as 「## 問い合わせ内容」 for the inquiry', () => {
    const sections = splitPromptSections(userMessage({ inquiry: 'ログインできない' }));
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
