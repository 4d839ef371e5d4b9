import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../functions/contract/errors.js';
import { ApiError, type FailureCode } from '../../../web/src/api/api-error.js';
import {
  describeError,
  isRetryableFailure,
  SENTENCE_BY_CODE,
} from '../../../web/src/errors/describe-error.js';

describe('describeError', () => {
  it('explains an expired sign-in in the chosen language', () => {
    expect(describeError({ code: 'unauthorized', httpStatus: 401 }, 'ja')).toContain('サインイン');
    expect(describeError({ code: 'unauthorized', httpStatus: 401 }, 'en')).toContain('sign-in');
    // A 401 without the API's body (the edge's own page) is explained by its status.
    const bare = { code: 'unrecognized_response', httpStatus: 401 } as const;
    expect(describeError(bare, 'en')).toContain('sign-in');
  });

  it('recognises throttling codes from the event stream', () => {
    expect(describeError({ code: 'model_throttled' }, 'en')).toContain('busy');
  });

  it('never shows an internal code for an unknown failure', async () => {
    const body = { error: { code: 'xyz_internal_42', message: 'xyz_internal_42 at line 7' } };
    const error = await ApiError.fromResponse(new Response(JSON.stringify(body), { status: 500 }));
    expect(error.code).toBe('unrecognized_response');
    const text = describeError({ code: error.code, httpStatus: error.status }, 'en');
    expect(text).not.toContain('xyz_internal_42');
    expect(text).toContain('server');
  });
});

describe('describeError for a broken model answer', () => {
  it.each([
    'invalid_model_output',
    'empty_model_output',
    'model_stream_failed',
    'model_output_truncated',
  ] as const)(
    'explains %s as the model failing, never as a problem with what staff typed',
    (code) => {
      expect(describeError({ code }, 'en')).toBe(
        "The AI model's answer broke off or could not be read. Please try again.",
      );
      expect(describeError({ code }, 'ja')).toContain('AI モデル');
    },
  );
});

describe('describeError for one answer per question', () => {
  it('says a conversation deleted mid-answer is gone, rather than suggesting a retry', () => {
    expect(describeError({ code: 'conversation_deleted' }, 'en')).toContain('deleted');
    expect(describeError({ code: 'conversation_deleted' }, 'en')).not.toContain('retry');
  });

  it('says a retried question is still being answered, and that retrying shows that answer', () => {
    expect(describeError({ code: 'answer_in_progress' }, 'en')).toContain('still being answered');
    expect(describeError({ code: 'answer_in_progress', httpStatus: 200 }, 'ja')).toContain(
      '回答中',
    );
  });

  it('asks for a fresh send when a clientMessageId was reused with other content', () => {
    expect(describeError({ code: 'client_message_id_reused', httpStatus: 422 }, 'en')).toContain(
      'Send the message again',
    );
  });
});

describe('describeError for an edit of a question that is no longer the latest', () => {
  it('says a newer question exists and offers no retry, which would be refused again', () => {
    const refused = { code: 'not_latest_question', httpStatus: 409 } as const;
    expect(describeError(refused, 'en')).toContain('newer question');
    expect(describeError(refused, 'ja')).toContain('新しい質問');
    expect(isRetryableFailure(refused)).toBe(false);
    // Other conflicts stay retryable.
    expect(isRetryableFailure({ code: 'conflict', httpStatus: 409 })).toBe(true);
  });
});

describe('a store outage', () => {
  it('is explained as temporary, from the code of an event or the 503 of a response', () => {
    expect(describeError({ code: 'store_unavailable' }, 'en')).toContain('Wait a moment');
    const bare = { code: 'unrecognized_response', httpStatus: 503 } as const;
    expect(describeError(bare, 'en')).toContain('Wait a moment');
    expect(describeError({ code: 'store_unavailable', httpStatus: 503 }, 'ja')).toContain(
      '少し待って',
    );
  });

  it('is worth trying again, unlike input the server refused', () => {
    expect(isRetryableFailure({ code: 'store_unavailable', httpStatus: 503 })).toBe(true);
    expect(isRetryableFailure({ code: 'store_unavailable' })).toBe(true);
    expect(isRetryableFailure({ code: 'unrecognized_response', httpStatus: 429 })).toBe(true);
    expect(isRetryableFailure({ code: 'invalid_text', httpStatus: 400 })).toBe(false);
    expect(isRetryableFailure({ code: 'unsupported_media_type', httpStatus: 415 })).toBe(false);
    expect(isRetryableFailure({ code: 'not_found', httpStatus: 404 })).toBe(false);
  });
});

