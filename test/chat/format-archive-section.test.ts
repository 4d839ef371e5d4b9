import { describe, expect, it } from 'vitest';
import type { ArchivedInquiry } from '../../functions/chat/inquiry-rules.js';
import { archiveElement } from '../../functions/chat/prompt-text.js';
import { renderPromptMarkup } from '../../functions/contract/prompt-markup.js';
import { readPromptMessage } from '../../local/bedrock/offline-responder/read-offline-prompt.js';

const inquiry = (index: number, advice = 'A'.repeat(1000)): ArchivedInquiry => ({
  inquiryId: `I${index}`,
  question: `質問${index}`,
  followUps: [],
  advice,
});

/** The archive section as markup, and as the offline responder reads it back. */
function archiveSection(archive: readonly ArchivedInquiry[], budget: number) {
  const element = archiveElement(archive, 'ja', budget);
  const markup = element ? renderPromptMarkup([element]) : '';
  return { element, markup, entries: readPromptMessage(markup).archive ?? [] };
}

describe('archiveElement', () => {
  it('is absent without an archive', () => {
    expect(archiveElement([], 'ja', 3000)).toBeUndefined();
  });

  it('cuts each advice to 400 characters on one line', () => {
    const { entries } = archiveSection([inquiry(1, `## 見出し\n${'あ'.repeat(500)}`)], 3000);
    expect(entries).toHaveLength(1);
    const answer = entries[0]?.answer ?? '';
    expect(Array.from(answer)).toHaveLength(401);
    expect(answer.startsWith('## 見出し あ')).toBe(true);
    expect(answer.endsWith('…')).toBe(true);
  });

  it('lists closed inquiries oldest first, so the most recent one comes last', () => {
    // splitInquiries gives the archive newest first.
    const archive = [inquiry(3, '最新の回答'), inquiry(2, '前回の回答'), inquiry(1, '最初の回答')];
    expect(archiveSection(archive, 3000).entries).toEqual([
      { number: 1, question: '質問1', answer: '最初の回答' },
      { number: 2, question: '質問2', answer: '前回の回答' },
      { number: 3, question: '質問3', answer: '最新の回答' },
    ]);
  });

  it('shrinks and drops from the oldest end within the budget, keeping the newest whole and last', () => {
    // Newest first: 質問30 is the most recent closed inquiry.
    const archive = Array.from({ length: 30 }, (_, index) => inquiry(30 - index));
    const { element, markup, entries } = archiveSection(archive, 1500);
    expect(markup.length).toBeLessThanOrEqual(1500 + 40);
    const omitted = /^（さらに古い問い合わせ (\d+) 件は省略）$/.exec(String(element?.children[0]));
    expect(omitted).not.toBeNull();
    // The oldest were dropped, the rest keep their numbers and run up to the newest.
    expect(entries.length + Number(omitted?.[1])).toBe(30);
    expect(entries[0]).toMatchObject({
      number: Number(omitted?.[1]) + 1,
      question: `質問${Number(omitted?.[1]) + 1}`,
    });
    expect(entries.at(-1)).toMatchObject({ number: 30, question: '質問30' });
    expect(entries.at(-1)?.answer).toBeDefined();
    // The shrunk (question-only) entries are older than every whole one.
    const firstWhole = entries.findIndex((entry) => entry.answer !== undefined);
    expect(firstWhole).toBeGreaterThan(0);
    expect(entries.slice(0, firstWhole).every((entry) => entry.answer === undefined)).toBe(true);
    expect(entries.slice(firstWhole).every((entry) => entry.answer !== undefined)).toBe(true);
  });
});
