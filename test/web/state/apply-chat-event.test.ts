import { describe, expect, it } from 'vitest';
import { applyChatEvent } from '../../../web/src/state/apply-chat-event.js';
import type { AssistantBubble } from '../../../web/src/state/bubble.js';

const streaming: AssistantBubble = {
  kind: 'assistant',
  id: 'request-1',
  status: 'streaming',
  steps: [],
  text: '',
  tickets: [],
};
const surge = { topic: 'outlook', inquiries: 3, staff: 3, since: '2026-12-07T09:00:00.000Z' };
const issue = {
  id: '01JKNOWNISSUE0000000000001',
  title: 'Outlook outage',
  note: 'Use Outlook on the web.',
  author: 'lead',
  at: '2026-12-07T09:05:00.000Z',
};

describe('applyChatEvent: surges and known issues (ADR 0033)', () => {
  it('keeps the surge notice and each known issue once for the banners above the answer', () => {
    let bubble = applyChatEvent(streaming, { event: 'surge', data: surge });
    bubble = applyChatEvent(bubble, { event: 'known_issue', data: issue });
    const again = applyChatEvent(bubble, { event: 'known_issue', data: issue });
    expect(again).toBe(bubble);
    expect(bubble).toMatchObject({ surge, knownIssues: [issue] });
  });

  it('leaves a finished answer as it is', () => {
    const done: AssistantBubble = { ...streaming, status: 'complete' };
    expect(applyChatEvent(done, { event: 'surge', data: surge })).toBe(done);
  });
});
