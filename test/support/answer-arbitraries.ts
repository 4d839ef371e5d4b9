import fc from 'fast-check';

/** Characters that stress a streaming JSON parser: JSON syntax, escapes, CJK, emoji, lone surrogates. */
const trickyUnit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 4 }) },
  { weight: 2, arbitrary: fc.constantFrom(...'"\\{}[]:,/\n\r\t\b\f\u0000\u001f\u007f\u2028 ') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(...'ログインできない。パスワード日本語テキスト、です！'),
  },
  { weight: 2, arbitrary: fc.constantFrom('😀', '👍🏽', '🇯🇵', '𠮷', '👨‍👩‍👧') },
  { weight: 1, arbitrary: fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\ud83d') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('"general_advice": "', '{"results":[', '\\u00', '"}', '],', 'true'),
  },
);

/** Text with every kind of character a model (or an attacker) may write. */
export const trickyText = (maxLength = 60) => fc.string({ unit: trickyUnit, maxLength });

const validTicket = fc.record({
  issue_id: fc.stringMatching(/^[0-9]{1,6}$/),
  subject: trickyText(20),
  summary: trickyText(40),
  resolution: trickyText(40),
});

/** Mostly valid tickets; some break the schema (missing field, wrong type, extra nesting). */
const ticket = fc.oneof(
  { weight: 5, arbitrary: validTicket },
  { weight: 1, arbitrary: validTicket.map(({ subject: _, ...rest }) => rest) },
  { weight: 1, arbitrary: validTicket.map((t) => ({ ...t, issue_id: 1234 })) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

const todo = fc.oneof(
  { weight: 5, arbitrary: trickyText(30) },
  { weight: 1, arbitrary: fc.integer() },
);

/** An object with the streamed keys nested inside: those must not stream. */
const decoy = fc.record({
  general_advice: trickyText(20),
  results: fc.array(validTicket, { maxLength: 2 }),
  mail_draft: fc.jsonValue({ maxDepth: 2 }),
});

/**
 * Tool inputs shaped like `answerSchema` — plus invalid elements, decoy keys and unknown fields —
 * with their keys in random order. `scale` shrinks the texts (for quadratic checks).
 */
export const answerLikeScaled = (scale: number) =>
  fc
    .record(
      {
        response_type: fc.constantFrom('results', 'clarification'),
        general_advice: trickyText(Math.ceil(120 * scale)),
        question: trickyText(Math.ceil(40 * scale)),
        options: fc.array(trickyText(Math.ceil(20 * scale)), { maxLength: 4 }),
        results: fc.array(ticket, { maxLength: 4 }),
        mail_draft: trickyText(Math.ceil(80 * scale)),
        todo_actions: fc.array(todo, { maxLength: 4 }),
        reasoning: trickyText(Math.ceil(40 * scale)),
        meta: decoy,
        extra: fc.jsonValue({ maxDepth: 3 }),
      },
      { requiredKeys: ['response_type', 'general_advice'] },
    )
    .chain((answer) =>
      fc
        .shuffledSubarray(Object.keys(answer), { minLength: Object.keys(answer).length })
        .map((keys) =>
          Object.fromEntries(keys.map((key) => [key, (answer as Record<string, unknown>)[key]])),
        ),
    );

export const answerLike = answerLikeScaled(1);

/** Streamed keys with values of the wrong type: they must be built, never streamed. */
export const wrongTypes = fc.record({
  general_advice: fc.oneof(fc.integer(), fc.constant(null), fc.array(trickyText(10)), decoy),
  results: fc.oneof(trickyText(10), decoy, fc.constant(false)),
  todo_actions: fc.array(fc.oneof(fc.double(), fc.integer(), fc.boolean()), { maxLength: 4 }),
  mail_draft: fc.jsonValue({ maxDepth: 2 }),
});

/** Fragment sizes: the usual 1–24, single characters, or tiny 1–3 pieces. */
export const fragmentSizes = fc.oneof(
  fc.array(fc.integer({ min: 1, max: 24 }), { minLength: 1, maxLength: 16 }),
  fc.constant([1]),
  fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 8 }),
);
