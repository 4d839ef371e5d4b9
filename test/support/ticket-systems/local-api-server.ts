import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the local ServiceNow, Jira and Zendesk servers share: authentication as each vendor
 * documents it (basic or bearer), a log of the requests, and scripted faults for the next
 * requests (a 429 with `Retry-After`, a 503, a 401). The vendor modules answer the API itself.
 */

export type LocalCredentials =
  | { readonly username: string; readonly password: string }
  | { readonly token: string };

export interface ScriptedFault {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

export interface LocalApiServer {
  readonly url: string;
  /** Path and query of each request answered, in order (faults included). */
  readonly requests: string[];
  /** The next requests get these answers, one each, before the API answers again. */
  failNext(...faults: ScriptedFault[]): void;
  close(): Promise<void>;
}

export type ApiHandler = (url: URL) => {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
};

export async function startLocalApiServer(
  credentials: LocalCredentials,
  handle: ApiHandler,
): Promise<LocalApiServer> {
  const requests: string[] = [];
  const faults: ScriptedFault[] = [];
  const expected =
    'token' in credentials
      ? `Bearer ${credentials.token}`
      : `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  const send = (
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(body === undefined ? '' : JSON.stringify(body));
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? 'localhost'}`);
    requests.push(`${url.pathname}${url.search}`);
    const fault = faults.shift();
    if (fault) {
      send(response, fault.status, fault.body ?? { error: `HTTP ${fault.status}` }, {
        ...fault.headers,
      });
      return;
    }
    if (request.headers.authorization !== expected) {
      send(response, 401, {
        error: {
          message: 'User Not Authenticated',
          detail: 'Required to provide Auth information',
        },
        status: 'failure',
      });
      return;
    }
    try {
      const answer = handle(url);
      send(response, answer.status ?? 200, answer.body, answer.headers);
    } catch (error) {
      send(response, 400, { error: { message: (error as Error).message } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (...more) => faults.push(...more),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
