import { describe, expect, it } from 'vitest';
import {
  segmentContentWords,
  tokenizeForSearch,
} from '../../../../local/bedrock/ticket-index/tokenize-for-search.js';

describe('tokenizeForSearch', () => {
  it('segments Japanese, normalises width and case, and adds CJK bigrams', () => {
    expect(tokenizeForSearch('Ｓａｌｅｓｆｏｒｃｅにログインできない')).toEqual([
      'salesforce',
      'ログイン',
      'にロ',
      'ログ',
      'グイ',
      'イン',
      'ンで',
    ]);
  });

  it('shares terms between 「ログインできない」 and 「ログインできません」', () => {
    const query = new Set(tokenizeForSearch('ログインできない'));
    expect(tokenizeForSearch('ログインできません').filter((term) => query.has(term))).toContain(
      'ログイン',
    );
  });

  it('drops English stop words and short hiragana words from content words', () => {
    expect(segmentContentWords("I can't log in to the VPN")).toEqual(['log', 'vpn']);
    expect(segmentContentWords('プリンターが動かない')).toEqual(['プリンター', '動']);
  });
});
