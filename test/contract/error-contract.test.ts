import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import {
  HTTP_STATUS_BY_CODE,
  HttpError,
  toErrorResponseBody,
  validateBody,
} from '../../functions/api/http.js';
import {
  AnswerInProgressError,
  ClientMessageIdReusedError,
  ConversationConflictError,
  ConversationNotFoundError,
  DailyBudgetExceededError,
  InquiryNotFoundError,
  InvalidCursorError,
  NotLatestQuestionError,
  type RequestRefusedError,
  StoreUnavailableError,
  TurnNotFoundError,
  TurnTooLargeError,
} from '../../functions/chat/errors.js';
import { streamEventSchemas } from '../../functions/contract/chat-events.js';
import { chatRequestSchema } from '../../functions/contract/chat-request.js';
import {
  ERROR_CODES,
  errorBodySchema,
  REQUEST_ERROR_CODES,
  STREAM_ERROR_CODES,
} from '../../functions/contract/errors.js';
import { publishKnowledgeRequestSchemaFor } from '../../functions/contract/knowledge.js';
import {
  InquiryNotSolvedError,
  KnowledgeAlreadyPublishedError,
  KnowledgeStoreUnavailableError,
} from '../../functions/knowledge/errors.js';

// The deployed categories are not the rule here: any safe category passes.
const publishKnowledgeRequestSchema = publishKnowledgeRequestSchemaFor([]);

const ULID = '01JDZQ7X5V3T6R8N2M4K9H1G0F';
const draft = {
  conversationId: ULID,
  inquiryId: ULID,
  subject: 'VPN が切れる',
  category: 'VPN',
  inquiry: '接続が 5 分で切れる',
  resolution: ['再起動する'],
};

/** What `validateBody` throws for `body`, rendered as the API renders it. */
function refusalOf(schema: z.ZodType, body: unknown) {
  try {
    validateBody(schema, body);
  } catch (error) {
    return toErrorResponseBody(error);
  }
  throw new Error('the body was accepted');
}

describe('the error codes', () => {
  it('are each declared once, and the union lists every request and stream code', () => {
    expect(new Set(REQUEST_ERROR_CODES).size).toBe(REQUEST_ERROR_CODES.length);
    expect(new Set(STREAM_ERROR_CODES).size).toBe(STREAM_ERROR_CODES.length);
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    expect([...ERROR_CODES].sort()).toEqual(
      [...new Set([...REQUEST_ERROR_CODES, ...STREAM_ERROR_CODES])].sort(),
    );
    for (const code of ERROR_CODES) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });

  it('each have an error status in the API, and the API maps no code the contract lacks', () => {
    expect(Object.keys(HTTP_STATUS_BY_CODE).sort()).toEqual([...REQUEST_ERROR_CODES].sort());
    for (const code of REQUEST_ERROR_CODES) {
      expect(HTTP_STATUS_BY_CODE[code], code).toBeGreaterThanOrEqual(400);
      expect(HTTP_STATUS_BY_CODE[code], code).toBeLessThan(600);
    }
  });
});

