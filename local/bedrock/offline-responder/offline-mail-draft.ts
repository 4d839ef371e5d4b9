import type { Language } from '../../../functions/contract/language.js';
import { MAIL_DRAFT_STYLES, type MailDraftStyle } from '../../../functions/contract/mail-draft.js';
import { REFINE_ELEMENTS } from '../../../functions/contract/prompt-data.js';
import { answerLanguageIn, isElement, promptElementsOf, textOf } from './offline-request.js';

/**
 * The offline model's answer to the forced `submit_mail_draft` tool (ADR 0023): the draft
 * rewritten in the requested style by rules instead of a model, deterministically, from what the
 * request carries (`buildRefineRequest` in `functions/mail-draft/refine-mail-draft.ts`): the
 * `<answer_language>`, a `<refinement style>` element, the inquiry's `<staff>` messages, the `<mail_draft>`
 * and the `<cited_tickets>` with each ticket's subject and resolution. Each style leaves a mark a
 * test can see:
 * - `shorter`: the draft's first lines up to half its length (at least its first line);
 * - `polite`: a formal opening and closing around the draft;
 * - `other_language`: a fixed letter in the target language naming the inquiry and, per cited
 *   ticket, its number and resolution (no translation offline);
 * - `numbered_steps`: every sentence or line of the body as `1.`, `2.`, … .
 */
export interface RefineRequestParts {
  readonly style: MailDraftStyle;
  readonly language: Language;
  readonly staff: readonly string[];
  readonly draft: string;
  readonly cited: readonly {
    readonly issueId: string;
    readonly subject: string;
    readonly resolution: string;
  }[];
}

/** Reads the refine message by its elements; text that is not markup is the draft itself. */
export function readRefineRequest(text: string): RefineRequestParts {
  const elements = promptElementsOf(text);
  const named = (name: string) => elements.find((element) => element.name === name);
  const refinement = named(REFINE_ELEMENTS.refinement);
  const style = MAIL_DRAFT_STYLES.find((candidate) => candidate === refinement?.attributes.style);
  const draftElement = named(REFINE_ELEMENTS.draft);
  return {
    style: style ?? 'shorter',
    language: answerLanguageIn(elements) ?? 'ja',
    staff: (named(REFINE_ELEMENTS.inquiry)?.children ?? [])
      .filter(isElement)
      .map((element) => textOf(element).trim()),
    draft: draftElement ? textOf(draftElement) : elements.length === 0 ? text : '',
    cited: (named(REFINE_ELEMENTS.citedTickets)?.children ?? []).filter(isElement).map((ticket) => {
      const child = (name: string) =>
        textOf(ticket.children.filter(isElement).find((element) => element.name === name));
      return {
        issueId: ticket.attributes.issue_id ?? '',
        subject: child(REFINE_ELEMENTS.subject).trim(),
        resolution: child(REFINE_ELEMENTS.resolution).trim(),
      };
    }),
  };
}

const POLITE = {
  ja: {
    opening: 'いつも大変お世話になっております。ITサービスデスクでございます。',
    closing: '何卒よろしくお願い申し上げます。',
  },
  en: {
    opening: 'Dear colleague,\n\nThank you very much for contacting the IT Service Desk.',
    closing: 'We sincerely appreciate your patience.\n\nKind regards,\nIT Service Desk',
  },
} as const;

const LETTER = {
  ja: {
    greeting: 'お問い合わせありがとうございます。ITサービスデスクです。',
    about: (inquiry: string) => `「${inquiry}」の件についてご連絡いたします。`,
    steps: '過去の同様の事例では、次の手順で解決しています。',
    closing: 'よろしくお願いいたします。\nITサービスデスク',
  },
  en: {
    greeting: 'Thank you for contacting the IT Service Desk.',
    about: (inquiry: string) => `This is about your inquiry: "${inquiry}".`,
    steps: 'Similar cases in the past were solved with these steps:',
    closing: 'Best regards,\nIT Service Desk',
  },
} as const;

const SENTENCE_END = /(?<=[。．！？!?])\s*|(?<=\.)\s+/u;

/** The refined draft for a refine request, as the `mail_draft` of the tool input. */
export function buildOfflineMailDraft(request: RefineRequestParts): { mail_draft: string } {
  const draft = request.draft.trim();
  return { mail_draft: refined(request, draft) };
}

function refined(request: RefineRequestParts, draft: string): string {
  const lines = draft.split('\n').filter((line) => line.trim() !== '');
  switch (request.style) {
    case 'shorter': {
      const kept: string[] = [];
      let length = 0;
      for (const line of lines) {
        if (kept.length > 0 && length + line.length > draft.length / 2) break;
        kept.push(line);
        length += line.length;
      }
      return kept.join('\n');
    }
    case 'polite': {
      const phrases = POLITE[request.language];
      return `${phrases.opening}\n\n${draft}\n\n${phrases.closing}`;
    }
    case 'other_language': {
      const letter = LETTER[request.language];
      const inquiry = request.staff[0] ?? '';
      const steps = request.cited.map(
        (ticket, index) =>
          `${index + 1}. ${ticket.resolution || ticket.subject} (#${ticket.issueId})`,
      );
      return [
        letter.greeting,
        inquiry ? letter.about(inquiry) : '',
        steps.length > 0 ? `${letter.steps}\n${steps.join('\n')}` : '',
        letter.closing,
      ]
        .filter((part) => part !== '')
        .join('\n\n');
    }
    case 'numbered_steps': {
      const sentences = lines.flatMap((line) =>
        line
          .split(SENTENCE_END)
          .map((sentence) => sentence.replace(/^\s*(?:[-*•・]|\d+[.)])\s*/u, '').trim())
          .filter((sentence) => sentence !== ''),
      );
      return sentences.map((sentence, index) => `${index + 1}. ${sentence}`).join('\n');
    }
  }
}
