/**
 * Outcome of feeding one fragment to a sub-scanner ({@link JsonStringDecoder},
 * {@link JsonNumberScanner}, {@link JsonLiteralScanner}): the token continues in the next fragment, it ended, or it is invalid.
 */
export const ScanStatus = {
  open: 0,
  ended: 1,
  failed: 2,
} as const;
export type ScanStatus = (typeof ScanStatus)[keyof typeof ScanStatus];
