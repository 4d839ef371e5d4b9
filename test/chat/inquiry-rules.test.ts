import { describe, expect, it } from 'vitest';
import { AnswerInProgressError, NotLatestQuestionError } from '../../functions/chat/errors.js';
import {
  currentVersions,
  openInquiryAfterAssistantTurn,
  placeSupersedingTurn,
  placeUserTurn,
  splitInquiries,
} from '../../functions/chat/inquiry-rules.js';
import { storedTurn as turn } from '../support/chat-core-harness.js';

const fresh = () => 'NEW';

describe('placeUserTurn', () => {
  it('continues the inquiry whose clarification awaits a reply', () => {
    expect(placeUserTurn('A', 'continue', fresh)).toEqual({ kind: 'option', inquiryId: 'A' });
  });

  it('starts a new inquiry when none awaits a reply (after results, a failure or a stop)', () => {
    expect(placeUserTurn(undefined, 'continue', fresh)).toEqual({
      kind: 'question',
      inquiryId: 'NEW',
    });
  });

  it('starts a new inquiry when staff ask for one, even while a clarification awaits a reply', () => {
    expect(placeUserTurn('A', 'new', fresh)).toEqual({ kind: 'question', inquiryId: 'NEW' });
  });
});

describe('openInquiryAfterAssistantTurn', () => {
  const clarification = { inquiryId: 'A', kind: 'clarification', status: 'complete' } as const;

  it('opens the inquiry for a complete clarification of the latest inquiry', () => {
    expect(openInquiryAfterAssistantTurn({ latestInquiryId: 'A' }, clarification)).toBe('A');
  });

  it.each([
    ['a complete results answer', { kind: 'answer', status: 'complete' }],
    ['a truncated results answer', { kind: 'answer', status: 'truncated' }],
    ['a failed answer', { kind: 'answer', status: 'failed' }],
    ['a stopped answer', { kind: 'answer', status: 'stopped' }],
    ['a stopped clarification', { kind: 'clarification', status: 'stopped' }],
    ['a truncated clarification', { kind: 'clarification', status: 'truncated' }],
  ] as const)('closes the inquiry after %s', (_name, answer) => {
    expect(
      openInquiryAfterAssistantTurn(
        { openInquiryId: 'A', latestInquiryId: 'A' },
        { inquiryId: 'A', ...answer },
      ),
    ).toBeUndefined();
  });

  it('never opens an older inquiry over a newer one (a retry answered late)', () => {
    expect(openInquiryAfterAssistantTurn({ latestInquiryId: 'B' }, clarification)).toBeUndefined();
  });

  it('leaves another inquiry open when an older one is answered', () => {
    expect(
      openInquiryAfterAssistantTurn(
        { openInquiryId: 'B', latestInquiryId: 'B' },
        { inquiryId: 'A', kind: 'answer', status: 'failed' },
      ),
    ).toBe('B');
  });
});

describe('placeSupersedingTurn', () => {
  const latest = { seq: 3, kind: 'option', inquiryId: 'A' } as const;
  const now = new Date('2026-01-01T00:00:00Z');

  it('puts a regenerated or edited message in the inquiry and kind of the turn it replaces', () => {
    expect(placeSupersedingTurn(latest, 3, undefined, now)).toEqual({
      kind: 'option',
      inquiryId: 'A',
      supersedes: 3,
    });
  });

  it('refuses any turn but the latest user turn', () => {
    for (const seq of [1, 2, 4]) {
      expect(() => placeSupersedingTurn(latest, seq, undefined, now)).toThrow(
        NotLatestQuestionError,
      );
    }
    expect(() => placeSupersedingTurn(undefined, 1, undefined, now)).toThrow(
      NotLatestQuestionError,
    );
  });

  it('refuses while the answer to that turn is still being generated, not after its deadline', () => {
    const inFlight = { seq: 3, until: '2026-01-01T00:05:00Z' };
    expect(() => placeSupersedingTurn(latest, 3, inFlight, now)).toThrow(AnswerInProgressError);
    const expired = { seq: 3, until: '2025-12-31T23:55:00Z' };
    expect(placeSupersedingTurn(latest, 3, expired, now).supersedes).toBe(3);
  });
});

describe('currentVersions', () => {
  const answer = (seq: number, inquiryId = 'A') =>
    turn(seq, { role: 'assistant', kind: 'answer', inquiryId, text: `answer ${seq}` });

  it('is the history itself when nothing was superseded', () => {
    const turns = [turn(1, { inquiryId: 'A' }), answer(2)];
    expect(currentVersions(turns)).toBe(turns);
  });

  it('leaves out superseded user turns and their answers, keeping later versions', () => {
    const turns = [
      turn(1, { inquiryId: 'A', text: 'v1' }),
      answer(2),
      turn(3, { inquiryId: 'A', text: 'v2', supersedes: 1 }),
      answer(4),
      answer(5),
      turn(6, { inquiryId: 'A', text: 'v3', supersedes: 3 }),
      answer(7),
    ];
    expect(currentVersions(turns).map((kept) => kept.seq)).toEqual([6, 7]);
  });

  it('keeps the turns before the superseded one (a clarification and its question)', () => {
    const turns = [
      turn(1, { inquiryId: 'A', text: 'ログインできない' }),
      turn(2, { role: 'assistant', kind: 'clarification', inquiryId: 'A', text: 'どれ？' }),
      turn(3, { inquiryId: 'A', kind: 'option', text: 'Salesforce' }),
      answer(4),
      turn(5, { inquiryId: 'A', kind: 'option', text: 'Teams', supersedes: 3 }),
    ];
    expect(currentVersions(turns).map((kept) => kept.seq)).toEqual([1, 2, 5]);
  });
});

describe('splitInquiries with superseded turns', () => {
  it('builds the working buffer and the archive from the current versions only', () => {
    const turns = [
      turn(1, { inquiryId: 'A', text: 'プリンター' }),
      turn(2, { role: 'assistant', kind: 'answer', inquiryId: 'A', text: 'old advice' }),
      turn(3, { inquiryId: 'A', text: 'プリンター（編集）', supersedes: 1 }),
      turn(4, { role: 'assistant', kind: 'answer', inquiryId: 'A', text: 'new advice' }),
      turn(5, { inquiryId: 'B', text: 'VPN' }),
    ];
    const { working, archive } = splitInquiries(turns, 'B');
    expect(working.map((kept) => kept.seq)).toEqual([5]);
    expect(archive).toEqual([
      { inquiryId: 'A', question: 'プリンター（編集）', followUps: [], advice: 'new advice' },
    ]);
  });
});
