import type { KnowledgeDraftStreamEvent } from '../../../functions/contract/chat-events.js';
import { ALL_DESK } from '../../../functions/contract/desks.js';
import type { StreamError } from '../../../functions/contract/errors.js';
import type { FailureCode } from '../api/api-error.js';

/**
 * The "Save as knowledge" form as one pure state machine: the model's draft streams into the
 * fields (`streaming`), then staff edit them (`editing`) and publish (`publishing`). Whatever
 * arrived is kept when the stream fails or the model stops early — partial data is a state, not
 * an exception — so staff can always finish the ticket by hand.
 */

/** What the form edits; `category` is `''` until the model or staff picks one. */
export interface TicketDraftFields {
  readonly subject: string;
  /** One of the deployed tickets' categories (`GET /api/me`), or '' for none chosen. */
  readonly category: string;
  readonly inquiry: string;
  readonly resolution: readonly string[];
  readonly restricted: boolean;
  /** The desk whose staff may retrieve the ticket (ADR 0029): `all`, or one of the editor's. */
  readonly desk: string;
}

/** A refusal or failure as the form shows it (the API's code, its message, the HTTP status). */
export interface DraftFailure {
  readonly code: FailureCode;
  readonly message: string;
  readonly httpStatus?: number;
  /** With a refused publish: the request field the server's message is about (`resolution.2`). */
  readonly field?: string;
  /** With `already_published`: the ticket the inquiry already is. */
  readonly issueId?: string;
}

/**
 * Why the draft may be unfinished: the model stopped early or wrote invalid fields
 * (`incomplete`), the server sent an `error` event or refused the request (`failed`), or the
 * stream ended without the final `draft` event (`cut`).
 */
export type DraftShortfall =
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'failed'; readonly failure: DraftFailure }
  | { readonly kind: 'cut' };

export interface TicketDraftState {
  readonly phase: 'streaming' | 'editing' | 'publishing';
  readonly fields: TicketDraftFields;
  readonly shortfall?: DraftShortfall;
  /** The last publish attempt was refused (validation messages of the server included). */
  readonly publishFailure?: DraftFailure;
}

/** Fields staff edit as plain values (steps have their own actions). */
type ScalarField = 'subject' | 'category' | 'inquiry' | 'restricted' | 'desk';

export type TicketDraftAction =
  /** One validated event of the draft stream. */
  | { readonly type: 'event'; readonly event: KnowledgeDraftStreamEvent }
  /** The draft request was refused, or the connection failed before the stream ended. */
  | { readonly type: 'stream_failed'; readonly failure: DraftFailure }
  /** The stream ended; without a `draft` or `error` event before it, it was cut off. */
  | { readonly type: 'stream_ended' }
  | { readonly type: 'edit'; readonly change: Partial<Pick<TicketDraftFields, ScalarField>> }
  | { readonly type: 'edit_step'; readonly index: number; readonly text: string }
  | { readonly type: 'add_step' }
  | { readonly type: 'remove_step'; readonly index: number }
  /** Moves a step one place up (`-1`) or down (`1`). */
  | { readonly type: 'move_step'; readonly index: number; readonly by: -1 | 1 }
  | { readonly type: 'publish_started' }
  | { readonly type: 'publish_failed'; readonly failure: DraftFailure };

export const initialTicketDraftState: TicketDraftState = {
  phase: 'streaming',
  fields: {
    subject: '',
    category: '',
    inquiry: '',
    resolution: [],
    restricted: false,
    desk: ALL_DESK,
  },
};

export function ticketDraftReducer(
  state: TicketDraftState,
  action: TicketDraftAction,
): TicketDraftState {
  switch (action.type) {
    case 'event':
      if (state.phase === 'streaming') return applyDraftEvent(state, action.event);
      // The server sends what arrived as `draft` and then the `error` that cut it short: the
      // error says why. Once staff may edit, no event touches the fields they type in.
      return action.event.event === 'error'
        ? { ...state, shortfall: { kind: 'failed', failure: failureOf(action.event.data) } }
        : state;
    case 'stream_failed':
      return state.phase === 'streaming'
        ? toEditing(state, { kind: 'failed', failure: action.failure })
        : state;
    case 'stream_ended':
      return state.phase === 'streaming' ? toEditing(state, { kind: 'cut' }) : state;
    case 'publish_started':
      return state.phase === 'editing'
        ? { ...state, phase: 'publishing', publishFailure: undefined }
        : state;
    case 'publish_failed':
      return state.phase === 'publishing'
        ? { ...state, phase: 'editing', publishFailure: action.failure }
        : state;
    default:
      return state.phase === 'editing'
        ? { ...state, fields: editFields(state.fields, action) }
        : state;
  }
}

function applyDraftEvent(
  state: TicketDraftState,
  event: KnowledgeDraftStreamEvent,
): TicketDraftState {
  const { fields } = state;
  switch (event.event) {
    case 'draft_text': {
      const { field, content } = event.data;
      return content === ''
        ? state
        : { ...state, fields: { ...fields, [field]: fields[field] + content } };
    }
    case 'draft_step': {
      const resolution = fields.resolution.slice();
      // A step that arrives early leaves empty places before it, filled when theirs arrive.
      while (resolution.length < event.data.index) resolution.push('');
      resolution[event.data.index] = event.data.text;
      return { ...state, fields: { ...fields, resolution } };
    }
    case 'draft': {
      const draft = event.data;
      return toEditing(
        {
          ...state,
          // The final event is authoritative: it replaces whatever the deltas built.
          fields: {
            subject: draft.subject,
            category: draft.category ?? '',
            inquiry: draft.inquiry,
            resolution: draft.resolution,
            restricted: draft.restricted,
            // The model drafts no desk: the editor's choice stays.
            desk: state.fields.desk,
          },
        },
        draft.complete ? undefined : { kind: 'incomplete' },
      );
    }
    case 'error':
      return toEditing(state, { kind: 'failed', failure: failureOf(event.data) });
    default:
      return state;
  }
}

function failureOf({ code, message }: StreamError): DraftFailure {
  return { code, message };
}

/** Streaming is over: the form opens for editing, with at least one step to write in. */
function toEditing(state: TicketDraftState, shortfall: DraftShortfall | undefined) {
  const { resolution } = state.fields;
  return {
    ...state,
    phase: 'editing' as const,
    shortfall,
    fields: { ...state.fields, resolution: resolution.length > 0 ? resolution : [''] },
  };
}

function editFields(
  fields: TicketDraftFields,
  action: Extract<
    TicketDraftAction,
    { type: 'edit' | 'edit_step' | 'add_step' | 'remove_step' | 'move_step' }
  >,
): TicketDraftFields {
  const steps = fields.resolution;
  switch (action.type) {
    case 'edit':
      return { ...fields, ...action.change };
    case 'edit_step':
      return action.index < steps.length
        ? { ...fields, resolution: steps.map((s, i) => (i === action.index ? action.text : s)) }
        : fields;
    case 'add_step':
      return { ...fields, resolution: [...steps, ''] };
    case 'remove_step':
      return { ...fields, resolution: steps.filter((_, i) => i !== action.index) };
    case 'move_step': {
      const target = action.index + action.by;
      if (action.index >= steps.length || target < 0 || target >= steps.length) return fields;
      const resolution = steps.slice();
      [resolution[action.index], resolution[target]] = [
        steps[target] as string,
        steps[action.index] as string,
      ];
      return { ...fields, resolution };
    }
  }
}
