import type { ConversationApi } from '../api/create-conversation-api.js';
import type { LiveRequest } from './start-live-request.js';

/** After asking the server to stop, give it this long to end the stream itself before aborting. */
const STOP_GRACE_MS = 1500;

/**
 * Stops an answer. The function cannot see a client disconnect (Lambda behind CloudFront), so
 * it is told through the stop route, naming this request's user turn (`meta.userSeq`: a stop
 * never reaches another answer); it then stores the turn as stopped and usually ends the stream
 * itself. Pressed before `meta` arrived, the stop waits the grace period for it. The fetch is
 * aborted either way, so the UI never waits on a stuck stream.
 */
export async function stopLiveRequest(live: LiveRequest, api: ConversationApi): Promise<void> {
  await withinGrace(live.started);
  const conversationId = live.conversationId();
  const userSeq = live.userSeq();
  if (conversationId && userSeq !== undefined) {
    await api.stop(conversationId, userSeq).catch((error) => console.warn('stop failed', error));
    await withinGrace(live.done);
  }
  live.controller.abort();
  await live.done;
}

/** Waits for `settled`, but no longer than the grace period. */
async function withinGrace(settled: Promise<unknown>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    settled,
    new Promise((resolve) => {
      timer = setTimeout(resolve, STOP_GRACE_MS);
    }),
  ]);
  clearTimeout(timer);
}
