import { wallClockNow } from '../wall-clock.js';
import type { ChildAnnouncement, ChildReply, ChildRequest, RequestHandlers } from './messages.js';

export interface ServeParentOptions<Ready> {
  /** Starts what the child serves; its result is announced to the parent. */
  readonly start: () => Promise<{ readonly ready: Ready; readonly stop: () => Promise<void> }>;
  readonly handlers: RequestHandlers;
}

/**
 * The child's side of the bench IPC: starts, announces `ready` (or `failed`), answers
 * requests, and stops on `stop`, on SIGINT/SIGTERM and when the parent goes away (the IPC channel
 * disconnects, e.g. the bench was killed) — so the child, and DynamoDB Local's java process it
 * may own, never outlive the bench. Every child also answers `now` ({@link wallClockNow}) for
 * the parent's clock check.
 */
export async function serveParent<Ready>(options: ServeParentOptions<Ready>): Promise<void> {
  const send = (message: ChildAnnouncement<Ready> | ChildReply) =>
    new Promise<void>((sent) => {
      if (!process.connected) return sent();
      process.send?.(message, undefined, {}, () => sent());
    });
  if (!process.send) throw new Error('run me with child_process.fork (an IPC channel is needed)');

  let stopServed: (() => Promise<void>) | undefined;
  let stopping: Promise<void> | undefined;
  const stopOnce = () => {
    // Before start-up finished there is nothing to stop yet; exiting is enough (DynamoDB
    // Local's own exit hook kills its java process).
    stopping ??= (stopServed?.() ?? Promise.resolve()).catch((error: unknown) => {
      console.error('bench child: stop failed', error);
    });
    return stopping;
  };
  const exitAfterStop = () => {
    void stopOnce().finally(() => process.exit(0));
  };
  // Registered before starting, so a parent that dies during start-up still stops us.
  process.once('disconnect', exitAfterStop);
  process.once('SIGINT', exitAfterStop);
  process.once('SIGTERM', exitAfterStop);

  let started: Awaited<ReturnType<ServeParentOptions<Ready>['start']>>;
  try {
    started = await options.start();
  } catch (error) {
    await send({
      kind: 'failed',
      message: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    process.exit(1);
  }
  stopServed = started.stop;

  const handlers: RequestHandlers = { now: () => wallClockNow(), ...options.handlers };
  process.on('message', (message: ChildRequest) => {
    if (message?.kind !== 'request') return;
    if (message.method === 'stop') {
      void stopOnce()
        .then(() => send({ kind: 'reply', id: message.id, result: null }))
        .finally(() => process.exit(0));
      return;
    }
    const handler = handlers[message.method];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown method ${message.method}`);
        return handler(message.params);
      })
      .then(
        (result) => send({ kind: 'reply', id: message.id, result: result ?? null }),
        (error: unknown) =>
          send({
            kind: 'reply',
            id: message.id,
            error: error instanceof Error ? error.message : String(error),
          }),
      );
  });
  await send({ kind: 'ready', ready: started.ready });
}
