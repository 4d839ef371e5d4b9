import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Serves the built web app the way CloudFront + S3 do in AWS: files by path, and `index.html` for
 * extension-less paths (the SPA fallback). Paths never escape `root`.
 * Returns false when nothing matched so the caller can answer 404.
 */
export async function serveStaticFile(
  root: string,
  request: IncomingMessage,
  response: ServerResponse,
  overrides: ReadonlyMap<string, string> = new Map(),
): Promise<boolean> {
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
  } catch {
    // `/%` or `/%zz`: a malformed escape is the client's mistake (URIError), not a server error.
    response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
    response.end('Bad request: malformed percent-encoding in the path');
    return true;
  }
  const override = overrides.get(pathname);
  if (override !== undefined) {
    response.writeHead(200, {
      'content-type': CONTENT_TYPES['.json'],
      'cache-control': 'no-store',
    });
    response.end(override);
    return true;
  }
  const relative = normalize(pathname).replace(/^([/\\])+/, '');
  let file = join(root, relative);
  if (!file.startsWith(root + sep) && file !== root) return false;
  let info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) {
    if (extname(pathname) !== '') return false;
    file = join(root, 'index.html');
    info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return false;
  }
  const hashed = file.includes(`${sep}assets${sep}`);
  response.writeHead(200, {
    'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': info.size,
    'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  if (request.method === 'HEAD') {
    response.end();
    return true;
  }
  createReadStream(file).pipe(response);
  return true;
}
