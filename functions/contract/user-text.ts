import * as z from 'zod';
import type { RequestErrorCode } from './errors.js';

/**
 * What counts as text a person typed: the rule behind every free-text field of the API that is
 * stored (chat message, conversation title, feedback comment, mail-draft edit, the knowledge
 * form's subject, inquiry and steps — and any user text added later: declare it with
 * {@link userTextSchema}). The server validates bodies with it and the web app checks the
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

/**
 * Characters stored text never holds, refused rather than removed (a silent edit would store
 * what the person did not see they wrote, and a refusal names the character so they can find
 * it): C0 controls but tab and line feed (a carriage return only as part of CRLF), DEL and the
 * C1 controls — NUL, ESC, BEL and their kind travel on into mail clients, exports and terminals
 * — and the bidirectional embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069,
 * which reorder what follows them (`invoice\u202Efdp.exe` shows as "invoiceexe.pdf"). The
 * implicit marks U+200E, U+200F and U+061C stay: they cannot reverse a run of letters, only
 * place neutral characters beside right-to-left text, which is what Arabic or Hebrew text
 * pasted into a message needs them for.
 */
const UNSAFE_CHARACTER = /(?![\t\n]|\r\n)\p{Cc}|[\u202A-\u202E\u2066-\u2069]/u;

/** The first unsafe character of `text` as `U+XXXX`, or undefined when there is none. */
function unsafeCharacter(text: string): string | undefined {
  const found = UNSAFE_CHARACTER.exec(text)?.[0];
  return found === undefined
    ? undefined
    : `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

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
  if (unsafeCharacter(text) !== undefined) return USER_TEXT_ERROR_CODES.invalidText;
  return undefined;
}

/**
 * A required free-text field: well-formed UTF-16, at least one visible character, no control or
 * bidirectional-override character ({@link UNSAFE_CHARACTER}), trimmed, at most `maxLength`
 * UTF-16 code units after trimming. The failing rule's code is in the issue's
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
    .superRefine((text, context) => {
      const found = unsafeCharacter(text);
      if (found === undefined) return;
      context.addIssue({
        code: 'custom',
        message: `${field} must not contain control characters or bidirectional overrides (found ${found})`,
        params: { code: USER_TEXT_ERROR_CODES.invalidText },
        abort: true,
      });
    })
    .trim()
    .max(maxLength, `${field} must be at most ${maxLength} characters`);
}
