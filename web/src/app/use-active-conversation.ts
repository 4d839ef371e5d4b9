import { type RefObject, useCallback, useEffect, useRef, useState } from 'react';
import { readConversationFromUrl, writeConversationToUrl } from './url-conversation.js';

export const newDraftKey = () => `draft:${crypto.randomUUID()}`;
export const isDraftKey = (key: string) => key.startsWith('draft:');

export interface ActiveConversation {
  /** The conversation on screen: its id, or a draft key before the first answer names it. */
  readonly activeKey: string;
  /** The same, for callbacks that outlive a render (stream events). */
  readonly activeKeyRef: RefObject<string>;
  open(conversationId: string): void;
  /** `replace` when the current entry is useless to go back to (a dead link). */
  startNew(mode?: 'push' | 'replace'): void;
  /** A draft got its id: follow it in the address bar if it is still the one on screen. */
  adopt(draftKey: string, conversationId: string): void;
}

/**
 * Which conversation is open, mirrored in the address bar (`?c=`) so reloads, bookmarks and
 * the back button work.
 */
export function useActiveConversation(): ActiveConversation {
  const [activeKey, setActiveKey] = useState(() => readConversationFromUrl() ?? newDraftKey());
  const activeKeyRef = useRef(activeKey);
  activeKeyRef.current = activeKey;

  useEffect(() => {
    const onPopState = () => setActiveKey(readConversationFromUrl() ?? newDraftKey());
    window.addEventListener('popstate', onPopState);
    return () => window.removeEventListener('popstate', onPopState);
  }, []);

  const open = useCallback((conversationId: string) => {
    setActiveKey(conversationId);
    writeConversationToUrl(conversationId, 'push');
  }, []);

  const startNew = useCallback((mode: 'push' | 'replace' = 'push') => {
    setActiveKey(newDraftKey());
    writeConversationToUrl(undefined, mode);
  }, []);

  const adopt = useCallback((draftKey: string, conversationId: string) => {
    if (activeKeyRef.current !== draftKey) return;
    setActiveKey(conversationId);
    writeConversationToUrl(conversationId, 'replace');
  }, []);

  return { activeKey, activeKeyRef, open, startNew, adopt };
}
