const segmenter = new Intl.Segmenter('ja', { granularity: 'word' });

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]+/gu;
const HIRAGANA_ONLY = /^[\p{Script=Hiragana}ー]+$/u;
const ENGLISH_STOP_WORDS = new Set(
  "a an and are as at be but by can cannot can't could do does for from has have how i in is it its me my no not of on or our please so that the this to was we what when where which why will with you your".split(
    ' ',
  ),
);
/** Word breaks always fall around ASCII white space (UAX #29: nothing joins across it). */
const ASCII_WHITE_SPACE = /[\t\n\v\f\r ]+/;
/**
 * A token that is one plain word between ASCII punctuation (`(vpn)`, `offline;`, `123.`): the
 * segmenter's only word segment in it is the letters and digits. `_` is not punctuation here —
 * it joins words (`file_name`, `_カタカナ`) — and a punctuation mark between two word characters
 * can join them (`1.5`, `can't`), so such tokens are left to the segmenter.
 */
const PLAIN_WORD = /^[!-/:-@[-^`{-~]*([a-z0-9]+)[!-/:-@[-^`{-~]*$/;
const ASCII_PUNCTUATION_ONLY = /^[!-/:-@[-^`{-~]+$/;

const normalize = (text: string) => text.normalize('NFKC').toLowerCase();

/**
 * Content words of a text: NFKC-normalised, lower-cased word segments from
 * `Intl.Segmenter('ja')`, without English stop words and without hiragana-only words of one
 * or two characters (particles and auxiliaries such as が, を, ない).
 */
export function segmentContentWords(text: string): string[] {
  return wordSegments(normalize(text)).filter(isContentWord);
}

/** Whether a word segment is kept: not an English stop word, not a short hiragana word. */
export function isContentWord(segment: string): boolean {
  return !ENGLISH_STOP_WORDS.has(segment) && !(HIRAGANA_ONLY.test(segment) && segment.length <= 2);
}

/**
 * The word-like segments `Intl.Segmenter('ja')` finds in a text, in order — the same list
 * (tested against the segmenter itself), at about three quarters of its cost: the segmenter
 * allocates an object per segment, spaces and punctuation included, so a plain ASCII word
 * between spaces is taken as it is, and only the other tokens go to the segmenter, joined by
 * spaces into one call (one call per token would cost more than it saves).
 */
function wordSegments(normalized: string): string[] {
  // A plain word, or the index in `forSegmenter` of a token the segmenter cuts.
  const tokens: (string | number)[] = [];
  const forSegmenter: string[] = [];
  for (const token of normalized.split(ASCII_WHITE_SPACE)) {
    if (token === '') continue;
    const plain = PLAIN_WORD.exec(token);
    if (plain !== null) tokens.push(plain[1] as string);
    else if (!ASCII_PUNCTUATION_ONLY.test(token)) tokens.push(forSegmenter.push(token) - 1);
  }
  const segmented = forSegmenter.map((): string[] => []);
  if (forSegmenter.length > 0) {
    let token = 0;
    let nextTokenStart = (forSegmenter[0] as string).length + 1;
    for (const { segment, index, isWordLike } of segmenter.segment(forSegmenter.join(' '))) {
      if (!isWordLike) continue;
      while (index >= nextTokenStart) {
        token += 1;
        nextTokenStart += (forSegmenter[token] as string).length + 1;
      }
      (segmented[token] as string[]).push(segment);
    }
  }
  return tokens.flatMap((token) => (typeof token === 'string' ? token : segmented[token]) ?? []);
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
  const normalized = normalize(text);
  const terms = wordSegments(normalized).filter(isContentWord);
  for (const run of normalized.match(CJK_RUN) ?? []) {
    for (let index = 0; index + 2 <= run.length; index += 1) {
      const bigram = run.slice(index, index + 2);
      if (!HIRAGANA_ONLY.test(bigram)) terms.push(bigram);
    }
  }
  return terms;
}

/** The analysis's code, for the caches' fingerprint: a change to any of it is a new analysis. */
export const ANALYSIS_SOURCE = [tokenizeForSearch, segmentContentWords, isContentWord, wordSegments]
  .map(String)
  .join('\n');
