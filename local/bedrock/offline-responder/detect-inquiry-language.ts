export type InquiryLanguage = 'ja' | 'en';

const JAPANESE = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u;

/** Japanese when the text has any kana or kanji, otherwise English. */
export function detectInquiryLanguage(text: string): InquiryLanguage {
  return JAPANESE.test(text) ? 'ja' : 'en';
}
