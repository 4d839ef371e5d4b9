import { describe, expect, it } from 'vitest';
import { toBubbleError } from '../../../web/src/app/to-bubble-error.js';
import { ChatHttpError } from '../../../web/src/chat/read-chat-stream.js';

describe('toBubbleError', () => {
  it('keeps the server code and status of a refused request', () => {
    expect(toBubbleError(new ChatHttpError(413, 'too_large', 'too big'), false)).toEqual({
      code: 'too_large',
      message: 'too big',
      retryable: false,
      httpStatus: 413,
    });
  });

  it('lets throttling, conflicts and server errors be retried', () => {
    for (const status of [409, 429, 500, 503]) {
      expect(toBubbleError(new ChatHttpError(status, 'x', ''), false).retryable).toBe(true);
    }
  });

  it('tells a connection that never opened from a stream that was cut', () => {
    expect(toBubbleError(new TypeError('Failed to fetch'), false).code).toBe('network');
    expect(toBubbleError(new TypeError('network error'), true).code).toBe('stream_cut');
  });
});
