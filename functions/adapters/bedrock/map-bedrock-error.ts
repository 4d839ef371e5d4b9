import { ChatModelError } from '../../chat/chat-model.js';

const THROTTLED = new Set([
  'ThrottlingException',
  'TooManyRequestsException',
  'ServiceQuotaExceededException',
]);
const UNAVAILABLE = new Set([
  'ServiceUnavailableException',
  'ModelNotReadyException',
  'InternalServerException',
  'ModelTimeoutException',
]);
const MID_STREAM = new Set(['ModelStreamErrorException']);

/**
 * Translates the Bedrock errors the core can act on; anything else (including an abort, which
 * the core recognises by its own signal) is rethrown unchanged.
 * `midStream`: the error came while iterating, after the SDK's retries no longer apply.
 */
export function mapBedrockError(error: unknown, midStream: boolean): unknown {
  const name = (error as { name?: string } | undefined)?.name ?? '';
  if (name === 'AbortError') return error;
  if (MID_STREAM.has(name) || (midStream && (THROTTLED.has(name) || UNAVAILABLE.has(name)))) {
    return new ChatModelError('stream_failed', true, { cause: error });
  }
  if (THROTTLED.has(name)) return new ChatModelError('throttled', true, { cause: error });
  if (UNAVAILABLE.has(name)) return new ChatModelError('unavailable', true, { cause: error });
  if (
    name === 'ValidationException' ||
    name === 'AccessDeniedException' ||
    name === 'ResourceNotFoundException'
  ) {
    return new ChatModelError('rejected', false, { cause: error });
  }
  return error;
}
