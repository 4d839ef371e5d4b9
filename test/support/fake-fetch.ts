/**
 * A `fetch` double that answers with the given status, headers and body chunks, delivered as a
 * web ReadableStream one chunk per read — so tests choose the byte boundaries.
 */
export function fakeFetch(
  chunks: readonly Uint8Array[],
  init: { status?: number; headers?: Record<string, string>; hold?: boolean } = {},
): { fetch: typeof fetch; requests: { url: string; init: RequestInit | undefined }[] } {
  const requests: { url: string; init: RequestInit | undefined }[] = [];
  const fetchDouble = async (input: string | URL | Request, requestInit?: RequestInit) => {
    requests.push({ url: String(input), init: requestInit });
    let index = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const chunk = chunks[index++];
        if (chunk !== undefined) controller.enqueue(chunk);
        else if (!init.hold) controller.close(); // `hold`: the server never ends the stream
      },
    });
    return new Response(body, {
      status: init.status ?? 200,
      headers: init.headers ?? { 'content-type': 'text/event-stream; charset=utf-8' },
    });
  };
  return { fetch: fetchDouble as typeof fetch, requests };
}

export const encodeUtf8 = (text: string) => new TextEncoder().encode(text);
