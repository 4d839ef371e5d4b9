import type { Log } from '../../functions/chat/log.js';

/** A {@link Log} that writes nothing, for tests whose subject is not what gets logged. */
export const silentLog: Log = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