describe('toErrorResponseBody', () => {
  const now = new Date('2026-12-01T12:00:00Z');
  const cases: [RequestRefusedError, number][] = [
    [new ConversationNotFoundError(), 404],
    [new TurnNotFoundError(3), 404],
    [new InquiryNotFoundError(), 404],
    [new ConversationConflictError(), 409],
    [new NotLatestQuestionError(), 409],
    [new AnswerInProgressError(), 409],
    [new InquiryNotSolvedError(), 409],
    [new KnowledgeAlreadyPublishedError('900007'), 409],
    [new InvalidCursorError(), 400],
    [new TurnTooLargeError('The answer is too large to store'), 413],
    [new ClientMessageIdReusedError(), 422],
    [new DailyBudgetExceededError(new Date('2026-12-02T00:00:00Z'), now), 429],
    [new StoreUnavailableError(), 503],
    [new KnowledgeStoreUnavailableError(), 503],
    [new HttpError('method_not_allowed', 'PUT is not allowed here'), 405],
    [new HttpError('not_a_knowledge_editor', 'Only knowledge editors may publish'), 403],
    [new HttpError('not_a_service_desk_lead', 'Only service-desk leads may see insights'), 403],
    [new HttpError('knowledge_capture_disabled', 'Knowledge capture is not configured'), 501],
  ];

  it.each(cases)('renders %s with its code, its status and its own message', (error, status) => {
    const { statusCode, body } = toErrorResponseBody(error);
    expect(statusCode).toBe(status);
    expect(errorBodySchema.parse(body)).toEqual(body);
    expect(body.error).toMatchObject({ code: error.code, message: error.message });
  });

  it('names the existing ticket of an already published inquiry', () => {
    const { body } = toErrorResponseBody(new KnowledgeAlreadyPublishedError('900007'));
    expect(body.error.issueId).toBe('900007');
  });

  it('says when to come back after an outage or an exhausted budget', () => {
    expect(toErrorResponseBody(new StoreUnavailableError()).headers).toEqual({
      'retry-after': '5',
    });
    const budget = new DailyBudgetExceededError(new Date('2026-12-02T00:00:00Z'), now);
    expect(toErrorResponseBody(budget).headers).toEqual({ 'retry-after': String(12 * 3600) });
    expect(toErrorResponseBody(new NotLatestQuestionError()).headers).toEqual({});
  });

  it('answers anything unplanned with a 500 that shows no internals', () => {
    const leaky = Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:8000'), {
      statusCode: 404,
      code: 'not_found',
    });
    const { statusCode, body } = toErrorResponseBody(leaky);
    expect(statusCode).toBe(500);
    expect(errorBodySchema.parse(body).error.code).toBe('internal');
    expect(JSON.stringify(body)).not.toContain('ECONNREFUSED');
  });

  it('takes the status of an HttpError from the one map', () => {
    expect(new HttpError('unauthorized', 'Sign-in required').statusCode).toBe(401);
  });
});

describe('a validation error', () => {
  it('names the field it is about, as a dotted path', () => {
    const { statusCode, body } = refusalOf(publishKnowledgeRequestSchema, {
      ...draft,
      resolution: ['再起動する', ' '],
    });
    expect(statusCode).toBe(400);
    expect(errorBodySchema.parse(body).error).toEqual({
      code: 'empty_text',
      message: 'resolution.1: each resolution step must not be empty or invisible',
      field: 'resolution.1',
    });
  });

  it('names the field of a too-long value in its 413', () => {
    const { statusCode, body } = refusalOf(publishKnowledgeRequestSchema, {
      ...draft,
      subject: 'x'.repeat(201),
    });
    expect(statusCode).toBe(413);
    expect(body.error).toMatchObject({ code: 'too_large', field: 'subject' });
  });

  it('names the field of a plain schema rule with bad_request', () => {
    const { body } = refusalOf(publishKnowledgeRequestSchema, { ...draft, subject: 'a\nb' });
    expect(body.error).toEqual({
      code: 'bad_request',
      message: 'subject: subject must be one line',
      field: 'subject',
    });
  });

  it('names no field when the body as a whole is wrong', () => {
    const { body } = refusalOf(chatRequestSchema, ['not', 'an', 'object']);
    expect(body.error.code).toBe('bad_request');
    expect(body.error.message).toMatch(/^body: /);
    expect(body.error).not.toHaveProperty('field');
  });
});

describe('the SSE error event', () => {
  it('carries a stream code of the contract', () => {
    for (const code of STREAM_ERROR_CODES) {
      expect(streamEventSchemas.error.parse({ code, message: 'm', retryable: true }).code).toBe(
        code,
      );
    }
  });

  it('refuses a code nobody declared, so the server cannot send one', () => {
    const undeclared = { code: 'model_error', message: 'm', retryable: true };
    expect(streamEventSchemas.error.safeParse(undeclared).success).toBe(false);
  });
});