describe('the daily budget', () => {
  it('says the allowance is used up and when it resets, not that the service is busy', () => {
    const text = describeError({ code: 'daily_budget_exceeded', httpStatus: 429 }, 'en');
    expect(text).toContain('midnight UTC');
    expect(text).not.toContain('busy');
  });
});

describe('describeError for knowledge capture', () => {
  it.each([
    ['not_a_knowledge_editor', 403, 'not allowed to publish'],
    ['inquiry_not_solved', 409, 'not solved'],
    ['already_published', 409, 'already published'],
    ['knowledge_capture_disabled', 501, 'not enabled'],
    ['knowledge_store_unavailable', 503, 'knowledge store'],
  ] as const)('explains %s (%i) instead of the status alone', (code, httpStatus, words) => {
    expect(describeError({ code, httpStatus }, 'en')).toContain(words);
    // Not the status's generic sentence (a 403 is not an expired sign-in here).
    expect(describeError({ code, httpStatus }, 'ja')).not.toBe(
      describeError({ code: 'unrecognized_response', httpStatus }, 'ja'),
    );
  });
});

describe('describeError for the insights page', () => {
  it('tells a staff member who is not a lead that the page is for leads, not that the sign-in expired', () => {
    expect(describeError({ code: 'not_a_service_desk_lead', httpStatus: 403 }, 'en')).toContain(
      'only for service-desk leads',
    );
    expect(describeError({ code: 'not_a_service_desk_lead', httpStatus: 403 }, 'ja')).toContain(
      'リーダー専用',
    );
    expect(describeError({ code: 'not_a_service_desk_lead', httpStatus: 403 }, 'en')).not.toBe(
      describeError({ code: 'unrecognized_response', httpStatus: 403 }, 'en'),
    );
  });
});

describe('a guardrail intervention', () => {
  it('says the safety filter blocked the answer, and offers no retry that would be blocked again', () => {
    expect(describeError({ code: 'guardrail_intervened' }, 'en')).toContain('Guardrail');
    expect(describeError({ code: 'guardrail_intervened' }, 'ja')).toContain('ブロック');
    expect(isRetryableFailure({ code: 'guardrail_intervened' })).toBe(false);
  });
});

describe('the message map', () => {
  it('explains every code of the contract in both languages, each with its own words', () => {
    for (const code of ERROR_CODES) {
      const sentence = SENTENCE_BY_CODE[code];
      expect(sentence, code).toBeDefined();
      expect(sentence.ja, code).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/u);
      expect(sentence.en, code).toMatch(/^[A-Z]/);
      expect(describeError({ code }, 'ja'), code).toBe(sentence.ja);
      expect(describeError({ code }, 'en'), code).toBe(sentence.en);
    }
  });

  it('covers exactly the contract and the browser-only codes, nothing stale', () => {
    const browserOnly: FailureCode[] = [
      'network',
      'stream_cut',
      'not_event_stream',
      'unrecognized_response',
      'stored_failure',
      'unknown',
    ];
    expect(Object.keys(SENTENCE_BY_CODE).sort()).toEqual([...ERROR_CODES, ...browserOnly].sort());
  });

  it('tells a question superseded mid-answer that its newer version is answered', () => {
    expect(describeError({ code: 'question_superseded' }, 'en')).toContain('newer version');
    expect(describeError({ code: 'question_superseded' }, 'ja')).toContain('新しい方');
    expect(describeError({ code: 'question_superseded' }, 'en')).not.toBe(
      describeError({ code: 'internal' }, 'en'),
    );
  });
});
