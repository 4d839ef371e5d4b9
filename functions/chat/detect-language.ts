export type Language = 'ja' | 'en';

const JAPANESE = /[\u3040-\u30ff\u3400-\u9fff\uff66-\uff9f]/;

/** Japanese when the text has any kana or kanji, otherwise English. */
export function detectLanguage(text: string): Language {
  return JAPANESE.test(text) ? 'ja' : 'en';
}
