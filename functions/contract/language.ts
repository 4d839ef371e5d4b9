/**
 * "Is this text Japanese", the one rule the product, the web client and the local stack share
 * (issue #47): the language an answer, a draft or a summary is written in, a placeholder's
 * language, a local ticket's language.
 */

/** The two languages the product writes in. */
export type Language = 'ja' | 'en';

/** Kana: hiragana, katakana (with `ー` and `・`), the phonetic extensions, half-width katakana. */
const KANA = /[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]/u;
/** CJK ideographs (kanji), iteration and closing marks such as `々` and `〆` included. */
const IDEOGRAPHS = /\p{Script=Han}/gu;

export interface DetectLanguageOptions {
  /**
   * How many ideographs make a text without kana Japanese; 1 unless a caller says otherwise.
   * The personal-data scrub asks for 2, so a lone kanji in an English ticket (a name, a symbol)
   * does not turn its placeholders Japanese.
   */
  readonly ideographsWithoutKana?: number;
}

/**
 * Japanese when the text has any kana, or at least `ideographsWithoutKana` ideographs; English
 * otherwise. A count, not a share: Japanese IT text is full of English product names.
 *
 * @example
 * detectLanguage('VPN に接続できない'); // 'ja'
 * detectLanguage('障害 VPN', { ideographsWithoutKana: 2 }); // 'ja'
 * detectLanguage('VPN fails after the update'); // 'en'
 */
export function detectLanguage(text: string, options: DetectLanguageOptions = {}): Language {
  if (KANA.test(text)) return 'ja';
  const ideographs = text.match(IDEOGRAPHS)?.length ?? 0;
  return ideographs >= (options.ideographsWithoutKana ?? 1) ? 'ja' : 'en';
}
