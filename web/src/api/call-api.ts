import { ApiError } from './api-error.js';

/**
 * One REST call to the API: a fetch that never got an answer becomes `ApiError` status 0, and a
 * non-2xx answer (other than `304 Not Modified`, which a conditional GET expects) becomes the
 * server's `{ error: { code, message } }` as an `ApiError`.
 */
export async function callApi(
  apiFetch: typeof fetch,
  url: string,
  init: RequestInit = {},
): Promise<Response> {
  let response: Response;
  try {
    response = await apiFetch(url, init);
  } catch (cause) {
    throw new ApiError(0, 'network', String(cause), { cause });
  }
  if (!response.ok && response.status !== 304) throw await ApiError.fromResponse(response);
  return response;
}
