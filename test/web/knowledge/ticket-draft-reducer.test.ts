import { describe, expect, it } from 'vitest';
import type { KnowledgeDraftStreamEvent } from '../../../functions/contract/chat-events.js';
import {
  initialTicketDraftState,
  type TicketDraftAction,
  type TicketDraftState,
  ticketDraftReducer,
} from '../../../web/src/knowledge/ticket-draft-reducer.js';

const text = (field: 'subject' | 'inquiry', content: string): TicketDraftAction => ({
  type: 'event',
  event: { event: 'draft_text', data: { field, content } },
});
const step = (index: number, stepText: string): TicketDraftAction => ({
  type: 'event',
  event: { event: 'draft_step', data: { index, text: stepText } },
});
const draft = (fields: Partial<Extract<KnowledgeDraftStreamEvent, { event: 'draft' }>['data']>) =>
  ({
    type: 'event',
    event: {
      event: 'draft',
      data: {
        subject: 'プリンターの設置',
        category: 'Printer',
        inquiry: '新しいプリンターを設置したい',
        resolution: ['設置場所を確認', 'ドライバーを配布'],
        restricted: false,
        complete: true,
        ...fields,
      },
    },
  }) as const satisfies TicketDraftAction;

const run = (...actions: TicketDraftAction[]): TicketDraftState =>
  actions.reduce(ticketDraftReducer, initialTicketDraftState);

describe('ticketDraftReducer while the draft streams', () => {
  it('grows subject and inquiry by their deltas and places each step as it completes', () => {
    const state = run(
      { type: 'event', event: { event: 'progress', data: { step: 'generating' } } },
      text('subject', 'プリンター'),
      text('subject', 'の設置'),
      text('inquiry', '新しい'),
      step(0, '設置場所を確認'),
      text('inquiry', 'プリンター'),
      step(1, 'ドライバーを配布'),
    );
    expect(state.phase).toBe('streaming');
    expect(state.fields).toEqual({
      subject: 'プリンターの設置',
      category: '',
      inquiry: '新しいプリンター',
      resolution: ['設置場所を確認', 'ドライバーを配布'],
      restricted: false,
      desk: 'all',
    });
  });

  it('lets the final draft replace what the deltas built and opens the form for editing', () => {
    const state = run(text('subject', 'プリン'), step(0, '古い手順'), draft({}));
    expect(state).toEqual({
      phase: 'editing',
      shortfall: undefined,
      fields: {
        subject: 'プリンターの設置',
        category: 'Printer',
        inquiry: '新しいプリンターを設置したい',
        resolution: ['設置場所を確認', 'ドライバーを配布'],
        restricted: false,
        // The model drafts no desk: the form's (`all` until the editor picks one) stays.
        desk: 'all',
      },
    });
  });

  it('starts with the desk for everyone, which the editor may change (ADR 0029)', () => {
    const drafted = run(draft({}));
    expect(drafted.fields.desk).toBe('all');
    const edited = ticketDraftReducer(drafted, { type: 'edit', change: { desk: 'hr' } });
    expect(edited.fields).toEqual({ ...drafted.fields, desk: 'hr' });
  });

  it('marks a draft the model left incomplete, keeping its fields and a step to write in', () => {
    const state = run(draft({ complete: false, category: undefined, resolution: [] }));
    expect(state.phase).toBe('editing');
    expect(state.shortfall).toEqual({ kind: 'incomplete' });
    expect(state.fields.category).toBe('');
    expect(state.fields.resolution).toEqual(['']);
  });

  it('keeps whatever arrived when the stream ends with an error event', () => {
    const state = run(text('subject', 'VPN'), step(0, '再起動'), {
      type: 'event',
      event: {
        event: 'error',
        data: { code: 'model_stream_failed', message: 'boom', retryable: true },
      },
    });
    expect(state.phase).toBe('editing');
    expect(state.shortfall).toEqual({
      kind: 'failed',
      failure: { code: 'model_stream_failed', message: 'boom' },
    });
    expect(state.fields).toMatchObject({ subject: 'VPN', resolution: ['再起動'] });
  });

  it('says why when the error that cut the draft short follows the partial draft', () => {
    const state = run(draft({ complete: false, inquiry: '新しいプ' }), {
      type: 'event',
      event: {
        event: 'error',
        data: { code: 'model_stream_failed', message: 'boom', retryable: true },
      },
    });
    expect(state).toMatchObject({
      phase: 'editing',
      shortfall: { kind: 'failed', failure: { code: 'model_stream_failed' } },
      fields: { subject: 'プリンターの設置', inquiry: '新しいプ' },
    });
  });

  it('calls a stream that ended without the draft cut off, keeping what arrived', () => {
    const state = run(text('inquiry', '途中'), { type: 'stream_ended' });
    expect(state).toMatchObject({ phase: 'editing', shortfall: { kind: 'cut' } });
    expect(state.fields.inquiry).toBe('途中');
  });

  it('turns a refused request into an editable empty form that says why', () => {
    const failure = { code: 'daily_budget_exceeded', message: 'budget', httpStatus: 429 } as const;
    const state = run({ type: 'stream_failed', failure });
    expect(state).toMatchObject({ phase: 'editing', shortfall: { kind: 'failed', failure } });
  });

  it('ignores events that arrive after the form opened, so they never overwrite edits', () => {
    const state = run(
      draft({}),
      { type: 'edit', change: { subject: '手で直した件名' } },
      text('subject', '遅れた'),
      step(0, '遅れた手順'),
      draft({ subject: '二通目' }),
      { type: 'stream_ended' },
    );
    expect(state.fields.subject).toBe('手で直した件名');
    expect(state.fields.resolution[0]).toBe('設置場所を確認');
    expect(state.shortfall).toBeUndefined();
  });

  it('does not let staff edit while the draft is still arriving', () => {
    const state = run(
      text('subject', 'A'),
      { type: 'edit', change: { subject: 'B' } },
      {
        type: 'add_step',
      },
    );
    expect(state.fields).toMatchObject({ subject: 'A', resolution: [] });
  });
});

