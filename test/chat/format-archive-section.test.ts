import { describe, expect, it } from 'vitest';
import type { ArchivedInquiry } from '../../functions/chat/inquiry-rules.js';
import { formatArchiveSection } from '../../functions/chat/prompt-text.js';

const inquiry = (index: number, advice = 'A'.repeat(1000)): ArchivedInquiry => ({
  inquiryId: `I${index}`,
  question: `質問${index}`,
  followUps: [],
  advice,
});

describe('formatArchiveSection', () => {
  it('is empty without an archive', () => {
    expect(formatArchiveSection([], 'ja', 3000)).toBe('');
  });

  it('cuts each advice to 400 characters on one line', () => {
    const text = formatArchiveSection([inquiry(1, `## 見出し\n${'あ'.repeat(500)}`)], 'ja', 3000);
    const answer = text.split('\n').find((line) => line.startsWith('回答: ')) ?? '';
    expect(Array.from(answer.slice('回答: '.length))).toHaveLength(401);
    expect(answer.endsWith('…')).toBe(true);
    expect(text.split('\n')).toHaveLength(3);
  });

  it('lists closed inquiries oldest first, so the most recent one comes last', () => {
    // splitInquiries gives the archive newest first.
    const archive = [inquiry(3, '最新の回答'), inquiry(2, '前回の回答'), inquiry(1, '最初の回答')];
    expect(formatArchiveSection(archive, 'ja', 3000).split('\n')).toEqual([
      '## 過去の問い合わせ回答（参照用）',
      '### 1. 問い合わせ: 質問1',
      '回答: 最初の回答',
      '### 2. 問い合わせ: 質問2',
      '回答: 前回の回答',
      '### 3. 問い合わせ: 質問3',
      '回答: 最新の回答',
    ]);
  });

  it('shrinks and drops from the oldest end within the budget, keeping the newest whole and last', () => {
    // Newest first: 質問30 is the most recent closed inquiry.
    const archive = Array.from({ length: 30 }, (_, index) => inquiry(30 - index));
    const text = formatArchiveSection(archive, 'ja', 1000);
    expect(text.length).toBeLessThanOrEqual(1000 + 40);
    const lines = text.split('\n');
    const omitted = /^（さらに古い問い合わせ (\d+) 件は省略）$/.exec(lines[1] ?? '');
    expect(omitted).not.toBeNull();
    const questions = lines.filter((line) => line.startsWith('### '));
    // The oldest were dropped, the rest keep their numbers and run up to the newest.
    expect(questions.length + Number(omitted?.[1])).toBe(30);
    expect(questions[0]).toBe(
      `### ${Number(omitted?.[1]) + 1}. 問い合わせ: 質問${Number(omitted?.[1]) + 1}`,
    );
    expect(lines.at(-2)).toBe('### 30. 問い合わせ: 質問30');
    expect(lines.at(-1)?.startsWith('回答: ')).toBe(true);
    // The shrunk (question-only) entries are older than every whole one.
    const firstWhole = lines.findIndex((line) => line.startsWith('回答: ')) - 1;
    expect(lines.slice(2, firstWhole).every((line) => line.startsWith('### '))).toBe(true);
    expect(firstWhole).toBeGreaterThan(2);
    expect(lines.slice(firstWhole).filter((line) => line.startsWith('回答: ')).length).toBe(
      lines.slice(firstWhole).filter((line) => line.startsWith('### ')).length,
    );
  });
});
