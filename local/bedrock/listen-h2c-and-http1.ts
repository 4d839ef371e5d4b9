import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpServer } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { createServer as createHttp2Server } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { createServer as createNetServer } from 'node:net';

/** A request as both protocols' compatibility APIs present it. */
export type LocalRequest = IncomingMessage | Http2ServerRequest;
/** A response as both protocols' compatibility APIs present it. */
export type LocalResponse = ServerResponse | Http2ServerResponse;
export type LocalRequestHandler = (request: LocalRequest, response: LocalResponse) => void;

export interface H2cAndHttp1Listener {
  /** `http://host:port`, usable by HTTP/2 (prior knowledge) and HTTP/1.1 clients alike. */
  readonly url: string;
  /** Connections accepted so far, by the protocol they spoke (clients that reuse one show it). */
  readonly connections: Readonly<ConnectionCounts>;
  close(): Promise<void>;
}

/** Connections by the protocol their first bytes spoke. */
export interface ConnectionCounts {
  http1: number;
  http2: number;
}

// RFC 9113 §3.4: an HTTP/2 client with prior knowledge opens with this exact preface.
const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/**
 * Serves cleartext HTTP/2 (h2c) and HTTP/1.1 on one port.
 *
 * The AWS SDK's Bedrock clients default to `NodeHttp2Handler`, which speaks h2c with prior
 * knowledge to an `http://` endpoint; curl and clients configured with `NodeHttpHandler` (the
 * function's, ADR 0035) speak HTTP/1.1.
 * `http2.createServer({ allowHTTP1 })` only negotiates via TLS ALPN, so the first bytes of each
 * connection are sniffed instead and the socket is handed to the matching server.
 */
export async function listenH2cAndHttp1(
  handler: LocalRequestHandler,
  options: { readonly port: number; readonly host: string },
): Promise<H2cAndHttp1Listener> {
  const http1 = createHttpServer(handler);
  const http2 = createHttp2Server(handler);
  const sockets = new Set<Socket>();
  const connections: ConnectionCounts = { http1: 0, http2: 0 };

  // No Nagle: a streamed response is many small writes (headers, then each event), and a write
  // held back until the client acknowledges the one before would stall the stream.
  const tcp = createNetServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const compared = Math.min(received.length, HTTP2_PREFACE.length);
      const looksLikeHttp2 = HTTP2_PREFACE.subarray(0, compared).equals(
        received.subarray(0, compared),
      );
      if (looksLikeHttp2 && received.length < HTTP2_PREFACE.length) return; // need more bytes
      socket.off('data', onData);
      socket.pause();
      socket.unshift(received);
      connections[looksLikeHttp2 ? 'http2' : 'http1'] += 1;
      (looksLikeHttp2 ? http2 : http1).emit('connection', socket);
      process.nextTick(() => socket.resume());
    };
    socket.on('data', onData);
  });

  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(options.port, options.host, () => resolve());
  });
  const { port } = tcp.address() as AddressInfo;
  const urlHost = options.host.includes(':') ? `[${options.host}]` : options.host;

  return {
    url: `http://${urlHost}:${port}`,
    connections,
    close: async () => {
      const closed = new Promise<void>((resolve) => tcp.close(() => resolve()));
      // SDK clients keep their connections open (HTTP/2 sessions, HTTP/1.1 keep-alive sockets);
      // closing must not wait for them.
      for (const socket of sockets) socket.destroy();
      http1.close();
      http2.close();
      await closed;
    },
  };
}
