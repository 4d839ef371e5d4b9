import { useCallback, useEffect, useRef, useState } from 'react';
import type { ConversationSummary } from '../../../functions/contract/conversations.js';
import type { ConversationApi } from '../api/create-conversation-api.js';
import { mergeByLastActivity } from './merge-by-last-activity.js';

export interface ConversationListState {
  readonly items: readonly ConversationSummary[];
  readonly loaded: boolean;
  readonly hasMore: boolean;
  readonly error?: unknown;
  refresh(): Promise<void>;
  loadMore(): Promise<void>;
  rename(conversationId: string, title: string): Promise<void>;
  remove(conversationId: string): Promise<void>;
}

export interface ConversationSearchState {
  readonly query: string;
  /** Matches of `query` (its trimmed form is non-empty), newest activity first. */
  readonly results?: readonly ConversationSummary[];
  readonly searching: boolean;
  readonly hasMore: boolean;
  readonly error?: unknown;
  setQuery(query: string): void;
  loadMore(): Promise<void>;
}

/** Waits this long after the last keystroke before asking the server. */
const SEARCH_DEBOUNCE_MS = 300;

/**
 * The sidebar's search: the server filters the caller's own conversations by title and message
 * text. Only the latest query's answer is shown, however the responses arrive.
 */
export function useConversationSearch(api: ConversationApi): ConversationSearchState {
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<readonly ConversationSummary[]>();
  const [searching, setSearching] = useState(false);
  const [error, setError] = useState<unknown>();
  const next = useRef<string | undefined>(undefined);
  const [hasMore, setHasMore] = useState(false);
  const latest = useRef(0);
  const trimmed = query.trim();

  useEffect(() => {
    const ticket = ++latest.current;
    if (!trimmed) {
      setResults(undefined);
      setSearching(false);
      return;
    }
    setSearching(true);
    const timer = setTimeout(() => {
      api
        .list(undefined, trimmed)
        .then((page) => {
          if (ticket !== latest.current) return;
          next.current = page.nextCursor;
          setHasMore(page.nextCursor !== undefined);
          setResults(page.items);
          setError(undefined);
        })
        .catch((failure: unknown) => {
          if (ticket === latest.current) setError(failure);
        })
        .finally(() => {
          if (ticket === latest.current) setSearching(false);
        });
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [api, trimmed]);

  const loadMore = useCallback(async () => {
    const cursor = next.current;
    if (!cursor || !trimmed) return;
    const ticket = latest.current;
    const page = await api.list(cursor, trimmed);
    if (ticket !== latest.current) return;
    next.current = page.nextCursor;
    setHasMore(page.nextCursor !== undefined);
    setResults((current) => [...(current ?? []), ...page.items]);
  }, [api, trimmed]);

  return { query, results, searching, hasMore, error, setQuery, loadMore };
}

/** The sidebar's data: the caller's conversations, kept fresh after every change. */
export function useConversationList(api: ConversationApi): ConversationListState {
  const [items, setItems] = useState<readonly ConversationSummary[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<unknown>();
  // Where the next older page starts; `pagesLoaded > 1` means the user asked for more.
  const cursor = useRef<{ next?: string; pagesLoaded: number }>({ pagesLoaded: 0 });
  const [hasMore, setHasMore] = useState(false);

  const refresh = useCallback(async () => {
    try {
      const first = await api.list();
      // The first page is fresh; older pages the user already opened stay below it.
      setItems((current) =>
        mergeByLastActivity(first.items, cursor.current.pagesLoaded > 1 ? current : []),
      );
      if (cursor.current.pagesLoaded <= 1)
        cursor.current = { next: first.nextCursor, pagesLoaded: 1 };
      setHasMore(cursor.current.next !== undefined);
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

  const loadMore = useCallback(async () => {
    const next = cursor.current.next;
    if (!next) return;
    const page = await api.list(next);
    cursor.current = { next: page.nextCursor, pagesLoaded: cursor.current.pagesLoaded + 1 };
    setItems((current) => mergeByLastActivity(current, page.items));
    setHasMore(page.nextCursor !== undefined);
  }, [api]);

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

  return { items, loaded, hasMore, error, refresh, loadMore, rename, remove };
}
