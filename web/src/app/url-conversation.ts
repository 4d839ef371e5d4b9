/**
 * The open conversation lives in the address bar (`?c=<id>`): a reload, a bookmark or a shared
 * link reopens it, and it works with plain static hosting (no SPA fallback route needed).
 */
const PARAM = 'c';

export function readConversationFromUrl(): string | undefined {
  return new URLSearchParams(window.location.search).get(PARAM) || undefined;
}

export function writeConversationToUrl(
  conversationId: string | undefined,
  mode: 'push' | 'replace',
): void {
  const url = new URL(window.location.href);
  if (url.searchParams.get(PARAM) === (conversationId ?? null)) return;
  if (conversationId) url.searchParams.set(PARAM, conversationId);
  else url.searchParams.delete(PARAM);
  if (mode === 'push') window.history.pushState(null, '', url);
  else window.history.replaceState(null, '', url);
}
