import { describe, expect, it } from 'vitest';
import { MAX_RESOLUTION_STEPS, MAX_SUBJECT_LENGTH } from '../../../functions/contract/knowledge.js';
import type { TicketDraftFields } from '../../../web/src/knowledge/ticket-draft-reducer.js';
import {
  draftFormFieldOf,
  validateTicketDraft,
} from '../../../web/src/knowledge/validate-ticket-draft.js';

const valid: TicketDraftFields = {
  subject: '  Quokka Badge Printer のカードが詰まる ',
  category: 'Printer',
  inquiry: 'バッジプリンターでカードが詰まる',
  resolution: ['電源を切る', ' カードを取り除く '],
  restricted: false,
  desk: 'all',
};

describe('validateTicketDraft', () => {
  it('accepts a complete draft and trims it as the server does', () => {
    expect(validateTicketDraft(valid)).toEqual({
      ok: true,
      ticket: {
        subject: 'Quokka Badge Printer のカードが詰まる',
        category: 'Printer',
        inquiry: 'バッジプリンターでカードが詰まる',
        resolution: ['電源を切る', 'カードを取り除く'],
        restricted: false,
        desk: 'all',
      },
    });
  });

  it('names each field that is wrong and how', () => {
    const check = validateTicketDraft({
      subject: '一行目\n二行目',
      category: '',
      inquiry: ' \u200b ',
      resolution: ['手順', '', 'x'.repeat(1001)],
      restricted: true,
      desk: 'all',
    });
    expect(check).toEqual({
      ok: false,
      problems: {
        subject: 'notOneLine',
        category: 'noCategory',
        inquiry: 'empty',
        steps: { 1: 'empty', 2: 'tooLong' },
      },
    });
  });

  it('refuses a subject over the limit, a lone surrogate and a draft without steps', () => {
    const check = validateTicketDraft({
      ...valid,
      subject: 'あ'.repeat(MAX_SUBJECT_LENGTH + 1),
      inquiry: 'broken \ud800 text',
      resolution: [],
    });
    expect(check).toEqual({
      ok: false,
      problems: { subject: 'tooLong', inquiry: 'invalidText', resolution: 'noSteps', steps: {} },
    });
  });

  it('refuses more steps than a ticket may have', () => {
    const check = validateTicketDraft({
      ...valid,
      resolution: Array.from({ length: MAX_RESOLUTION_STEPS + 1 }, (_, i) => `手順 ${i}`),
    });
    expect(check).toMatchObject({ ok: false, problems: { resolution: 'tooManySteps' } });
  });
});

describe('draftFormFieldOf', () => {
  it.each([
    ['subject', 'subject'],
    ['category', 'category'],
    ['inquiry', 'inquiry'],
    ['resolution.3', 'resolution'],
    ['resolution', 'resolution'],
    ['conversationId', undefined],
    ['subjects', undefined],
    [undefined, undefined],
  ])('reads the request field %j as the form field %s', (requestField, formField) => {
    expect(draftFormFieldOf(requestField)).toBe(formField);
  });
});
