import { describe, expect, it } from 'vitest';
import { conversationReducer } from '../../../web/src/state/conversation-reducer.js';
import { rebuildFromTurns } from '../../../web/src/state/rebuild-from-turns.js';
import { selectVersions } from '../../../web/src/state/select-versions.js';
import { answer, meta, storedTurn as turn } from '../support/test-events.js';

const reply = (seq: number, advice: string, inquiryId = 'inq-1') =>
  turn(seq, {
    role: 'assistant',
    kind: 'answer',
    inquiryId,
    text: advice,
    result: { ...answer, general_advice: advice },
  });

/** プリンター answered; VPN asked, answered, then edited to VPN(2) and regenerated as VPN(3). */
const view = rebuildFromTurns({
  conversationId: 'C1',
  title: 'プリンター',
  version: 10,
  turns: [
    turn(1, { text: 'プリンター' }),
    reply(2, 'A1'),
    turn(3, { text: 'VPN', inquiryId: 'inq-2' }),
    reply(4, 'A2', 'inq-2'),
    turn(5, { text: 'VPN(2)', inquiryId: 'inq-2', supersedes: 3 }),
    reply(6, 'A3', 'inq-2'),
    turn(7, { text: 'VPN(3)', inquiryId: 'inq-2', supersedes: 5 }),
    reply(8, 'A4', 'inq-2'),
  ],
});
const texts = (bubbles: readonly { text: string }[]) => bubbles.map((bubble) => bubble.text);

describe('selectVersions', () => {
  it('shows the newest version of each question with its answer, and where it stands', () => {
    const selected = selectVersions(view.bubbles);
    expect(texts(selected.bubbles)).toEqual(['プリンター', 'A1', 'VPN(3)', 'A4']);
    expect([...selected.positions.entries()]).toEqual([
      ['turn-7', { chain: 'turn-3', index: 2, count: 3 }],
    ]);
  });

  it('shows an older version, question and answer, when staff browse back', () => {
    const selected = selectVersions(view.bubbles, { 'turn-3': 0 });
    expect(texts(selected.bubbles)).toEqual(['プリンター', 'A1', 'VPN', 'A2']);
    expect(selected.positions.get('turn-3')).toEqual({ chain: 'turn-3', index: 0, count: 3 });
    expect(texts(selectVersions(view.bubbles, { 'turn-3': 1 }).bubbles).slice(2)).toEqual([
      'VPN(2)',
      'A3',
    ]);
  });

  it('falls back to the newest version for an index the question does not have', () => {
    expect(texts(selectVersions(view.bubbles, { 'turn-3': 5 }).bubbles).at(-2)).toBe('VPN(3)');
  });

  it('is the conversation itself when nothing was superseded', () => {
    const plain = view.bubbles.slice(0, 4);
    const selected = selectVersions(plain);
    expect(selected.bubbles).toEqual(plain);
    expect(selected.positions.size).toBe(0);
  });

  it('groups a version sent live, before the server named its seq, with the one it supersedes', () => {
    const sent = conversationReducer(view, {
      type: 'send',
      requestId: 'r1',
      message: 'VPN(4)',
      clientMessageId: 'cm-4',
      supersedes: 7,
    });
    const live = selectVersions(sent.bubbles);
    expect(texts(live.bubbles).slice(2)).toEqual(['VPN(4)', '']);
    expect(live.positions.get('user-r1')).toEqual({ chain: 'turn-3', index: 3, count: 4 });
    // The answer's request remembers what it superseded, so a retry sends the same message.
    expect(sent.bubbles.at(-1)).toMatchObject({
      request: { message: 'VPN(4)', clientMessageId: 'cm-4', supersedes: 7 },
    });

    // `meta` names the stored seq: the live version can itself be edited next.
    const metaEvent = meta('inq-2');
    const tagged = conversationReducer(sent, {
      type: 'event',
      requestId: 'r1',
      event: { ...metaEvent, data: { ...metaEvent.data, userSeq: 9 } } as typeof metaEvent,
    });
    expect(tagged.bubbles.at(-2)).toMatchObject({ kind: 'user', seq: 9, supersedes: 7 });
  });
});

describe('rebuildFromTurns with versions', () => {
  it('keeps seq and supersedes on user bubbles and on the retry request of their answer', () => {
    const rebuilt = rebuildFromTurns({
      conversationId: 'C1',
      title: 'VPN',
      version: 4,
      turns: [
        turn(1, { text: 'VPN' }),
        reply(2, 'A1'),
        turn(3, { text: 'VPN', supersedes: 1, clientMessageId: 'cm-3' }),
        turn(4, { role: 'assistant', kind: 'answer', text: '', status: 'failed' }),
      ],
    });
    expect(rebuilt.bubbles[2]).toMatchObject({ kind: 'user', seq: 3, supersedes: 1 });
    expect(rebuilt.bubbles[3]).toMatchObject({
      request: { message: 'VPN', clientMessageId: 'cm-3', supersedes: 1 },
    });
  });
});
