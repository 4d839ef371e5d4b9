import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventsNamed, postChat } from '../support/chat-client.js';
import type { InProcessApi } from '../support/in-process-api.js';

/**
 * The person-name analyzer (kuromoji's dictionary, hundreds of MB) loads only where text leaves a
 * person — never at the API's start nor on a chat, whose text names people too (ADR 0019).
 */
const imported = vi.hoisted(() => ({ kuromoji: 0, compromise: 0 }));
// The analyzer loads kuromoji's tokenizer module itself (its dictionary through its own loader);
// the package's entry is watched too, should anything load kuromoji that way.
vi.mock('kuromoji', async (importOriginal) => {
  imported.kuromoji += 1;
  return importOriginal();
});
vi.mock('kuromoji/src/Tokenizer.js', async (importOriginal) => {
  imported.kuromoji += 1;
  return importOriginal();
});
vi.mock('compromise', async (importOriginal) => {
  imported.compromise += 1;
  return importOriginal();
});

let chat: InProcessApi;
beforeAll(async () => {
  // Test files share a worker's modules: start from a fresh registry, so an analyzer another file
  // loaded does not hide (or stand in for) a load by the API.
  vi.resetModules();
  imported.kuromoji = 0;
  imported.compromise = 0;
  const { startInProcessApi } = await import('../support/in-process-api.js');
  chat = await startInProcessApi();
});
afterAll(() => chat?.stop());

describe('the person-name analyzer', () => {
  it('is not loaded when the API starts nor by a chat naming people', async () => {
    expect(imported).toEqual({ kuromoji: 0, compromise: 0 });
    const response = await postChat(
      chat.api,
      { message: '経理部の山田太郎です。プリンターで印刷できません。Regards, Maria Garcia' },
      { user: 'analyzer-path' },
    );
    expect(eventsNamed(response, 'result')).toHaveLength(1);
    expect(imported).toEqual({ kuromoji: 0, compromise: 0 });
  });

  it('is seen by this check when it does load (where text leaves a person)', async () => {
    const { loadPersonNameAnalyzer } = await import(
      '../../functions/knowledge/person-name-analyzer.js'
    );
    const analyzer = await loadPersonNameAnalyzer();
    expect(analyzer.names('経理部の山田太郎です。')).toContain('山田太郎');
    expect(imported).toEqual({ kuromoji: 1, compromise: 1 });
  }, 60_000);
});
