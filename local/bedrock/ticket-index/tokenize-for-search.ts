const segmenter = new Intl.Segmenter('ja', { granularity: 'word' });

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]+/gu;
const HIRAGANA_ONLY = /^[\p{Script=Hiragana}ー]+$/u;
const ENGLISH_STOP_WORDS = new Set(
  "a an and are as at be but by can cannot can't could do does for from has have how i in is it its me my no not of on or our please so that the this to was we what when where which why will with you your".split(
    ' ',
  ),
);

const normalize = (text: string) => text.normalize('NFKC').toLowerCase();

/**
 * Content words of a text: NFKC-normalised, lower-cased word segments from
 * `Intl.Segmenter('ja')`, without English stop words and without hiragana-only words of one
 * or two characters (particles and auxiliaries such as が, を, ない).
 */
export function segmentContentWords(text: string): string[] {
  const words: string[] = [];
  for (const { segment, isWordLike } of segmenter.segment(normalize(text))) {
    if (!isWordLike || ENGLISH_STOP_WORDS.has(segment)) continue;
    if (HIRAGANA_ONLY.test(segment) && segment.length <= 2) continue;
    words.push(segment);
  }
  return words;
}

/**
 * Search terms for BM25: the content words plus character bigrams of every CJK run.
 * The bigrams make matching independent of where the segmenter cuts, so 「ログインできない」
 * finds 「ログインできません」 (shared ログ/グイ/イン) even if the segments differ. Bigrams of
 * hiragana only are skipped: they are mostly grammar and would drown the signal.
 *
 * @example tokenizeForSearch('Salesforceにログインできない') // ['salesforce', 'ログイン', 'にロ', 'ログ', 'グイ', 'イン', 'ンで']
 */
export function tokenizeForSearch(text: string): string[] {
  const terms = segmentContentWords(text);
  for (const run of normalize(text).match(CJK_RUN) ?? []) {
    for (let index = 0; index + 2 <= run.length; index += 1) {
      const bigram = run.slice(index, index + 2);
      if (!HIRAGANA_ONLY.test(bigram)) terms.push(bigram);
    }
  }
  return terms;
}
