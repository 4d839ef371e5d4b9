/**
 * Event names this server may write: a letter, then letters, digits, `_`, `-` or `.`. The SSE
 * spec would accept more, but CR, LF or a colon in a name would break the framing, and a
 * conservative pattern keeps names greppable.
 */
export const SSE_EVENT_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]*$/;

/** Splits on the three SSE line terminators: CRLF, LF and a lone CR. */
const LINE_BREAK = /\r\n|\r|\n/;

/**
 * Frames one SSE event (WHATWG HTML §9.2): an `event:` line, one `data:` line per line of
 * `data`, and a blank line. The reader joins the `data:` lines back with `\n`, so any text
 * (newlines included) survives; CR and CRLF inside `data` come back as `\n`.
 *
 * @throws TypeError when `name` does not match {@link SSE_EVENT_NAME_PATTERN} (a programming error).
 * @example
 * encodeSseEvent('token', '{"content":"Hi"}'); // 'event: token\ndata: {"content":"Hi"}\n\n'
 */
export function encodeSseEvent(name: string, data: string): string {
  if (!SSE_EVENT_NAME_PATTERN.test(name)) {
    throw new TypeError(`Invalid SSE event name: ${JSON.stringify(name)}`);
  }
  let frame = `event: ${name}\n`;
  for (const line of data.split(LINE_BREAK)) frame += `data: ${line}\n`;
  return `${frame}\n`;
}
