import * as z from 'zod';
import type { RequestErrorCode } from './errors.js';

/**
 * What counts as text a person typed: the rule behind every free-text field of the API (chat
 * message, conversation title). The server validates bodies with it and the web app checks the
 * composer and the rename field with the same function, so both refuse the same input.
 */

/**
 * A UTF-16 code unit of a surrogate pair without its partner. JSON can carry one (`"\ud800"`),
 * but it is no character: stored, it breaks every UTF-8 encoder downstream (model request,
 * exports) or turns into U+FFFD. `String.prototype.isWellFormed` is ES2024, beyond our `lib`.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * One character a reader can see. White space, controls (NUL …), format characters (zero-width
 * space and joiners, bidi marks, BOM, soft hyphen) and the other default-ignorable code points
 * (Hangul fillers, variation selectors) render as nothing; nor does the blank Braille pattern
 * U+2800, a favourite of "invisible text" generators. A message made only of these would pass
 * "not empty" and still cost a retrieval and a model call.
 */
const VISIBLE = /[^\p{White_Space}\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}\u2800]/u;

/** Error codes a failed text rule reports (the `code` of the API's 400 body). */
export const USER_TEXT_ERROR_CODES = {
  invalidText: 'invalid_text',
  emptyText: 'empty_text',
} as const satisfies Record<string, RequestErrorCode>;

export type UserTextProblem = (typeof USER_TEXT_ERROR_CODES)[keyof typeof USER_TEXT_ERROR_CODES];

/** Why `text` is not acceptable user text, or undefined when it is. Length is checked separately. */
export function userTextProblem(text: string): UserTextProblem | undefined {
  if (LONE_SURROGATE.test(text)) return USER_TEXT_ERROR_CODES.invalidText;
  if (!VISIBLE.test(text)) return USER_TEXT_ERROR_CODES.emptyText;
  return undefined;
}

/**
 * A required free-text field: well-formed UTF-16, at least one visible character, trimmed, at
 * most `maxLength` UTF-16 code units after trimming. The failing rule's code is in the issue's
 * `params.code`, which the API returns as the error code.
 *
 * @example
 * const titleSchema = userTextSchema('title', 200);
 */
export function userTextSchema(field: string, maxLength: number) {
  return z
    .string()
    .refine((text) => !LONE_SURROGATE.test(text), {
      message: `${field} must be valid Unicode text (it contains a lone surrogate)`,
      params: { code: USER_TEXT_ERROR_CODES.invalidText },
      abort: true,
    })
    .refine((text) => VISIBLE.test(text), {
      message: `${field} must not be empty or invisible`,
      params: { code: USER_TEXT_ERROR_CODES.emptyText },
      abort: true,
    })
    .trim()
    .max(maxLength, `${field} must be at most ${maxLength} characters`);
}
