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

  it('shrinks older inquiries to their question and drops the oldest with a count, within the budget', () => {
    const archive = Array.from({ length: 30 }, (_, index) => inquiry(index + 1));
    const text = formatArchiveSection(archive, 'ja', 1000);
    expect(text.length).toBeLessThanOrEqual(1000 + 40);
    const lines = text.split('\n');
    expect(lines[1]).toBe('### 1. 問い合わせ: 質問1');
    expect(lines[2]?.startsWith('回答: ')).toBe(true);
    expect(lines).toContain('### 3. 問い合わせ: 質問3');
    expect(lines.at(-1)).toMatch(/^（さらに古い問い合わせ \d+ 件は省略）$/);
    // Once shrunk, no older entry shows its answer again.
    const firstQuestionOnly = lines.findIndex(
      (line, index) => line.startsWith('###') && !lines[index + 1]?.startsWith('回答'),
    );
    expect(lines.slice(firstQuestionOnly).some((line) => line.startsWith('回答'))).toBe(false);
  });
});
