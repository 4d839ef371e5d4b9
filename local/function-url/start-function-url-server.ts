import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { securityHeaders } from '../../lib/security-headers.js';
import type { Invocations } from '../lambda/local-lambda-function.js';
import { invokeFunctionUrl } from './invoke-function-url.js';
import { serveStaticFile } from './serve-static-file.js';

export interface FunctionUrlServerOptions {
  /** The function behind the URL (execution environments running the real runtime client). */
  readonly function: Invocations;
  readonly port?: number;
  readonly host?: string;
  /** Built web app, served for non-API paths like CloudFront's default behaviour. */
  readonly staticDir?: string;
  /** Extra files served from memory, e.g. `/config.json` (generated from stack outputs in AWS). */
  readonly staticOverrides?: ReadonlyMap<string, string>;
  /** Paths routed to the function, like CloudFront's `/api/*` behaviour. @default '/api/' */
  readonly apiPrefix?: string;
  readonly log?: (message: string, error?: unknown) => void;
  /**
   * Sent with every response, as CloudFront's response-headers policy does in AWS.
   * @default the site's security headers for plain-HTTP localhost (CSP, nosniff, no framing,
   * referrer policy; no HSTS), from `lib/security-headers.ts`
   */
  readonly responseHeaders?: Readonly<Record<string, string>>;
}

export interface FunctionUrlServer {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * A Function URL (RESPONSE_STREAM) and CloudFront on one local origin: `/api/*` invokes the
 * function, everything else is the static web app.
 */
export async function startFunctionUrlServer(
  options: FunctionUrlServerOptions,
): Promise<FunctionUrlServer> {
  const apiPrefix = options.apiPrefix ?? '/api/';
  const log = options.log ?? ((message, error) => console.error(message, error ?? ''));
  const responseHeaders =
    options.responseHeaders ??
    securityHeaders({ connectSources: [], formActions: [], https: false });
  const server = createServer((request, response) => {
    // Set before anything is written: the handler's or the file's own headers are added to them.
    for (const [name, value] of Object.entries(responseHeaders)) response.setHeader(name, value);
    const path = request.url ?? '/';
    const handled = path.startsWith(apiPrefix)
      ? invokeFunctionUrl(options.function, request, response, log).then(() => true)
      : serveStatic(options, request, response);
    handled
      .then((served) => {
        if (served) return;
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('Not found');
      })
      .catch((error: unknown) => {
        log('Request failed', error);
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.address.includes(':') ? `[${address.address}]` : address.address;
  return {
    url: `http://${host === '127.0.0.1' ? 'localhost' : host}:${address.port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function serveStatic(
  options: FunctionUrlServerOptions,
  request: Parameters<typeof serveStaticFile>[1],
  response: Parameters<typeof serveStaticFile>[2],
): Promise<boolean> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (!options.staticDir && !options.staticOverrides) return false;
  return serveStaticFile(
    options.staticDir ?? '/nonexistent',
    request,
    response,
    options.staticOverrides,
  );
}
