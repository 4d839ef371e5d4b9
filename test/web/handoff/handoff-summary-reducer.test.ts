import { describe, expect, it } from 'vitest';
import type { HandoffStreamEvent } from '../../../functions/contract/chat-events.js';
import {
  keepHandoffSummary,
  loadKeptHandoffSummary,
} from '../../../web/src/handoff/handoff-storage.js';
import {
  EMPTY_HANDOFF_FIELDS,
  type HandoffSummaryAction,
  type HandoffSummaryState,
  handoffSummaryReducer,
  initialHandoffSummaryState,
  summaryOfFields,
} from '../../../web/src/handoff/handoff-summary-reducer.js';
import type { Bubble } from '../../../web/src/state/bubble.js';
import { selectHandoffPlaces } from '../../../web/src/state/select-inquiry-action-places.js';

const event = (chatEvent: HandoffStreamEvent): HandoffSummaryAction => ({
  type: 'event',
  event: chatEvent,
});
const run = (actions: readonly HandoffSummaryAction[], from = initialHandoffSummaryState('ja')) =>
  actions.reduce<HandoffSummaryState>(handoffSummaryReducer, from);

const summary = {
  symptom: 'VPNに接続できない',
  environment: 'Windows 11',
  tried: ['クライアントを更新', '証明書を確認'],
  told_requester: '更新を案内',
  open_questions: ['証明書の期限は？'],
};

describe('the hand-off summary reducer', () => {
  it('grows text fields, places items by index, then takes the whole summary for editing', () => {
    const streaming = run([
      event({ event: 'summary_text', data: { field: 'symptom', content: 'VPNに' } }),
      event({ event: 'summary_text', data: { field: 'symptom', content: '接続できない' } }),
      event({
        event: 'summary_item',
        data: { field: 'tried', index: 0, text: 'クライアントを更新' },
      }),
      event({ event: 'summary_item', data: { field: 'tried', index: 1, text: '証明書を\n確認' } }),
    ]);
    expect(streaming.phase).toBe('streaming');
    expect(streaming.fields).toMatchObject({
      symptom: 'VPNに接続できない',
      tried: 'クライアントを更新\n証明書を 確認',
    });
    // Edits wait for the stream to end.
    expect(run([{ type: 'edit', field: 'symptom', value: 'x' }], streaming)).toBe(streaming);

    const done = run(
      [
        event({
          event: 'summary',
          data: { ...summary, language: 'en', outcome: 'no_results', complete: true },
        }),
      ],
      streaming,
    );
    expect(done).toEqual({
      phase: 'editing',
      language: 'en',
      outcome: 'no_results',
      fields: {
        symptom: 'VPNに接続できない',
        environment: 'Windows 11',
        tried: 'クライアントを更新\n証明書を確認',
        told_requester: '更新を案内',
        open_questions: '証明書の期限は？',
      },
    });
    const edited = run([{ type: 'edit', field: 'tried', value: 'a\n\n b \n' }], done);
    expect(summaryOfFields(edited.fields)).toEqual({ ...summary, tried: ['a', 'b'] });
  });

  it('says why a summary is unfinished: incomplete, cut off, or failed', () => {
    expect(
      run([
        event({
          event: 'summary',
          data: { ...summary, language: 'ja', outcome: 'solved', complete: false },
        }),
      ]).shortfall,
    ).toEqual({ kind: 'incomplete' });
    expect(
      run([
        event({ event: 'summary_text', data: { field: 'symptom', content: 'VPN' } }),
        { type: 'stream_ended' },
      ]),
    ).toMatchObject({ phase: 'editing', shortfall: { kind: 'cut' }, fields: { symptom: 'VPN' } });
    const failed = run([
      event({
        event: 'summary',
        data: { ...summary, language: 'ja', outcome: 'solved', complete: false },
      }),
      event({ event: 'error', data: { code: 'timeout', message: 'late', retryable: true } }),
      { type: 'stream_ended' },
    ]);
    expect(failed).toMatchObject({
      phase: 'editing',
      shortfall: { kind: 'failed', failure: { code: 'timeout' } },
    });
    expect(failed.fields.symptom).toBe(summary.symptom);
    expect(
      run([{ type: 'stream_failed', failure: { code: 'daily_budget_exceeded', httpStatus: 429 } }]),
    ).toMatchObject({ phase: 'editing', fields: EMPTY_HANDOFF_FIELDS });
  });

  it('starts over empty when a new summary is asked for', () => {
    const done = run([
      { type: 'restore', fields: { ...EMPTY_HANDOFF_FIELDS, symptom: 'old' }, language: 'ja' },
    ]);
    expect(run([{ type: 'start', language: 'en' }], done)).toEqual(
      initialHandoffSummaryState('en'),
    );
  });
});

