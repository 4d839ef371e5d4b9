import type { HandoffStreamEvent } from '../../../functions/contract/chat-events.js';
import {
  HANDOFF_LIST_FIELDS,
  type HandoffField,
  type HandoffLanguage,
  type HandoffOutcome,
  type HandoffSummary,
} from '../../../functions/contract/handoff.js';
import { removeUnverifiedLinks } from '../../../functions/contract/links.js';
import type { FailureCode } from '../api/api-error.js';

/**
 * The hand-off summary panel's state as one pure reducer (ADR 0024): the stream's events fill
 * the fields — text growing, list items appearing — and then staff edit them. In the editor each
 * field is one text; a list field is one item per line, so a textarea edits it as written.
 */

/** The editor's fields: every field as text, lists one item per line. */
export type HandoffFields = Readonly<Record<HandoffField, string>>;

export interface HandoffFailure {
  readonly code: FailureCode;
  readonly httpStatus?: number;
}

export interface HandoffSummaryState {
  /** `streaming` while the summary arrives; `editing` once it ended, however it ended. */
  readonly phase: 'streaming' | 'editing';
  readonly fields: HandoffFields;
  /** The summary's language (the copied text's labels); the UI's until the summary names one. */
  readonly language: HandoffLanguage;
  readonly outcome?: HandoffOutcome;
  /**
   * Links removed from the fields (the summary's `unverified_links`, ADR 0013): listed in the
   * panel; copying leaves them out.
   */
  readonly unverifiedLinks?: readonly string[];
  /** Why the summary may be unfinished: the model stopped early, the stream was cut, or failed. */
  readonly shortfall?:
    | { readonly kind: 'incomplete' }
    | { readonly kind: 'cut' }
    | { readonly kind: 'failed'; readonly failure: HandoffFailure };
}

export type HandoffSummaryAction =
  /** A new summary is asked for: the fields empty again, streaming. */
  | { readonly type: 'start'; readonly language: HandoffLanguage }
  | { readonly type: 'event'; readonly event: HandoffStreamEvent }
  | { readonly type: 'stream_ended' }
  | { readonly type: 'stream_failed'; readonly failure: HandoffFailure }
  | { readonly type: 'edit'; readonly field: HandoffField; readonly value: string }
  /** A summary kept from before (a reload): shown for editing at once. */
  | {
      readonly type: 'restore';
      readonly fields: HandoffFields;
      readonly language: HandoffLanguage;
      readonly outcome?: HandoffOutcome;
      readonly unverifiedLinks?: readonly string[];
    };

export const EMPTY_HANDOFF_FIELDS: HandoffFields = {
  symptom: '',
  environment: '',
  tried: '',
  told_requester: '',
  open_questions: '',
};

export function initialHandoffSummaryState(language: HandoffLanguage): HandoffSummaryState {
  return { phase: 'streaming', fields: EMPTY_HANDOFF_FIELDS, language };
}

const LIST_FIELDS: ReadonlySet<string> = new Set(HANDOFF_LIST_FIELDS);

/** A summary as the editor's fields. */
export function fieldsOfSummary(summary: HandoffSummary): HandoffFields {
  return {
    symptom: summary.symptom,
    environment: summary.environment,
    tried: summary.tried.join('\n'),
    told_requester: summary.told_requester,
    open_questions: summary.open_questions.join('\n'),
  };
}

/** The editor's fields as a summary: list fields split at line breaks, blank lines dropped. */
export function summaryOfFields(fields: HandoffFields): HandoffSummary {
  const lines = (text: string) =>
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
  return {
    symptom: fields.symptom,
    environment: fields.environment,
    tried: lines(fields.tried),
    told_requester: fields.told_requester,
    open_questions: lines(fields.open_questions),
  };
}

export function handoffSummaryReducer(
  state: HandoffSummaryState,
  action: HandoffSummaryAction,
): HandoffSummaryState {
  switch (action.type) {
    case 'start':
      return initialHandoffSummaryState(action.language);
    case 'event':
      // An `error` may follow the `summary` (it says why that is incomplete); nothing else may.
      return state.phase === 'streaming' || action.event.event === 'error'
        ? applyEvent(state, action.event)
        : state;
    case 'stream_ended':
      // A stream that ended without its `summary` was cut off on the way.
      return state.phase === 'streaming'
        ? {
            ...withoutUncheckedLinks(state),
            phase: 'editing',
            ...(state.shortfall ? {} : { shortfall: { kind: 'cut' } }),
          }
        : state;
    case 'stream_failed':
      return {
        ...(state.phase === 'streaming' ? withoutUncheckedLinks(state) : state),
        phase: 'editing',
        shortfall: { kind: 'failed', failure: action.failure },
      };
    case 'edit':
      return state.phase === 'editing'
        ? { ...state, fields: { ...state.fields, [action.field]: action.value } }
        : state;
    case 'restore':
      return {
        phase: 'editing',
        fields: action.fields,
        language: action.language,
        ...(action.outcome ? { outcome: action.outcome } : {}),
        ...(action.unverifiedLinks ? { unverifiedLinks: action.unverifiedLinks } : {}),
      };
  }
}

function applyEvent(state: HandoffSummaryState, event: HandoffStreamEvent): HandoffSummaryState {
  switch (event.event) {
    case 'summary_text': {
      const { field, content } = event.data;
      return { ...state, fields: { ...state.fields, [field]: state.fields[field] + content } };
    }
    case 'summary_item': {
      const { field, index, text } = event.data;
      if (!LIST_FIELDS.has(field)) return state;
      const items = state.fields[field] === '' ? [] : state.fields[field].split('\n');
      items[index] = text.replace(/\s*\n\s*/g, ' ');
      return {
        ...state,
        fields: { ...state.fields, [field]: Array.from(items, (item) => item ?? '').join('\n') },
      };
    }
    case 'summary': {
      const { language, outcome, complete, unverified_links, ...summary } = event.data;
      return {
        phase: 'editing',
        // The whole summary replaces what streamed: it is the same text, checked by the server.
        fields: fieldsOfSummary({
          ...summary,
          tried: summary.tried.map((item) => item.replace(/\s*\n\s*/g, ' ')),
          open_questions: summary.open_questions.map((item) => item.replace(/\s*\n\s*/g, ' ')),
        }),
        language,
        outcome,
        ...(unverified_links ? { unverifiedLinks: unverified_links } : {}),
        ...(complete ? {} : { shortfall: { kind: 'incomplete' } }),
      };
    }
    case 'error':
      // After a `summary`, the error says why it is incomplete; the phase is already editing.
      return { ...state, shortfall: { kind: 'failed', failure: { code: event.data.code } } };
    default:
      return state;
  }
}

/**
 * The fields of a summary whose `summary` never came: streamed text the server has not checked.
 * Fails closed — every link in them is removed and listed, as an unchecked link in the advice is
 * never clickable — so what staff copy carries none of them.
 */
function withoutUncheckedLinks(state: HandoffSummaryState): HandoffSummaryState {
  const removed = new Set<string>();
  const fields = Object.fromEntries(
    Object.entries(state.fields).map(([field, text]) => {
      const checked = removeUnverifiedLinks(text, []);
      for (const link of checked.removed) removed.add(link);
      return [field, checked.text];
    }),
  ) as HandoffFields;
  return {
    ...state,
    fields,
    ...(removed.size > 0 ? { unverifiedLinks: [...removed] } : {}),
  };
}
