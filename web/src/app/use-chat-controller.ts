import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import type { ConversationApi } from '../api/create-conversation-api.js';
import type { ConversationView } from '../state/bubble.js';
import { emptyConversationView } from '../state/bubble.js';
import { chatStoreReducer, initialChatStoreState } from '../state/chat-store-reducer.js';
import { runChatRequest } from './run-chat-request.js';
import { readConversationFromUrl, writeConversationToUrl } from './url-conversation.js';

export interface ChatController {
  readonly activeKey: string;
  readonly view: ConversationView;
  readonly loadError?: unknown;
  readonly stopping: boolean;
  open(conversationId: string): void;
  startNew(): void;
  send(message: string, clientMessageId?: string): void;
  stop(): Promise<void>;
  /** The open conversation was deleted elsewhere in the UI. */
  forget(conversationId: string): void;
}

interface LiveRequest {
  readonly controller: AbortController;
  done: Promise<void>;
  /** Known from the start for an existing conversation, from `meta` for a new one. */
  conversationId?: string;
}

const newDraftKey = () => `draft:${crypto.randomUUID()}`;
const isDraft = (key: string) => key.startsWith('draft:');
/** After asking the server to stop, give it this long to end the stream itself before aborting. */
const STOP_GRACE_MS = 1500;

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
  const [activeKey, setActiveKey] = useState(() => readConversationFromUrl() ?? newDraftKey());
  const [loadError, setLoadError] = useState<unknown>();
  const [stoppingKey, setStoppingKey] = useState<string>();
  const activeKeyRef = useRef(activeKey);
  activeKeyRef.current = activeKey;
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
        if (activeKeyRef.current === conversationId) setLoadError(error);
      }
    },
    [api],
  );

  useEffect(() => {
    if (!isDraft(activeKey)) void load(activeKey);
  }, [activeKey, load]);

  // Leaving (sign-out, switching the dev user) ends every stream this controller started.
  useEffect(() => {
    const live = requests.current;
    return () => {
      for (const request of live.values()) request.controller.abort();
    };
  }, []);

  // Back/forward buttons move between conversations like links.
  useEffect(() => {
    const onPopState = () => setActiveKey(readConversationFromUrl() ?? newDraftKey());
    window.addEventListener('popstate', onPopState);
    return () => window.removeEventListener('popstate', onPopState);
  }, []);

  const open = useCallback((conversationId: string) => {
    setLoadError(undefined);
    setActiveKey(conversationId);
    writeConversationToUrl(conversationId, 'push');
  }, []);

  const startNew = useCallback(() => {
    setLoadError(undefined);
    setActiveKey(newDraftKey());
    writeConversationToUrl(undefined, 'push');
  }, []);

  const send = useCallback(
    (message: string, clientMessageId = crypto.randomUUID()) => {
      const key = activeKeyRef.current;
      if (storeRef.current.views[key]?.activeRequestId) return; // one answer at a time per conversation
      const requestId = crypto.randomUUID();
      const controller = new AbortController();
      const live: LiveRequest = {
        controller,
        conversationId: isDraft(key) ? undefined : key,
        done: Promise.resolve(),
      };
      requests.current.set(requestId, live);
      const deps = {
        apiBase,
        apiFetch,
        dispatch,
        onAdopted: (draftKey: string, conversationId: string) => {
          live.conversationId = conversationId;
          if (activeKeyRef.current === draftKey) {
            setActiveKey(conversationId);
            writeConversationToUrl(conversationId, 'replace');
          }
          onConversationsChanged();
        },
      };
      const input = {
        key,
        conversationId: live.conversationId,
        message,
        clientMessageId,
        requestId,
        signal: controller.signal,
      };
      live.done = runChatRequest(deps, input).finally(() => {
        requests.current.delete(requestId);
        onConversationsChanged();
      });
    },
    [apiBase, apiFetch, onConversationsChanged],
  );

  const stop = useCallback(async () => {
    const key = activeKeyRef.current;
    const requestId = storeRef.current.views[key]?.activeRequestId;
    const live = requestId ? requests.current.get(requestId) : undefined;
    if (!live) return;
    setStoppingKey(key);
    try {
      // The function cannot see a client disconnect, so it is told explicitly; it then stores
      // the turn as stopped and usually ends the stream itself.
      if (live.conversationId) {
        await api.stop(live.conversationId).catch((error) => console.warn('stop failed', error));
        await Promise.race([
          live.done,
          new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS)),
        ]);
      }
      live.controller.abort();
      await live.done;
    } finally {
      setStoppingKey(undefined);
    }
  }, [api]);

  const forget = useCallback(
    (conversationId: string) => {
      dispatch({ type: 'forget', key: conversationId });
      if (activeKeyRef.current === conversationId) startNew();
    },
    [startNew],
  );

  return {
    activeKey,
    view: store.views[activeKey] ?? emptyConversationView,
    loadError,
    stopping: stoppingKey === activeKey,
    open,
    startNew,
    send,
    stop,
    forget,
  };
}
