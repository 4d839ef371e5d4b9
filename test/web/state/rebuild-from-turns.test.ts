import { describe, expect, it } from 'vitest';
import { rebuildFromTurns } from '../../../web/src/state/rebuild-from-turns.js';
import { answer, storedTurn as turn } from '../support/test-events.js';

describe('rebuildFromTurns', () => {
  const detail = {
    conversationId: 'C1',
    title: 'ログイン',
    version: 7,
    turns: [
      turn(1, { text: 'ログインできない' }),
      turn(2, {
        role: 'assistant',
        kind: 'clarification',
        text: 'どのシステムですか？',
        result: {
          response_type: 'clarification',
          general_advice: 'どのシステムですか？',
          question: 'どれ？',
          options: ['Salesforce', 'VPN'],
        },
      }),
      turn(3, { kind: 'option', text: 'Salesforce', clientMessageId: 'cm-3' }),
      turn(4, {
        role: 'assistant',
        kind: 'answer',
        text: answer.general_advice,
        result: answer,
        modelId: 'offline.service-desk-responder',
      }),
      turn(5, { text: 'プリンター', inquiryId: 'inq-2', clientMessageId: 'cm-5' }),
      turn(6, {
        role: 'assistant',
        kind: 'answer',
        text: '途中まで',
        status: 'stopped',
        inquiryId: 'inq-2',
      }),
    ],
  };

  it('rebuilds the files of a stored question, and sends them again on a retry', () => {
    const attachments = [
      { id: 'A1', type: 'image/png' as const, size: 1000, width: 800, height: 600 },
      { id: 'A2', type: 'text/plain' as const, size: 120, name: 'error.log' },
    ];
    const view = rebuildFromTurns({
      conversationId: 'C2',
      title: 'これが出ます',
      version: 2,
      turns: [
        turn(1, { text: 'これが出ます', clientMessageId: 'cm-1', attachments }),
        turn(2, { role: 'assistant', kind: 'answer', text: '', status: 'failed' }),
      ],
    });
    expect(view.bubbles[0]).toMatchObject({ kind: 'user', attachments });
    expect(view.bubbles[1]).toMatchObject({
      request: { message: 'これが出ます', clientMessageId: 'cm-1', attachments },
    });
  });

  it('rebuilds the same bubbles the live stream showed', () => {
    const view = rebuildFromTurns(detail);
    expect(view).toMatchObject({ conversationId: 'C1', title: 'ログイン', version: 7 });
    expect(view.bubbles.map((b) => [b.kind, b.inquiryId])).toEqual([
      ['user', 'inq-1'],
      ['assistant', 'inq-1'],
      ['user', 'inq-1'],
      ['assistant', 'inq-1'],
      ['user', 'inq-2'],
      ['assistant', 'inq-2'],
    ]);
    expect(view.bubbles[3]).toMatchObject({
      status: 'complete',
      tickets: answer.results,
      result: answer,
    });
    expect(view.bubbles[1]).toMatchObject({ result: { options: ['Salesforce', 'VPN'] } });
  });

  it('keeps each answer’s turn number and stored feedback, so ratings survive a reload', () => {
    const feedback = { rating: 'down' as const, reason: 'wrong' as const, updatedAt: 'T' };
    const view = rebuildFromTurns({
      ...detail,
      turns: detail.turns.map((stored) => (stored.seq === 4 ? { ...stored, feedback } : stored)),
    });
    expect(view.bubbles[3]).toMatchObject({ seq: 4, feedback });
    expect(view.bubbles[5]).toMatchObject({ seq: 6, feedback: undefined });
  });

  it('rebuilds the notices an answer was given, marked as from the history', () => {
    const surge = { topic: 'outlook', inquiries: 4, staff: 3, since: '2026-11-30T09:30:00Z' };
    const knownIssues = [
      { id: 'K1', title: 'Outlook 障害', note: 'OWA をお使いください', author: 'lead', at: 'T' },
    ];
    const view = rebuildFromTurns({
      ...detail,
      turns: detail.turns.map((stored) =>
        stored.seq === 4 ? { ...stored, notices: { surge, knownIssues } } : stored,
      ),
    });
    expect(view.bubbles[3]).toMatchObject({ surge, knownIssues, noticesFromHistory: true });
    expect(view.bubbles[5]).not.toHaveProperty('surge');
    expect(view.bubbles[5]).not.toHaveProperty('noticesFromHistory');
  });

  it('keeps the model id of a stored answer (the offline label reads it)', () => {
    const view = rebuildFromTurns(detail);
    expect(view.bubbles[3]).toMatchObject({ modelId: 'offline.service-desk-responder' });
    expect(view.bubbles[1]).toMatchObject({ modelId: undefined });
  });

  it('keeps a stopped answer stopped, retryable with the stored clientMessageId', () => {
    const last = rebuildFromTurns(detail).bubbles[5];
    expect(last).toMatchObject({
      status: 'stopped',
      text: '途中まで',
      request: { message: 'プリンター', clientMessageId: 'cm-5' },
    });
  });

  it('marks a failed turn as failed with an explanation code', () => {
    const failed = rebuildFromTurns({
      ...detail,
      turns: [
        turn(1, { text: 'q' }),
        turn(2, { role: 'assistant', kind: 'answer', status: 'failed' }),
      ],
    });
    expect(failed.bubbles[1]).toMatchObject({
      status: 'failed',
      error: { code: 'stored_failure' },
    });
  });
});
