import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../web/src/api/api-error.js';
import { toBubbleError } from '../../../web/src/app/to-bubble-error.js';

describe('toBubbleError', () => {
  it('keeps the server code and status of a refused request', () => {
    expect(toBubbleError(new ApiError(413, 'too_large', 'too big'), false)).toEqual({
      code: 'too_large',
      message: 'too big',
      retryable: false,
      httpStatus: 413,
    });
  });

  it('lets throttling, conflicts and server errors be retried', () => {
    for (const status of [409, 429, 500, 503]) {
      expect(
        toBubbleError(new ApiError(status, 'unrecognized_response', ''), false).retryable,
      ).toBe(true);
    }
  });

  it('tells a connection that never opened from a stream that was cut', () => {
    expect(toBubbleError(new TypeError('Failed to fetch'), false).code).toBe('network');
    expect(toBubbleError(new TypeError('network error'), true).code).toBe('stream_cut');
  });
});
