/** The request cannot be answered offline (e.g. no tool to call); sent as a ValidationException. */
export class OfflineRequestError extends Error {
  override readonly name = 'OfflineRequestError';
}
