import type { Answer } from '../../../functions/contract/answer.js';
import { segmentContentWords } from '../ticket-index/tokenize-for-search.js';
import type { SeededRandom } from './create-seeded-random.js';
import type { InquiryLanguage } from './detect-inquiry-language.js';
import { OFFLINE_PHRASES } from './offline-phrases.js';
import type { OfflinePrompt } from './read-offline-prompt.js';

/** A `clarification` answer: short advice, the question and the options to choose from. */
export function buildClarificationAnswer(
  prompt: OfflinePrompt,
  options: readonly string[],
  language: InquiryLanguage,
  random: SeededRandom,
): Answer {
  const phrases = OFFLINE_PHRASES[language];
  const topics = options.slice(0, -1).map((option) => option.split(/[：:]/)[0]?.trim() ?? option);
  const topicList = topics.join(language === 'ja' ? '・' : ', ');
  const words = segmentContentWords(prompt.inquiries.at(-1) ?? '').length;
  return {
    response_type: 'clarification',
    general_advice: phrases.clarifyAdvice(topicList),
    question: random.pick(phrases.clarifyQuestion),
    options: [...options],
    reasoning: phrases.reasoningClarify(words, topicList),
  };
}
