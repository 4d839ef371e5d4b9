import { describe, expect, it } from 'vitest';
import { rebuildFromTurns } from '../../../web/src/state/rebuild-from-turns.js';
import { selectKnowledgePlaces } from '../../../web/src/state/select-inquiry-action-places.js';
import { selectVersions } from '../../../web/src/state/select-versions.js';
import { answer, storedTurn as turn } from '../support/test-events.js';

const answerTurn = (seq: number, inquiryId: string, fields = {}) =>
  turn(seq, { role: 'assistant', kind: 'answer', inquiryId, result: answer, ...fields });

const published = {
  inquiryId: 'inq-2',
  issueId: '900001',
  subject: 'VPN',
  restricted: false,
  publishedAt: '2026-12-01T10:00:00Z',
};

function places(turns: ReturnType<typeof turn>[], knowledge = [published]) {
  const view = rebuildFromTurns({ conversationId: 'C1', title: '', version: 1, turns, knowledge });
  const shown = selectVersions(view.bubbles).bubbles;
  return Object.fromEntries(selectKnowledgePlaces(view.bubbles, shown, view.knowledge));
}

describe('selectKnowledgePlaces', () => {
  it('offers saving on the last answer of a solved inquiry and the badge on a published one', () => {
    expect(
      places([
        turn(1, { inquiryId: 'inq-1' }),
        answerTurn(2, 'inq-1'),
        turn(3, { inquiryId: 'inq-2' }),
        answerTurn(4, 'inq-2'),
        turn(5, { inquiryId: 'inq-2', kind: 'question' }),
        answerTurn(6, 'inq-2'),
      ]),
    ).toEqual({
      'turn-2': { inquiryId: 'inq-1', canSave: true },
      'turn-6': { inquiryId: 'inq-2', published, canSave: false },
    });
  });

  it('offers nothing on an inquiry whose latest answer is a clarification, failed or stopped', () => {
    const clarification = {
      response_type: 'clarification' as const,
      general_advice: 'どれ？',
      question: 'どれ？',
      options: ['A'],
    };
    expect(
      places(
        [
          turn(1, { inquiryId: 'inq-1' }),
          turn(2, {
            role: 'assistant',
            kind: 'clarification',
            inquiryId: 'inq-1',
            result: clarification,
          }),
          turn(3, { inquiryId: 'inq-3' }),
          answerTurn(4, 'inq-3', { status: 'stopped' }),
          turn(5, { inquiryId: 'inq-4' }),
          answerTurn(6, 'inq-4', { status: 'failed', result: undefined }),
        ],
        [],
      ),
    ).toEqual({});
  });

  it('judges the newest version of a regenerated question, wherever staff browse', () => {
    const turns = [
      turn(1, { inquiryId: 'inq-1', text: 'Q' }),
      answerTurn(2, 'inq-1'),
      turn(3, { inquiryId: 'inq-1', text: 'Q', supersedes: 1 }),
      answerTurn(4, 'inq-1', { status: 'stopped' }),
    ];
    const view = rebuildFromTurns({ conversationId: 'C1', title: '', version: 1, turns });
    const olderShown = selectVersions(view.bubbles, { 'turn-1': 0 }).bubbles;
    expect(selectKnowledgePlaces(view.bubbles, olderShown).size).toBe(0);
  });

  it('waits for an answer the server has not stored yet', () => {
    const view = rebuildFromTurns({
      conversationId: 'C1',
      title: '',
      version: 1,
      turns: [
        turn(1, { inquiryId: 'inq-1' }),
        answerTurn(2, 'inq-1'),
        turn(3, { inquiryId: 'inq-1' }),
      ],
      answering: { seq: 3, until: '2026-12-01T10:00:00Z' },
    });
    expect(selectKnowledgePlaces(view.bubbles, view.bubbles).size).toBe(0);
  });
});
