import fc from 'fast-check';
import type { StreamEvent } from '../../../functions/contract/chat-events.js';
import { trickyText } from '../../support/answer-arbitraries.js';

/** Text for SSE payloads: everything, including CR, LF, U+2028 and astral characters. */
const text = trickyText(30);
const id = fc.stringMatching(/^[0-9A-Z]{26}$/);
const version = fc.integer({ min: 0, max: 1_000_000 });
const ticket = fc.record({
  issue_id: fc.stringMatching(/^[0-9]{1,8}$/),
  subject: text,
  summary: text,
  resolution: text,
});
const nonEmpty = trickyText(20).filter((value) => value.length > 0 && value.length <= 200);

/** One valid event of every kind in `streamEventSchemas`. */
export const chatEvent: fc.Arbitrary<StreamEvent> = fc.oneof(
  fc.record({
    event: fc.constant('meta' as const),
    data: fc.record({ conversationId: id, inquiryId: id, version, modelId: fc.string() }),
  }),
  fc.record({
    event: fc.constant('progress' as const),
    data: fc.record({
      step: fc.constantFrom('analyzing', 'retrieving', 'fetching', 'generating' as const),
    }),
  }),
  fc.record({ event: fc.constant('kb_query' as const), data: fc.record({ query: text }) }),
  fc.record({
    event: fc.constant('kb_chunks' as const),
    data: fc.record({
      chunks: fc.array(
        fc.record({
          issue_id: fc.stringMatching(/^[0-9]{1,6}$/),
          subject: text,
          score: fc.double({ min: 0, max: 1, noNaN: true }),
          preview: text,
        }),
        { maxLength: 3 },
      ),
    }),
  }),
  fc.record({ event: fc.constant('token' as const), data: fc.record({ content: text }) }),
  fc.record({ event: fc.constant('ticket' as const), data: ticket }),
  fc.record({
    event: fc.constant('result' as const),
    data: fc.record(
      {
        response_type: fc.constantFrom('clarification', 'results' as const),
        general_advice: text,
        question: text,
        options: fc.array(nonEmpty, { maxLength: 4 }),
        results: fc.array(ticket, { maxLength: 3 }),
        mail_draft: text,
        todo_actions: fc.array(nonEmpty, { maxLength: 3 }),
        reasoning: text,
        source_chunks_count: fc.nat({ max: 100 }),
        unverified_references: fc.array(fc.stringMatching(/^[1-9][0-9]{2,7}$/), { maxLength: 3 }),
        conversationId: id,
        version,
        seq: fc.integer({ min: 2, max: 100_000 }),
        status: fc.constantFrom('complete', 'truncated', 'stopped' as const),
      },
      {
        requiredKeys: [
          'response_type',
          'general_advice',
          'conversationId',
          'version',
          'seq',
          'status',
        ],
      },
    ),
  }),
  // The hand-off summary's stream (ADR 0024): multi-line text in every field.
  fc.record({
    event: fc.constant('summary_text' as const),
    data: fc.record({
      field: fc.constantFrom('symptom', 'environment', 'told_requester' as const),
      content: text,
    }),
  }),
  fc.record({
    event: fc.constant('summary_item' as const),
    data: fc.record({
      field: fc.constantFrom('tried', 'open_questions' as const),
      index: fc.nat({ max: 19 }),
      text: nonEmpty,
    }),
  }),
  fc.record({
    event: fc.constant('summary' as const),
    data: fc.record({
      symptom: text,
      environment: text,
      tried: fc.array(nonEmpty, { maxLength: 3 }),
      told_requester: text,
      open_questions: fc.array(nonEmpty, { maxLength: 3 }),
      language: fc.constantFrom('ja', 'en' as const),
      outcome: fc.constantFrom(
        'solved',
        'no_results',
        'clarification_open',
        'answer_failed',
        'unanswered' as const,
      ),
      complete: fc.boolean(),
    }),
  }),
  fc.record({
    event: fc.constant('error' as const),
    data: fc.record({
      code: fc.constantFrom('model_throttled', 'internal'),
      message: text,
      retryable: fc.boolean(),
    }),
  }),
);
