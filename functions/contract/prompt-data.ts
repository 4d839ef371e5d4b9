/**
 * Data elements every model prompt carries beside its feature's own (ADR 0015). The system
 * prompt says the same in words for the model; a reader of the request that is not a language
 * model — the local offline responder — takes it from here, so rewording a prompt changes
 * nothing it does.
 */

/** The language the answer is written in: `ja` or `en` as the element's text. */
export const ANSWER_LANGUAGE_ELEMENT = 'answer_language';
