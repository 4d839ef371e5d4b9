import type { ConversationView } from './bubble.js';
import { emptyConversationView } from './bubble.js';
import type { ConversationAction } from './conversation-action.js';
import { conversationReducer } from './conversation-reducer.js';

/**
 * All conversations the tab knows, keyed by conversation id — or by a draft key (`draft:<uuid>`)
 * until the server's `meta` names a new conversation. Keying by id is what keeps a stream that is
 * still running in one conversation out of the one on screen.
 */
export interface ChatStoreState {
  readonly views: Readonly<Record<string, ConversationView>>;
}

export type ChatStoreAction =
  | { readonly type: 'conversation'; readonly key: string; readonly action: ConversationAction }
  /** A draft got its id from `meta`: move its view under the real key. */
  | { readonly type: 'adopt'; readonly from: string; readonly to: string }
  | { readonly type: 'forget'; readonly key: string };

export const initialChatStoreState: ChatStoreState = { views: {} };

export function chatStoreReducer(state: ChatStoreState, action: ChatStoreAction): ChatStoreState {
  switch (action.type) {
    case 'conversation': {
      const current = state.views[action.key] ?? emptyConversationView;
      const next = conversationReducer(current, action.action);
      return next === current ? state : { views: { ...state.views, [action.key]: next } };
    }
    case 'adopt': {
      const draft = state.views[action.from];
      if (!draft || action.from === action.to) return state;
      const { [action.from]: _moved, ...rest } = state.views;
      return { views: { ...rest, [action.to]: draft } };
    }
    case 'forget': {
      if (!(action.key in state.views)) return state;
      const { [action.key]: _gone, ...rest } = state.views;
      return { views: rest };
    }
  }
}
