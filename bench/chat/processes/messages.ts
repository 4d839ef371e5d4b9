/**
 * The IPC protocol between the bench (parent) and its child processes: the child announces
 * itself once, then answers numbered requests. Plain JSON, as `child_process.fork` sends it.
 */

/** First message from a child: started (with what the parent needs to know) or failed. */
export type ChildAnnouncement<Ready> =
  | { readonly kind: 'ready'; readonly ready: Ready }
  | { readonly kind: 'failed'; readonly message: string };

/** Parent → child. `stop` is understood by every child: clean up, answer, exit. */
export interface ChildRequest {
  readonly kind: 'request';
  readonly id: number;
  readonly method: string;
  readonly params?: unknown;
}

/** Child → parent, answering the request with the same id. */
export type ChildReply =
  | { readonly kind: 'reply'; readonly id: number; readonly result: unknown }
  | { readonly kind: 'reply'; readonly id: number; readonly error: string };

export type ChildMessage<Ready> = ChildAnnouncement<Ready> | ChildReply;

/** A child's request handlers by method name; results must be JSON-serialisable. */
export type RequestHandlers = Record<string, (params: unknown) => unknown>;