describe('the kept hand-off summary', () => {
  it('is read back per conversation and inquiry, and an unreadable entry counts as none', () => {
    const entries = new Map<string, string>();
    const storage = {
      getItem: (key: string) => entries.get(key) ?? null,
      setItem: (key: string, value: string) => void entries.set(key, value),
    };
    const kept = {
      fields: { ...EMPTY_HANDOFF_FIELDS, symptom: 'VPN' },
      language: 'en' as const,
      outcome: 'solved' as const,
      unverifiedLinks: ['https://evil.example/ms'],
    };
    keepHandoffSummary('C1', 'I1', kept, storage);
    expect(loadKeptHandoffSummary('C1', 'I1', storage)).toEqual(kept);
    expect(loadKeptHandoffSummary('C1', 'I2', storage)).toBeUndefined();
    entries.set('handoff-summary:C1:I3', '{not json');
    expect(loadKeptHandoffSummary('C1', 'I3', storage)).toBeUndefined();
    const full = {
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    expect(() => keepHandoffSummary('C1', 'I1', kept, full)).not.toThrow();
  });
});

describe('selectHandoffPlaces', () => {
  const answer = (id: string, inquiryId: string | undefined, status: string): Bubble =>
    ({
      kind: 'assistant',
      id,
      inquiryId,
      status,
      text: '',
      tickets: [],
      steps: [],
    }) as unknown as Bubble;
  it('puts the action under the last finished answer of each inquiry, failed ones too', () => {
    const places = selectHandoffPlaces([
      answer('a1', 'A', 'complete'),
      answer('a2', 'A', 'failed'),
      answer('b1', 'B', 'streaming'),
      answer('c1', undefined, 'complete'),
    ]);
    expect([...places]).toEqual([['a2', 'A']]);
  });
});

describe('links in the hand-off summary (ADR 0013)', () => {
  it('keeps the summary’s unverified_links beside its fields', () => {
    const state = run([
      event({
        event: 'summary',
        data: {
          ...summary,
          symptom: '［リンク削除］ を開くとエラー',
          language: 'ja',
          outcome: 'solved',
          complete: true,
          unverified_links: ['https://evil.example/ms'],
        },
      }),
    ]);
    expect(state.unverifiedLinks).toEqual(['https://evil.example/ms']);
    expect(state.fields.symptom).toBe('［リンク削除］ を開くとエラー');
  });

  it('lists a kept summary’s removed links again after a reload', () => {
    const state = run([
      {
        type: 'restore',
        fields: EMPTY_HANDOFF_FIELDS,
        language: 'ja',
        unverifiedLinks: ['javascript:alert(1)'],
      },
    ]);
    expect(state.unverifiedLinks).toEqual(['javascript:alert(1)']);
  });

  it('removes and lists every link of a summary the server never checked (the stream was cut)', () => {
    const state = run([
      event({
        event: 'summary_text',
        data: {
          field: 'symptom',
          content: 'https://evil.example/x と https://support.microsoft.com',
        },
      }),
      { type: 'stream_ended' },
    ]);
    expect(state.fields.symptom).toBe('［リンク削除］ と ［リンク削除］');
    expect(state.unverifiedLinks).toEqual([
      'https://evil.example/x',
      'https://support.microsoft.com',
    ]);
    expect(state.shortfall).toEqual({ kind: 'cut' });
  });
});
