import { describe, expect, it } from 'vitest';
import {
  type KeyDownFacts,
  shouldSendOnKeyDown,
} from '../../../web/src/input/should-send-on-key-down.js';

const enter: KeyDownFacts = { key: 'Enter', shiftKey: false, isComposing: false, keyCode: 13 };

describe('shouldSendOnKeyDown', () => {
  it('sends on a plain Enter', () => {
    expect(shouldSendOnKeyDown(enter)).toBe(true);
  });

  it('inserts a newline on Shift+Enter', () => {
    expect(shouldSendOnKeyDown({ ...enter, shiftKey: true })).toBe(false);
  });

  it('does not send while an IME is composing', () => {
    expect(shouldSendOnKeyDown({ ...enter, isComposing: true })).toBe(false);
  });

  it('does not send on the keyCode 229 Enter that confirms an IME conversion', () => {
    expect(shouldSendOnKeyDown({ ...enter, keyCode: 229 })).toBe(false);
  });

  it('ignores other keys', () => {
    expect(shouldSendOnKeyDown({ ...enter, key: 'a', keyCode: 65 })).toBe(false);
  });
});
