import { describe, expect, it } from 'vitest';
import {
  chatStoreReducer,
  initialChatStoreState,
} from '../../../web/src/state/chat-store-reducer.js';
import { meta, token } from '../support/test-events.js';

describe('chatStoreReducer', () => {
  it('keeps each conversation’s stream under its own key', () => {
    let state = chatStoreReducer(initialChatStoreState, {
      type: 'conversation',
      key: 'A',
      action: { type: 'send', requestId: 'ra', message: 'a', clientMessageId: 'cm-a' },
    });
    state = chatStoreReducer(state, {
      type: 'conversation',
      key: 'B',
      action: { type: 'send', requestId: 'rb', message: 'b', clientMessageId: 'cm-b' },
    });
    state = chatStoreReducer(state, {
      type: 'conversation',
      key: 'A',
      action: { type: 'event', requestId: 'ra', event: token('for A') },
    });
    expect(state.views.A?.bubbles.at(-1)).toMatchObject({ text: 'for A' });
    expect(state.views.B?.bubbles.at(-1)).toMatchObject({ text: '' });
  });

  it('moves a draft under its real id when meta names it', () => {
    let state = chatStoreReducer(initialChatStoreState, {
      type: 'conversation',
      key: 'draft:1',
      action: { type: 'send', requestId: 'r', message: 'm', clientMessageId: 'cm-1' },
    });
    state = chatStoreReducer(state, { type: 'adopt', from: 'draft:1', to: 'C1' });
    state = chatStoreReducer(state, {
      type: 'conversation',
      key: 'C1',
      action: { type: 'event', requestId: 'r', event: meta() },
    });
    expect(Object.keys(state.views)).toEqual(['C1']);
    expect(state.views.C1?.conversationId).toBe('C1');
  });

  it('forgets a deleted conversation', () => {
    const state = chatStoreReducer(
      { views: { C1: { bubbles: [] } } },
      { type: 'forget', key: 'C1' },
    );
    expect(state.views).toEqual({});
  });
});
