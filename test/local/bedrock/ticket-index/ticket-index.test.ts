import { describe, expect, it } from 'vitest';
import { chunkTicketDocument } from '../../../../local/bedrock/ticket-index/ticket-index.js';

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
