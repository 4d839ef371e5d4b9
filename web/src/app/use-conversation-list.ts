import { useCallback, useEffect, useState } from 'react';
import type { ConversationSummary } from '../api/conversation-schemas.js';
import type { ConversationApi } from '../api/create-conversation-api.js';

export interface ConversationListState {
  readonly items: readonly ConversationSummary[];
  readonly loaded: boolean;
  readonly error?: unknown;
  refresh(): Promise<void>;
  rename(conversationId: string, title: string): Promise<void>;
  remove(conversationId: string): Promise<void>;
}

/** Newest activity first, whatever order the server used. */
function byLastActivity(items: readonly ConversationSummary[]): ConversationSummary[] {
  return [...items].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}

/** The sidebar's data: the caller's conversations, kept fresh after every change. */
export function useConversationList(api: ConversationApi): ConversationListState {
  const [items, setItems] = useState<readonly ConversationSummary[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<unknown>();

  const refresh = useCallback(async () => {
    try {
      const list = await api.list();
      setItems(byLastActivity(list.items));
      setError(undefined);
    } catch (failure) {
      setError(failure);
    } finally {
      setLoaded(true);
    }
  }, [api]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const rename = useCallback(
    async (conversationId: string, title: string) => {
      // Optimistic: the new name shows at once; a failure reloads the server's truth.
      setItems((current) =>
        current.map((item) => (item.conversationId === conversationId ? { ...item, title } : item)),
      );
      try {
        await api.rename(conversationId, title);
      } finally {
        await refresh();
      }
    },
    [api, refresh],
  );

  const remove = useCallback(
    async (conversationId: string) => {
      await api.remove(conversationId);
      setItems((current) => current.filter((item) => item.conversationId !== conversationId));
    },
    [api],
  );

  return { items, loaded, error, refresh, rename, remove };
}
