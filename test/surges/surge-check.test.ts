import { describe, expect, it } from 'vitest';
import type { RetrievedTicket } from '../../functions/chat/ports.js';
import type { SurgeCounter } from '../../functions/surges/ports.js';
import { createSurgeCheck } from '../../functions/surges/surge-check.js';
import type { SurgeMark } from '../../functions/surges/surge-window.js';
import { silentLog } from '../support/silent-log.js';

/**
 * When the chat's count starts (ADR 0033, 0034): a subject's topic is known from the text, so it
 * is counted without waiting for retrieval; a symptom's waits for the tickets that decide its
 * category.
 */

const owner = { tenantId: 't1', userId: 'alice' };
const inquiry = (text: string) => ({ conversationId: 'c1', inquiryId: 'i1', text });
const hardwareTicket: RetrievedTicket = {
  issueId: '1',
  subject: 'PC',
  category: 'Hardware',
  restricted: false,
  text: '',
  score: 0.9,
};

function checkCounting() {
  const marks: SurgeMark[] = [];
  const errors: { message: string; fields: Record<string, unknown> }[] = [];
  const counter: SurgeCounter = {
    countInquiry: async (_scope, mark) => {
      marks.push(mark);
      return { topicKey: mark.topicKey, label: mark.label, slices: [] };
    },
    listTopics: async () => [],
  };
  const check = createSurgeCheck({
    counter,
    knownIssues: { listOpen: async () => [] },
    alerts: { surgeStarted: async () => undefined },
    minStaff: 3,
    windowMinutes: 60,
    staffHash: (who) => who.userId,
    log: {
      ...silentLog,
      error: (message, fields) => errors.push({ message, fields: { ...fields } }),
    },
    now: () => new Date('2026-12-07T09:00:00Z'),
    timeoutMs: 1_000,
  });
  return { check, marks, errors };
}

describe('countInquiry', () => {
  it("counts a subject's inquiry while retrieval is still running", async () => {
    const { check, marks } = checkCounting();
    const retrievalNeverEnds = new Promise<readonly RetrievedTicket[]>(() => undefined);
    await check.countInquiry(owner, inquiry('VPNに接続できない'), retrievalNeverEnds);
    expect(marks.map((mark) => mark.topicKey)).toEqual(['*|vpn']);
  });

  it("waits for the tickets to count a symptom's inquiry under their category", async () => {
    const { check, marks } = checkCounting();
    let deliver: (tickets: readonly RetrievedTicket[]) => void = () => undefined;
    const retrieval = new Promise<readonly RetrievedTicket[]>((resolve) => {
      deliver = resolve;
    });
    const counting = check.countInquiry(owner, inquiry('起動しない'), retrieval);
    await Promise.resolve();
    expect(marks).toEqual([]);
    deliver([hardwareTicket]);
    await counting;
    expect(marks.map((mark) => mark.topicKey)).toEqual(["hardware|won't boot"]);
  });

  it("leaves a symptom's inquiry uncounted when retrieval fails", async () => {
    const { check, marks } = checkCounting();
    const notice = await check.countInquiry(
      owner,
      inquiry('起動しない'),
      Promise.reject(new Error('Knowledge Base down')),
    );
    expect(notice).toBeUndefined();
    expect(marks).toEqual([]);
  });

  it('never rejects: a topic that cannot be read is logged and the inquiry left uncounted', async () => {
    const { check, marks, errors } = checkCounting();
    // Admission starts counts (ADR 0035): nothing a count meets may fail an admitted chat.
    const unreadable = [null] as unknown as readonly RetrievedTicket[];
    const notice = await check.countInquiry(
      owner,
      inquiry('起動しない'),
      Promise.resolve(unreadable),
    );
    expect(notice).toBeUndefined();
    expect(marks).toEqual([]);
    expect(errors.map((error) => [error.message, error.fields.operation])).toEqual([
      ['surge check failed', 'surge_count'],
    ]);
  });
});
