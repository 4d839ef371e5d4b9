import { type GlossaryEntry, IT_GLOSSARY } from '../chat/it-glossary.js';

/**
 * The topic of an inquiry, for grouping knowledge gaps (issue #28, ADR 0022): the category of
 * the nearest retrieved ticket and the inquiry's main key terms. Deterministic and small on
 * purpose — the same text and category always give the same `topicKey`, on Node 20 here and
 * Node 22 on Lambda, so the counters of one topic add up across days and deploys.
 *
 * Key terms come first from the bilingual IT glossary (`functions/chat/it-glossary.ts`), named by
 * the entry's first English word, so "VPNにつながらない" and "VPN won't connect" share the term
 * `vpn` whichever language staff wrote in. What the glossary does not know is taken as runs of
 * one script — kanji, katakana, Latin letters and digits — rather than with `Intl.Segmenter`,
 * whose Japanese word breaks depend on the ICU data of the Node version (a key must not change
 * when the runtime does).
 */

export interface InquiryTopic {
  /** `category|term`: what the gap counters are keyed by. */
  readonly topicKey: string;
  readonly category: string;
  /** The main key terms, the key's term first; at most `MAX_TOPIC_TERMS`. */
  readonly terms: readonly string[];
}

/** The category of a topic whose inquiry retrieved nothing (or only uncategorized tickets). */
export const UNCATEGORIZED = 'uncategorized';

/** The term of a topic whose inquiry has no key term at all (only stopwords, only symbols). */
export const NO_TERM = '-';

export const MAX_TOPIC_TERMS = 3;

/**
 * The topic of `inquiryText` given the category of the nearest retrieved ticket.
 *
 * @example
 * topicOfInquiry('VPNにつながらない', 'network');
 * // { topicKey: 'network|vpn', category: 'network', terms: ['vpn', …] }
 */
export function topicOfInquiry(inquiryText: string, category: string | undefined): InquiryTopic {
  const topicCategory = normalizeCategory(category);
  const terms = keyTermsOf(inquiryText).slice(0, MAX_TOPIC_TERMS);
  return {
    topicKey: `${topicCategory}|${terms[0] ?? NO_TERM}`,
    category: topicCategory,
    terms,
  };
}

/**
 * The inquiry's key terms, most telling first: what the inquiry is about (a system, a device, a
 * product name the glossary does not know) in the order the text names it, then what happens to
 * it or where (a symptom, an action, a context: `SECONDARY_TERMS`) in text order. Each term once.
 */
export function keyTermsOf(inquiryText: string): string[] {
  const normalized = normalize(inquiryText);
  const { japanese, english, englishWords } = glossaryIndex();
  const hits: Hit[] = [];
  // Japanese variants as substrings (no word boundaries in Japanese), as retrieval matches them.
  for (const [variant, term] of japanese) {
    const at = normalized.indexOf(variant);
    if (at >= 0) hits.push({ term, at, length: variant.length });
  }
  // English variants as whole words, all in one pass of one pattern (hundreds of patterns with
  // Unicode properties cost milliseconds per inquiry).
  for (const match of normalized.matchAll(englishWords)) {
    const term = english.get(match[1] as string);
    if (term) hits.push({ term, at: match.index, length: match[0].length });
  }
  // A term inside a longer one is no term of its own: 画面共有 is screen sharing, not also
  // screen and share.
  const within = (inner: Hit, outer: Hit) =>
    outer.length > inner.length &&
    inner.at >= outer.at &&
    inner.at + inner.length <= outer.at + outer.length;
  const found = hits.filter((hit) => !hits.some((other) => within(hit, other)));
  // What a glossary variant covered is not taken again as a plain word; the blanks keep the
  // positions of the words after it.
  const blank = (word: string) => ' '.repeat(word.length);
  let rest = normalized.replace(englishWords, blank);
  for (const variant of japanese.keys()) rest = rest.replaceAll(variant, blank);
  found.push(...plainWordsOf(rest));
  const tierOf = (term: string) => (SECONDARY_TERMS.has(term) ? 1 : 0);
  found.sort((a, b) => tierOf(a.term) - tierOf(b.term) || a.at - b.at || b.length - a.length);
  const terms: string[] = [];
  for (const { term } of found) if (!terms.includes(term)) terms.push(term);
  return terms;
}

interface Hit {
  readonly term: string;
  readonly at: number;
  readonly length: number;
}

let index:
  | {
      japanese: Map<string, string>;
      english: Map<string, string>;
      englishWords: RegExp;
    }
  | undefined;

/**
 * The glossary's variants, normalised, each with its entry's term (the first entry naming a
 * variant wins), and one pattern matching every English variant as a whole word, plural
 * included, the longest alternative first. Built on first use.
 */
