import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  isContentWord,
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

describe('segmentContentWords against Intl.Segmenter itself', () => {
  // The analysis as it was before the plain-word shortcut: every word segment of the text.
  const segmenter = new Intl.Segmenter('ja', { granularity: 'word' });
  const wordSegmentsOf = (text: string) =>
    [...segmenter.segment(text.normalize('NFKC').toLowerCase())]
      .filter(({ isWordLike }) => isWordLike)
      .map(({ segment }) => segment);
  const contentWordsOf = (text: string) => wordSegmentsOf(text).filter(isContentWord);

  it('cuts every sample ticket exactly as the segmenter does', () => {
    const directory = 'data/tickets';
    const texts = readdirSync(directory)
      .filter((name) => name.endsWith('.md'))
      .map((name) => readFileSync(join(directory, name), 'utf8'));
    expect(texts.length).toBeGreaterThan(100);
    for (const text of texts) expect(segmentContentWords(text)).toEqual(contentWordsOf(text));
  });

  // Short strings over characters that exercise UAX #29's joins around punctuation, the
  // underscore, kana and kanji, accents, full-width forms and white space: every string up to
  // four characters, then random longer ones.
  const ALPHABET = ['a', '1', '_', '.', "'", ':', ',', '-', '(', ' ', 'カ', 'ー', '漢', 'あ', 'é'];
  const MORE = ['Z', 'Ａ', '々', ';', '\n'];

  it('agrees on every string of up to four characters over a tricky alphabet', () => {
    let strings = [''];
    let compared = 0;
    for (let length = 1; length <= 4; length += 1) {
      strings = strings.flatMap((prefix) => ALPHABET.map((character) => prefix + character));
      for (const text of strings) {
        expect(segmentContentWords(text), JSON.stringify(text)).toEqual(contentWordsOf(text));
        compared += 1;
      }
    }
    expect(compared).toBe(15 + 15 ** 2 + 15 ** 3 + 15 ** 4);
  });

  it('agrees on random mixed-language texts', () => {
    const pieces = [
      ...ALPHABET,
      ...MORE,
      'vpn',
      'Wi-Fi',
      "can't",
      '1.5GHz',
      'user@example.com',
      'C:\\Users',
      'ログイン',
      'できない',
      'プロジェクト_アーカイブ',
      'パスワード：',
      '。',
      '、',
      '\t',
      '  ',
      'https://example.com/a?b=1',
      'file_name.txt',
      '🙂',
      '①',
    ];
    let state = 25;
    const random = () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state / 2 ** 31;
    };
    for (let sample = 0; sample < 5_000; sample += 1) {
      const length = 1 + Math.floor(random() * 30);
      const text = Array.from({ length }, () => pieces[Math.floor(random() * pieces.length)]).join(
        '',
      );
      expect(segmentContentWords(text), JSON.stringify(text)).toEqual(contentWordsOf(text));
    }
  });
});
