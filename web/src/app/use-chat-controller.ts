import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import type { FeedbackRequest } from '../../../functions/contract/conversations.js';
import { ApiError } from '../api/api-error.js';
import type { ConversationApi } from '../api/create-conversation-api.js';
import type { ConversationView } from '../state/bubble.js';
import { emptyConversationView } from '../state/bubble.js';
import { chatStoreReducer, initialChatStoreState } from '../state/chat-store-reducer.js';
import { type LiveRequest, startLiveRequest } from './start-live-request.js';
import { stopLiveRequest } from './stop-live-request.js';
import { isDraftKey, useActiveConversation } from './use-active-conversation.js';

export interface ChatController {
  readonly activeKey: string;
  readonly view: ConversationView;
  readonly loadError?: unknown;
  readonly stopping: boolean;
  /** The next message in this conversation starts a new inquiry (staff chose "new inquiry"). */
  readonly newInquiry: boolean;
  open(conversationId: string): void;
  /** Loads the open conversation again after a failed load (e.g. the store was unavailable). */
  retryLoad(): void;
  startNew(): void;
  /** `inquiry: 'new'` starts a new inquiry even while a clarification awaits its reply. */
  send(message: string, clientMessageId?: string, inquiry?: 'new'): void;
  setNewInquiry(on: boolean): void;
  stop(): Promise<void>;
  /** Stores feedback on an answer of the open conversation; rejects with the API's error. */
  giveFeedback(seq: number, feedback: FeedbackRequest): Promise<void>;
  /** The open conversation was deleted elsewhere in the UI. */
  forget(conversationId: string): void;
}

/**
 * Owns every conversation's view state and the requests streaming into them. State is keyed by
 * conversation id, and each request writes only under its own key, so switching conversations
 * mid-stream never shows one conversation's answer in another.
 */
export function useChatController(
  api: ConversationApi,
  apiBase: string,
  apiFetch: typeof fetch,
  onConversationsChanged: () => void,
): ChatController {
  const [store, dispatch] = useReducer(chatStoreReducer, initialChatStoreState);
  const { activeKey, activeKeyRef, adopt, ...navigation } = useActiveConversation();
  const [loadError, setLoadError] = useState<unknown>();
  const [stoppingKey, setStoppingKey] = useState<string>();
  // The conversation whose next message starts a new inquiry; switching away leaves it behind.
  const [newInquiryKey, setNewInquiryKey] = useState<string>();
  const storeRef = useRef(store);
  storeRef.current = store;
  const requests = useRef(new Map<string, LiveRequest>());

  const load = useCallback(
    async (conversationId: string) => {
      const known = storeRef.current.views[conversationId];
      if (known?.activeRequestId) return; // the live stream is fresher than any snapshot
      try {
        const detail = await api.get(conversationId, known?.version);
        if (detail)
          dispatch({
            type: 'conversation',
            key: conversationId,
            action: { type: 'history', detail },
          });
        setLoadError(undefined);
      } catch (error) {
        if (activeKeyRef.current !== conversationId) return;
        // A missing (or someone else's) conversation cannot take new messages: start a fresh
        // one, and keep saying why the link did not open.
        if (error instanceof ApiError && error.status === 404) navigation.startNew('replace');
        setLoadError(error);
      }
    },
    [api, activeKeyRef, navigation.startNew],
  );

  useEffect(() => {
    if (!isDraftKey(activeKey)) void load(activeKey);
  }, [activeKey, load]);

  // Leaving (sign-out, switching the dev user) ends every stream this controller started.
  useEffect(() => {
    const live = requests.current;
    return () => {
      for (const request of live.values()) request.controller.abort();
    };
  }, []);

  const open = useCallback(
    (conversationId: string) => {
      setLoadError(undefined);
      navigation.open(conversationId);
    },
    [navigation.open],
  );

  const retryLoad = useCallback(() => {
    const key = activeKeyRef.current;
    if (!isDraftKey(key)) void load(key);
  }, [activeKeyRef, load]);

  const startNew = useCallback(() => {
    setLoadError(undefined);
    navigation.startNew();
  }, [navigation.startNew]);

  const send = useCallback(
    (message: string, clientMessageId = crypto.randomUUID(), inquiry?: 'new') => {
      const key = activeKeyRef.current;
      if (storeRef.current.views[key]?.activeRequestId) return; // one answer at a time per conversation
      setNewInquiryKey(undefined); // any message sent (an option too) ends the "new inquiry" mode
      const requestId = crypto.randomUUID();
      const live = startLiveRequest(
        {
          apiBase,
          apiFetch,
          dispatch,
          onAdopted: (draftKey, conversationId) => {
            adopt(draftKey, conversationId);
            onConversationsChanged();
          },
          onSettled: () => {
            requests.current.delete(requestId);
            onConversationsChanged();
          },
        },
        {
          key,
          conversationId: isDraftKey(key) ? undefined : key,
          message,
          clientMessageId,
          ...(inquiry ? { inquiry } : {}),
          requestId,
        },
      );
      requests.current.set(requestId, live);
    },
    [apiBase, apiFetch, onConversationsChanged, activeKeyRef, adopt],
  );

  const setNewInquiry = useCallback(
    (on: boolean) => setNewInquiryKey(on ? activeKeyRef.current : undefined),
    [activeKeyRef],
  );

  const stop = useCallback(async () => {
    const key = activeKeyRef.current;
    const requestId = storeRef.current.views[key]?.activeRequestId;
    const live = requestId ? requests.current.get(requestId) : undefined;
    if (!live) return;
    setStoppingKey(key);
    try {
      await stopLiveRequest(live, api);
    } finally {
      setStoppingKey(undefined);
    }
  }, [api, activeKeyRef]);

  const giveFeedback = useCallback(
    async (seq: number, feedback: FeedbackRequest) => {
      const key = activeKeyRef.current;
      if (isDraftKey(key)) return; // an answer without a stored conversation has no turn yet
      const stored = await api.feedback(key, seq, feedback);
      dispatch({
        type: 'conversation',
        key,
        action: { type: 'feedback', seq, feedback: stored.feedback, version: stored.version },
      });
    },
    [api, activeKeyRef],
  );

  const forget = useCallback(
    (conversationId: string) => {
      for (const live of requests.current.values()) {
        if (live.conversationId() === conversationId) live.controller.abort();
      }
      dispatch({ type: 'forget', key: conversationId });
      if (activeKeyRef.current === conversationId) startNew();
    },
    [startNew, activeKeyRef],
  );

  return {
    activeKey,
    view: store.views[activeKey] ?? emptyConversationView,
    loadError,
    stopping: stoppingKey === activeKey,
    newInquiry: newInquiryKey === activeKey,
    open,
    retryLoad,
    startNew,
    send,
    setNewInquiry,
    stop,
    giveFeedback,
    forget,
  };
}
