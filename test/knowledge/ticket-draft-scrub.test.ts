import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../functions/contract/chat-events.js';
import {
  buildDraftRequest,
  draftScrubOptions,
  inquiryTranscript,
  scrubDraft,
  streamTicketDraft,
} from '../../functions/knowledge/ticket-draft.js';
import { results, scriptedModel, storedTurn } from '../support/chat-core-harness.js';

/**
 * Knowledge capture's scrub (ADR 0019): the draft the editor sees holds placeholders instead of
 * the personal data the inquiry held — the owner's id, people the inquiry names, addresses,
 * numbers, passwords — also when the model's fragments split a name or a number.
 */

const owner = { tenantId: 't1', userId: 'taro.yamada@example.co.jp' };

const conversation = [
  storedTurn(1, {
    inquiryId: 'A',
    text: '経理部の佐藤さん（内線ではなく 090-1234-5678）からVPNに接続できないと連絡がありました。',
  }),
  storedTurn(2, {
    inquiryId: 'A',
    role: 'assistant',
    kind: 'answer',
    text: 'VPN',
    result: results('VPNクライアントを更新してください', ['1002']) as never,
  }),
];

/** What a model might write from that inquiry: everything the scrub must take out. */
const leakyDraft = {
  subject: '佐藤さんがVPNに接続できない',
  category: 'VPN',
  inquiry:
    '経理部の佐藤から連絡（090-1234-5678、sato.k@example.co.jp）。Yamada Taro が受付。パスワード：Summer2026!',
  resolution: ['佐藤のPCでVPNクライアントを更新する', 'taro.yamada に結果を報告する'],
  restricted: false,
};

const expectedDraft = {
  subject: '[氏名]さんがVPNに接続できない',
  category: 'VPN',
  inquiry: '経理部の[氏名]から連絡（[電話]、[メール]）。[氏名] が受付。パスワード：[秘密]',
  resolution: ['[氏名]のPCでVPNクライアントを更新する', '[氏名] に結果を報告する'],
  restricted: false,
};

const LEAKS = ['佐藤', '090-1234-5678', 'sato.k@', 'Yamada', 'yamada', 'Summer2026'];

async function streamLeakyDraft(fragmentSize: number) {
  const transcript = inquiryTranscript(conversation, 'A');
  const { model } = scriptedModel({ kind: 'answer', answer: leakyDraft, fragmentSize });
  const events: StreamEvent[] = [];
  const outcome = await streamTicketDraft({
    model,
    request: buildDraftRequest(transcript, 2048),
    signal: new AbortController().signal,
    send: (event) => events.push(event),
    scrub: await draftScrubOptions(owner, transcript),
  });
  return { events, outcome };
}

describe('the streamed draft', () => {
  for (const fragmentSize of [1, 2, 3, 7, 1000]) {
    it(`sends no personal data in any event, however the fragments split it (fragments of ${fragmentSize})`, async () => {
      const { events, outcome } = await streamLeakyDraft(fragmentSize);
      const sent = JSON.stringify(events);
      for (const leak of LEAKS) expect(sent).not.toContain(leak);
      expect(events.at(-1)).toEqual({
        event: 'draft',
        data: { ...expectedDraft, complete: true },
      });
      expect(outcome.scrubbed).toEqual({
        name: 5,
        email: 1,
        phone: 1,
        secret: 1,
        myNumber: 0,
        card: 0,
      });
    });
  }

  it('sends each text field once, whole and scrubbed, so the streamed text is the draft’s', async () => {
    const { events } = await streamLeakyDraft(1);
    const texts = events.filter((event) => event.event === 'draft_text').map((event) => event.data);
    expect(texts).toEqual([
      { field: 'subject', content: expectedDraft.subject },
      { field: 'inquiry', content: expectedDraft.inquiry },
    ]);
    const steps = events.filter((event) => event.event === 'draft_step').map((event) => event.data);
    expect(steps).toEqual([
      { index: 0, text: expectedDraft.resolution[0] },
      { index: 1, text: expectedDraft.resolution[1] },
    ]);
    // The inquiry goes out before the first step: the form still fills field by field.
    const order = events.map((event) => event.event);
    expect(order.indexOf('draft_text', 1)).toBeLessThan(order.indexOf('draft_step'));
  });

  it('sends a truncated field scrubbed too (the model stopped inside it)', async () => {
    const transcript = inquiryTranscript(conversation, 'A');
    const json = JSON.stringify(leakyDraft);
    const cut = json.slice(0, json.indexOf('sato.k@') + 'sato.k@example.co.jp'.length);
    const { model } = scriptedModel({ kind: 'raw', fragments: [cut.slice(0, 40), cut.slice(40)] });
    const events: StreamEvent[] = [];
    await streamTicketDraft({
      model,
      request: buildDraftRequest(transcript, 2048),
      signal: new AbortController().signal,
      send: (event) => events.push(event),
      scrub: await draftScrubOptions(owner, transcript),
    });
    const sent = JSON.stringify(events);
    for (const leak of ['佐藤', '090-1234-5678', 'sato.k@']) expect(sent).not.toContain(leak);
    expect(events.at(-1)).toMatchObject({ event: 'draft', data: { complete: false } });
  });
});

describe('the capture’s person fields', () => {
  it('are the owner (its id and address) and everyone the inquiry names', async () => {
    const options = await draftScrubOptions(owner, inquiryTranscript(conversation, 'A'), {
      dictionary: ['鈴木 一郎'],
    });
    expect(options.people).toEqual([
      { names: [], userIds: [owner.userId], emails: [owner.userId] },
      { names: ['佐藤'] },
    ]);
    expect(options.dictionary).toEqual(['鈴木 一郎']);
    expect(options.language).toBe('ja');
  });

  it('do not turn a dev user id like local-user into the words “local” and “user”', async () => {
    const options = await draftScrubOptions(
      { tenantId: 't1', userId: 'local-user' },
      inquiryTranscript(conversation, 'A'),
    );
    const { draft } = scrubDraft(
      { subject: 'user cannot sign in', inquiry: 'local-user reported it', resolution: [] },
      options,
    );
    expect(draft).toEqual({
      subject: 'user cannot sign in',
      inquiry: '[氏名] reported it',
      resolution: [],
    });
  });
});
