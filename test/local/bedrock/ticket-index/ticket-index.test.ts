import { describe, expect, it } from 'vitest';
import {
  chunkTicketDocument,
  createTicketIndex,
  mergeLanguages,
  type TicketDocument,
} from '../../../../local/bedrock/ticket-index/ticket-index.js';

const ticket = (issueId: string, subject: string, body: string): TicketDocument => ({
  fileName: `${issueId}.md`,
  text: `# ${subject}\n\n${body}`,
  metadata: { issue_id: issueId, subject },
});

describe('chunkTicketDocument', () => {
  it('keeps a short ticket whole', () => {
    expect(chunkTicketDocument('# 件名\n\n本文')).toEqual(['# 件名\n\n本文']);
  });

  it('splits a long ticket at paragraphs into chunks within the limit, losing no text', () => {
    const paragraphs = Array.from({ length: 12 }, (_, index) => `段落${index} ${'あ'.repeat(30)}`);
    const chunks = chunkTicketDocument(paragraphs.join('\n\n'), 100);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(100);
    expect(chunks.join('\n\n')).toBe(paragraphs.join('\n\n'));
  });

  it('hard-splits a single paragraph longer than the limit', () => {
    expect(chunkTicketDocument('x'.repeat(250), 100).map((chunk) => chunk.length)).toEqual([
      100, 100, 50,
    ]);
  });
});

describe('mergeLanguages: Japanese and English tickets ranked on their own scales', () => {
  // Chunks 0–3 English, 4–5 Japanese; raw BM25 scores as an English question with a Japanese
  // expansion line gives them: the Japanese ones far below, as they share only the expansion.
  const languages = [
    { language: 'en' },
    { language: 'en' },
    { language: 'en' },
    { language: 'en' },
    { language: 'ja' },
    { language: 'ja' },
  ] as const;
  const hit = (id: number, score: number, queryTerms: string[] = []) => ({ id, score, queryTerms });
  // Without query terms every match counts as strong: only the per-language scales are at work.
  const asked = (language: 'en' | 'ja', terms: string[] = []) => ({ language, terms });
  const hits = [hit(0, 10), hit(1, 6), hit(2, 5), hit(3, 4), hit(4, 2), hit(5, 1)];

  it("puts the inquiry's own language first, the other language's best match right after", () => {
    const merged = mergeLanguages(hits, languages, asked('en'));
    expect(merged.map((hit) => hit.id)).toEqual([0, 4, 1, 2, 3, 5]);
    expect(merged.map((hit) => hit.score)).toEqual([1, 0.8, 0.6, 0.5, 0.4, 0.4]);
    // Asked in Japanese, the English best (10) beats 3 × the Japanese best (2) and leads; the
    // other English hits are scaled against the Japanese best, so they no longer sink.
    expect(mergeLanguages(hits, languages, asked('ja')).map((hit) => hit.id)).toEqual([
      0, 1, 4, 2, 3, 5,
    ]);
  });

  it('lets the other language lead when it matches over 3 times better than the own language', () => {
    expect(mergeLanguages([hit(0, 2), hit(4, 9)], languages, asked('en'))).toEqual([
      { id: 4, score: 1 },
      { id: 0, score: 2 / 3 },
    ]);
    const closeEnglish = [hit(0, 4), hit(4, 9)];
    expect(mergeLanguages(closeEnglish, languages, asked('en')).map((hit) => hit.id)).toEqual([
      0, 4,
    ]);
  });

  describe('when only the own language matches strongly', () => {
    // A Japanese question expanded with four English words: Japanese ticket 4 matches every
    // Japanese term, ticket 5 (a second good answer) fewer; the English tickets share only "out".
    const terms = ['ロックアウト', 'ロッ', 'ック', '解除', 'locked', 'out', 'account', 'unlock'];
    const japaneseHits = [
      hit(4, 20, ['ロックアウト', 'ロッ', 'ック', '解除']),
      hit(5, 10, ['ロッ', 'ック', '解除']),
    ];
    const weakEnglish = [hit(0, 3, ['out']), hit(1, 2.9, ['out'])];

    it("weights the other language's weak matches down by how little of the bridge words they share", () => {
      const merged = mergeLanguages(
        [...japaneseHits, ...weakEnglish],
        languages,
        asked('ja', terms),
      );
      expect(merged.map((hit) => hit.id)).toEqual([4, 5, 0, 1]);
      // 1 of 4 English terms is half of a strong match (2 of 4): weight 0.8 × 0.5.
      expect(merged[2]?.score).toBeCloseTo(0.4);
    });

    it("keeps the other language's full weight when its best match is strong too", () => {
      const strongEnglish = [hit(0, 6, ['locked', 'out', 'account']), hit(1, 3, ['out'])];
      const merged = mergeLanguages(
        [...japaneseHits, ...strongEnglish],
        languages,
        asked('ja', terms),
      );
      expect(merged.map((hit) => hit.id)).toEqual([4, 0, 5, 1]);
      expect(merged[1]?.score).toBeCloseTo(0.8);
    });

    it('keeps the full weight when the own language matches weakly (a question about the other language)', () => {
      const weakJapanese = [hit(4, 20, ['解除']), hit(5, 10, ['解除'])];
      const merged = mergeLanguages(
        [...weakJapanese, ...weakEnglish],
        languages,
        asked('ja', terms),
      );
      expect(merged.map((hit) => hit.id)).toEqual([4, 0, 1, 5]);
      expect(merged[1]?.score).toBeCloseTo(0.8);
    });
  });
});

describe('createTicketIndex', () => {
  it('scores in 0–1, best first, as Bedrock reports similarities, in both languages', () => {
    const documents = [
      ticket('201', 'Badge reader rejects my new badge', 'The card reader beeps red.'),
      ticket('202', 'Printer jobs wait in the queue', 'Print jobs wait.'),
      ticket(
        '300',
        '社員証で認証印刷できない',
        '複合機のカードリーダーに社員証をかざしても反応しない。',
      ),
    ];
    const results = createTicketIndex(documents).search({
      text: 'new badge, card reader\n社員証 カードリーダー',
      numberOfResults: 10,
    });
    const scores = results.map((result) => result.score);
    expect(results.map((result) => result.metadata.issue_id).sort()).toEqual(['201', '300']);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(Math.max(...scores)).toBeLessThan(1);
    expect(Math.min(...scores)).toBeGreaterThan(0);
  });
});