function glossaryIndex(): NonNullable<typeof index> {
  if (index) return index;
  const japanese = new Map<string, string>();
  const english = new Map<string, string>();
  for (const entry of IT_GLOSSARY) {
    const term = canonicalTerm(entry);
    for (const variant of entry.ja) {
      const word = normalize(variant);
      if (!japanese.has(word)) japanese.set(word, term);
    }
    for (const variant of entry.en) {
      const word = normalize(variant);
      if (!english.has(word)) english.set(word, term);
    }
  }
  const alternatives = [...english.keys()]
    .sort((a, b) => b.length - a.length || a.localeCompare(b))
    .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // Bounded by Latin letters and digits only: in "VPNにつながらない" the kana is no part of the word.
  const englishWords = new RegExp(
    `(?<![\\p{Script=Latin}\\p{N}])(${alternatives.join('|')})(?:e?s)?(?![\\p{Script=Latin}\\p{N}])`,
    'gu',
  );
  index = { japanese, english, englishWords };
  return index;
}

/**
 * Glossary terms (by their first English word) that say what happens or where rather than what
 * it happens to: "VPNにつながらない" is about the VPN, "Outlookでメールが送信できない" about
 * Outlook mail. They still count, after the subject terms.
 */
const SECONDARY_TERMS = new Set([
  "can't connect",
  'disconnect',
  'slow',
  'delay',
  'expired',
  "won't boot",
  'boot',
  'freeze',
  'restart',
  'reset',
  'lost',
  'broken',
  'replacement',
  'loan',
  'not receiving',
  'cannot send',
  'garbled',
  'forward',
  'share',
  'delete',
  'restore',
  'overwrite',
  'download',
  'sync',
  'install',
  'uninstall',
  'update',
  'error',
  'warning',
  'request',
  'approval',
  'settings',
  'user',
  'account',
  'personal',
  'access denied',
  'no signal',
  'working from home',
  'business trip',
  'overseas',
]);

/** Whether a key term says what happens or where (a symptom, an action) rather than to what. */
export function isSecondaryTerm(term: string): boolean {
  return SECONDARY_TERMS.has(term);
}

function canonicalTerm(entry: GlossaryEntry): string {
  return normalize(entry.en[0] ?? entry.ja[0] ?? NO_TERM);
}

/**
 * Runs of one script with their position: kanji (2+), katakana (2+), Latin letters and digits
 * (3+ and not a stopword; the acronyms VPN, PC, OS kept at 2+). Digits alone are no term.
 */
function plainWordsOf(text: string): { term: string; at: number; length: number }[] {
  const words: { term: string; at: number; length: number }[] = [];
  for (const match of text.matchAll(WORD_RUNS)) {
    const word = match[0];
    const japanese = /^\p{Script=Han}+$/u.test(word) || /^[\p{Script=Katakana}ー]+$/u.test(word);
    const kept = japanese
      ? word.length >= 2 && !JAPANESE_STOPWORDS.has(word)
      : word.length >= 2 && !/^\d+$/.test(word) && !ENGLISH_STOPWORDS.has(word);
    if (kept) words.push({ term: word, at: match.index, length: word.length });
  }
  return words;
}

const WORD_RUNS =
  /\p{Script=Han}+|[\p{Script=Katakana}ー]+|[\p{Script=Latin}\d][\p{Script=Latin}\d'-]*/gu;

/**
 * Words every inquiry can contain that say nothing of its topic. Small on purpose: a word left
 * out here only makes a topic's second or third term less telling.
 */
const JAPANESE_STOPWORDS = new Set([
  '問題',
  '方法',
  '確認',
  '対応',
  '状態',
  '場合',
  '今日',
  '昨日',
  '今朝',
  '現在',
  '使用',
  '利用',
  '発生',
  '解決',
  '質問',
  '連絡',
  '自分',
  '何度',
  '表示',
  'エラー',
  'システム',
  'サービス',
]);

const ENGLISH_STOPWORDS = new Set(
  `the and for are but not you your yours our ours can cannot can't could would should will won't
  does doesn't did didn't don't has have had having was were been being this that these those with
  from into onto over under after before again when what which who whom why how any all some
  each every other than then there here just only also very too still now today yesterday morning
  since get got getting gets keep keeps kept work works working worked use uses using used try
  tried trying help please need needs want wants know like able unable anymore anyone someone
  something nothing issue issues problem problems error errors thing things way while about
  it's i'm i've my mine me its they them their hello thanks thank is to in on at it we an of
  or be do so up no am as by if us hi ok system systems`
    .split(/\s+/)
    .filter(Boolean),
);

const normalizeCategory = (category: string | undefined) => {
  const trimmed = category?.normalize('NFKC').trim().toLowerCase();
  // `|` separates the category from the term in a topic key.
  return trimmed ? trimmed.replaceAll('|', '/') : UNCATEGORIZED;
};

// Full-width letters and half-width katakana as staff type them (ＶＰＮ, ﾌﾟﾘﾝﾀｰ) match too.
const normalize = (text: string) => text.normalize('NFKC').toLowerCase();
