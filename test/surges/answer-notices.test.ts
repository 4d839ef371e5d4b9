import { describe, expect, it } from 'vitest';
import { answerNoticesSchema, type KnownIssueNotice } from '../../functions/contract/surges.js';
import {
  ANSWER_NOTICE_LIMITS,
  ANSWER_NOTICES_MAX_BYTES,
  answerNoticesOf,
} from '../../functions/surges/answer-notices.js';

const surge = { topic: 'outlook', inquiries: 4, staff: 3, since: '2026-12-07T09:00:00.000Z' };
const issue = (id: string, fields: Partial<KnownIssueNotice> = {}): KnownIssueNotice => ({
  id,
  title: 'Outlook が起動しない障害',
  note: '復旧まで Outlook on the web をご利用ください。',
  author: 'Sato Hanako',
  at: '2026-12-07T09:10:00.000Z',
  ...fields,
});

describe('answerNoticesOf', () => {
  it('stores nothing for an answer without notices', () => {
    expect(answerNoticesOf(undefined, [])).toBeUndefined();
  });

  it('keeps the surge and the known issues as the stream sent them', () => {
    const outlook = issue('01KNOWN1', {
      workaround: 'ブラウザで https://outlook.office.com を開く',
      link: 'https://status.office.com',
    });
    const notices = answerNoticesOf(surge, [outlook, issue('01KNOWN2')]);
    expect(notices).toEqual({ surge, knownIssues: [outlook, issue('01KNOWN2')] });
    expect(answerNoticesSchema.parse(notices)).toEqual(notices);
    expect(answerNoticesOf(surge, [])).toEqual({ surge });
    expect(answerNoticesOf(undefined, [outlook])).toEqual({ knownIssues: [outlook] });
  });

  it('holds counts of a surge only, never anything more the notice might carry', () => {
    const carrying = { ...surge, askedBy: ['alice'] } as typeof surge;
    expect(answerNoticesOf(carrying, [])).toEqual({ surge });
  });

  it('caps the texts and the number of known issues, within the documented byte bound', () => {
    // Four-byte characters everywhere: the most each capped text can weigh in UTF-8.
    const wide = (length: number) => '𠮷'.repeat(length);
    const huge = (id: number) =>
      issue(`${id}${wide(500)}`, {
        title: wide(5000),
        note: wide(5000),
        workaround: wide(5000),
        author: wide(5000),
        at: wide(5000),
        link: `https://example.com/${wide(ANSWER_NOTICE_LIMITS.link - 20)}`,
      });
    const notices = answerNoticesOf(
      { ...surge, topic: wide(5000), since: wide(5000) },
      Array.from({ length: 10 }, (_, index) => huge(index)),
    );
    const kept = notices?.knownIssues ?? [];
    expect(kept.map((stored) => stored.id.slice(0, 1))).toEqual(['0', '1', '2']);
    expect(kept).toHaveLength(ANSWER_NOTICE_LIMITS.knownIssues);
    const length = (text: string | undefined) => Array.from(text ?? '').length;
    expect(length(kept[0]?.title)).toBe(ANSWER_NOTICE_LIMITS.title);
    expect(kept[0]?.title.endsWith('…')).toBe(true);
    expect(length(kept[0]?.note)).toBe(ANSWER_NOTICE_LIMITS.note);
    expect(length(kept[0]?.workaround)).toBe(ANSWER_NOTICE_LIMITS.workaround);
    expect(length(kept[0]?.author)).toBe(ANSWER_NOTICE_LIMITS.short);
    expect(length(notices?.surge?.topic)).toBe(ANSWER_NOTICE_LIMITS.short);
    // A link at its cap is kept whole; a cut link would point elsewhere, so a longer one is left out.
    expect(length(kept[0]?.link)).toBe(ANSWER_NOTICE_LIMITS.link);
    const tooLong = answerNoticesOf(undefined, [
      issue('01KNOWN3', { link: `https://example.com/${'a'.repeat(ANSWER_NOTICE_LIMITS.link)}` }),
    ]);
    expect(tooLong?.knownIssues?.[0]).not.toHaveProperty('link');
    expect(Buffer.byteLength(JSON.stringify(notices), 'utf8')).toBeLessThanOrEqual(
      ANSWER_NOTICES_MAX_BYTES,
    );
  });
});
