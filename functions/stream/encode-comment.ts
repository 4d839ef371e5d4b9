const LINE_BREAK = /\r\n|\r|\n/;

/**
 * Frames an SSE comment, which readers ignore: the heartbeat that keeps CloudFront's origin read
 * timeout and idle proxies from closing a quiet stream. Ends with a blank line so that no
 * proxy waits for more before forwarding it.
 *
 * @example
 * encodeComment('ping'); // ': ping\n\n'
 */
export function encodeComment(text = ''): string {
  let frame = '';
  for (const line of text.split(LINE_BREAK)) frame += line === '' ? ':\n' : `: ${line}\n`;
  return `${frame}\n`;
}
