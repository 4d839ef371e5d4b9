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
  const hits = [
    { id: 0, score: 10 },
    { id: 1, score: 6 },
    { id: 2, score: 5 },
    { id: 3, score: 4 },
    { id: 4, score: 2 },
    { id: 5, score: 1 },
  ];

  it("puts the inquiry's own language first, the other language's best match right after", () => {
    const merged = mergeLanguages(hits, languages, 'en');
    expect(merged.map((hit) => hit.id)).toEqual([0, 4, 1, 2, 3, 5]);
    expect(merged.map((hit) => hit.score)).toEqual([1, 0.8, 0.6, 0.5, 0.4, 0.4]);
    // Asked in Japanese, the English best (10) beats 3 × the Japanese best (2) and leads; the
    // other English hits are scaled against the Japanese best, so they no longer sink.
    expect(mergeLanguages(hits, languages, 'ja').map((hit) => hit.id)).toEqual([0, 1, 4, 2, 3, 5]);
  });

  it('lets the other language lead when it matches over 3 times better than the own language', () => {
    const weakEnglish = [
      { id: 0, score: 2 },
      { id: 4, score: 9 },
    ];
    expect(mergeLanguages(weakEnglish, languages, 'en')).toEqual([
      { id: 4, score: 1 },
      { id: 0, score: 2 / 3 },
    ]);
    const closeEnglish = [
      { id: 0, score: 4 },
      { id: 4, score: 9 },
    ];
    expect(mergeLanguages(closeEnglish, languages, 'en').map((hit) => hit.id)).toEqual([0, 4]);
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
