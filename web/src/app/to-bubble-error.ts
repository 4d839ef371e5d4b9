import { ApiError } from '../api/api-error.js';
import { isRetryableFailure } from '../errors/describe-error.js';
import type { BubbleError } from '../state/bubble.js';

/**
 * Classifies a failed chat request for the UI. A refused request keeps the server's code and
 * status (the UI explains it in words); anything else is the network — before the first event
 * (never connected) or after it (the stream was cut).
 */
export function toBubbleError(error: unknown, sawEvent: boolean): BubbleError {
  if (error instanceof ApiError) {
    return {
      code: error.code,
      message: error.message,
      retryable: isRetryableFailure({ code: error.code, httpStatus: error.status }),
      httpStatus: error.status,
    };
  }
  return { code: sawEvent ? 'stream_cut' : 'network', message: String(error), retryable: true };
}
