import { describe, expect, it } from 'vitest';
import {
  glossaryExpansion,
  MAX_QUERY_LENGTH,
  toRetrievalQuery,
} from '../../functions/chat/retrieval-query.js';

describe('toRetrievalQuery', () => {
  it('is the trimmed inquiry text when expansion is off', () => {
    expect(toRetrievalQuery('  VPNにつながらない \n')).toBe('VPNにつながらない');
  });

  it('adds the other language for what the inquiry mentions, after the inquiry', () => {
    expect(toRetrievalQuery('プリンターで印刷できない', { expand: true })).toBe(
      'プリンターで印刷できない\nprinter print',
    );
    expect(toRetrievalQuery('BitLocker asks for the recovery key', { expand: true })).toBe(
      'BitLocker asks for the recovery key\n回復キー',
    );
  });

  it('recognises full-width and half-width spellings staff type', () => {
    expect(glossaryExpansion('ﾌﾟﾘﾝﾀｰが動かない')).toContain('printer');
    expect(glossaryExpansion('ＰＡＳＳＷＯＲＤ expired')).toEqual(
      expect.arrayContaining(['パスワード', '有効期限']),
    );
  });

  it('matches English words whole: "mailbox" is not "mail", "display" is not "play"', () => {
    expect(glossaryExpansion('shared mailbox')).toEqual(['共有メールボックス']);
  });

  it('recognises English plurals of a glossary word, and only whole words', () => {
    expect(glossaryExpansion('no licenses left')).toEqual(['ライセンス']);
    expect(glossaryExpansion('two users, one license')).toEqual(['ユーザー', 'ライセンス']);
    // A plural ending, not any suffix: "pinned" is not "pin", "domains" is "domain".
    expect(glossaryExpansion('pinned tab')).toEqual([]);
    expect(glossaryExpansion('both domains')).toEqual(['ドメイン']);
  });

  it('adds nothing the text already says, and the same words whatever their order in the text', () => {
    expect(glossaryExpansion('printer プリンター')).toEqual([]);
    expect(glossaryExpansion('録画 会議')).toEqual(glossaryExpansion('会議 録画'));
  });

  it('keeps the whole inquiry when the limit cuts, dropping expansion words first', () => {
    const long = `${'プリンター'.repeat(199)}あいう`;
    const query = toRetrievalQuery(long, { expand: true });
    expect(Array.from(query)).toHaveLength(MAX_QUERY_LENGTH);
    expect(query.startsWith(long)).toBe(true);
  });
});
