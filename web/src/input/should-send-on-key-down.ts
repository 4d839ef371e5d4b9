/** The parts of a keyboard event that decide whether Enter sends. */
export interface KeyDownFacts {
  readonly key: string;
  readonly shiftKey: boolean;
  /** `nativeEvent.isComposing`: an IME (Japanese input) is converting text. */
  readonly isComposing: boolean;
  /** 229 is what Chrome/Safari report for keys consumed by an IME, even after compositionend. */
  readonly keyCode: number;
}

/**
 * Enter sends, Shift+Enter inserts a newline, and Enter that confirms an IME conversion
 * (Japanese input) never sends — otherwise staff send half-converted text.
 *
 * @example
 * if (shouldSendOnKeyDown({ key: e.key, shiftKey: e.shiftKey,
 *   isComposing: e.nativeEvent.isComposing, keyCode: e.keyCode })) { e.preventDefault(); send(); }
 */
export function shouldSendOnKeyDown(facts: KeyDownFacts): boolean {
  if (facts.key !== 'Enter') return false;
  if (facts.isComposing || facts.keyCode === 229) return false;
  return !facts.shiftKey;
}
