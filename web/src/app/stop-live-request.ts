import type { ConversationApi } from '../api/create-conversation-api.js';
import type { LiveRequest } from './start-live-request.js';

/** After asking the server to stop, give it this long to end the stream itself before aborting. */
const STOP_GRACE_MS = 1500;

/**
 * Stops an answer. The function cannot see a client disconnect (Lambda behind CloudFront), so
 * it is told through the stop route; it then stores the turn as stopped and usually ends the
 * stream itself. The fetch is aborted either way, so the UI never waits on a stuck stream.
 */
export async function stopLiveRequest(live: LiveRequest, api: ConversationApi): Promise<void> {
  const conversationId = live.conversationId();
  if (conversationId) {
    await api.stop(conversationId).catch((error) => console.warn('stop failed', error));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      live.done,
      new Promise((resolve) => {
        timer = setTimeout(resolve, STOP_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
  }
  live.controller.abort();
  await live.done;
}
