import { TurnTooLargeError } from '../../chat/ports.js';

/**
 * Size limits checked before any write, so DynamoDB's 400 KB item limit is never met at run time
 * (it would cancel the whole transaction). Text + result + keys and attribute names stay well
 * below 400 KB. Bytes are UTF-8: a Japanese character is 3 bytes.
 */
export const turnSizeLimits = {
  textBytes: 100_000,
  resultBytes: 250_000,
  titleCharacters: 200,
} as const;

/** Throws `TurnTooLargeError` when a turn's text or structured result is too large to store. */
export function assertTurnFits(text: string, resultJson: string | undefined): void {
  const textBytes = Buffer.byteLength(text, 'utf8');
  if (textBytes > turnSizeLimits.textBytes) {
    throw new TurnTooLargeError(
      `Message is ${textBytes} bytes (UTF-8); the limit is ${turnSizeLimits.textBytes} bytes`,
    );
  }
  const resultBytes = resultJson === undefined ? 0 : Buffer.byteLength(resultJson, 'utf8');
  if (resultBytes > turnSizeLimits.resultBytes) {
    throw new TurnTooLargeError(
      `Answer is ${resultBytes} bytes as JSON; the limit is ${turnSizeLimits.resultBytes} bytes`,
    );
  }
}

/** Throws `TurnTooLargeError` for a title longer than the sidebar can hold. */
export function assertTitleFits(title: string): void {
  const length = Array.from(title).length;
  if (length > turnSizeLimits.titleCharacters) {
    throw new TurnTooLargeError(
      `Title is ${length} characters; the limit is ${turnSizeLimits.titleCharacters}`,
    );
  }
}