describe('ticketDraftReducer while staff edit', () => {
  const editing = run(draft({ resolution: ['一', '二', '三'] }));

  it('edits fields and steps, adds, removes and moves steps', () => {
    const state = [
      { type: 'edit', change: { category: 'Network', restricted: true } },
      { type: 'edit_step', index: 1, text: '二（改）' },
      { type: 'add_step' },
      { type: 'edit_step', index: 3, text: '四' },
      { type: 'move_step', index: 3, by: -1 },
      { type: 'remove_step', index: 0 },
    ].reduce<TicketDraftState>(
      (current, action) => ticketDraftReducer(current, action as TicketDraftAction),
      editing,
    );
    expect(state.fields).toMatchObject({
      category: 'Network',
      restricted: true,
      resolution: ['二（改）', '四', '三'],
    });
  });

  it('leaves the order alone when a step would move past either end', () => {
    const up = ticketDraftReducer(editing, { type: 'move_step', index: 0, by: -1 });
    const down = ticketDraftReducer(editing, { type: 'move_step', index: 2, by: 1 });
    expect(up.fields.resolution).toEqual(['一', '二', '三']);
    expect(down.fields.resolution).toEqual(['一', '二', '三']);
  });

  it('locks the form while publishing and reopens it with the refusal', () => {
    const publishing = ticketDraftReducer(editing, { type: 'publish_started' });
    expect(publishing.phase).toBe('publishing');
    expect(ticketDraftReducer(publishing, { type: 'edit', change: { subject: 'x' } })).toBe(
      publishing,
    );
    const failure = {
      code: 'bad_request',
      message: 'subject: subject must be one line',
      httpStatus: 400,
      field: 'subject',
    } as const;
    const refused = ticketDraftReducer(publishing, { type: 'publish_failed', failure });
    expect(refused).toMatchObject({ phase: 'editing', publishFailure: failure });
    expect(ticketDraftReducer(refused, { type: 'publish_started' }).publishFailure).toBeUndefined();
  });
});
