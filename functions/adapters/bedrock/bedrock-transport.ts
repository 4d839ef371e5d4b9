import { NodeHttpHandler } from '@smithy/node-http-handler';

/**
 * The transport of the function's two Bedrock runtime clients (Knowledge Base retrieval and the
 * model): HTTP/1.1 with keep-alive, so a warm execution environment reuses its connections.
 *
 * Both clients default to HTTP/2 with `disableConcurrentStreams: true`, under which every request
 * opens a session of its own — a new TCP connection and TLS handshake for each Retrieve and each
 * ConverseStream, a chat's first token waiting on two of them (aws-sdk-js-v3 issue 8279); an
 * event stream such as ConverseStream gets a session of its own whatever that option says.
 * Bedrock serves both operations over HTTP/1.1 (HTTP/2 is needed only by bidirectional streams,
 * which the app does not use), and the SDK's HTTP/1.1 handler is what the DynamoDB and S3
 * clients already use: keep-alive agents, reused sockets, retries on a connection reset. An
 * abort still ends a response that is streaming: the handler destroys the request until the
 * response has ended (ADR 0035).
 *
 * @example
 * new BedrockRuntimeClient({ region, requestHandler: bedrockTransport() });
 */
export function bedrockTransport(): NodeHttpHandler {
  return new NodeHttpHandler();
}
