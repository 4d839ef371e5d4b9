import { createHash } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, type MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Log } from '../chat/log.js';
import { type ChatReport, type ChatTelemetry, type Owner, ownerKey } from '../chat/ports.js';
import type { AnswerFeedback } from '../contract/conversations.js';
import type { StreamErrorCode } from '../contract/errors.js';
import {
  chatMetrics,
  feedbackMetrics,
  insightsMetrics,
  knowledgeMetrics,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
} from './metric-catalog.js';
import { estimateCostUsd, MODEL_PRICES, type PriceTable, priceOf } from './model-prices.js';
import { createTracing, type Tracing } from './tracing.js';

/**
 * What the API function tells operators, through Powertools for AWS Lambda: one JSON log line
 * per request outcome and per failure (Logger), one set of embedded-metric-format metrics per
 * chat (Metrics), from the core's `ChatReport`, and, when tracing is on, the same outcome as
 * annotations of the request's X-Ray subsegment (Tracer, `tracing.ts`). No message text and no
 * raw user id ever: the owner appears as a hash.
 */

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';

export interface ObservabilityOptions {
  readonly logLevel: LogLevel;
  /** Publish EMF metrics (stdout lines CloudWatch turns into metrics). */
  readonly metrics: boolean;
  /** Trace requests and AWS calls with X-Ray (needs active tracing on the function). */
  readonly tracing: boolean;
  /** Prices for the estimated cost (`withPrices(MODEL_PRICES env)`). @default MODEL_PRICES */
  readonly prices?: PriceTable;
  /**
   * The model the function calls: without a price it is warned about once, when the
   * observability is created (cold start), rather than silently missing from the cost metric.
   */
  readonly modelId?: string;
}

export interface RequestOutcome {
  readonly requestId: string;
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly durationMs: number;
  readonly owner?: Owner;
  readonly conversationId?: string;
  readonly errorCode?: string;
}

/** One feedback post on an answer, for the helpful rate and which tickets solve inquiries. */
export interface FeedbackReport {
  readonly owner: Owner;
  readonly conversationId: string;
  readonly inquiryId: string;
  readonly feedback: AnswerFeedback;
  /** The rating this post replaced, when the answer had feedback already. */
  readonly previousRating?: AnswerFeedback['rating'];
}

/** One knowledge draft streamed or one ticket published (ADR 0011); never its text. */
export type KnowledgeReport =
  | {
      readonly kind: 'draft';
      readonly owner: Owner;
      readonly conversationId: string;
      readonly inquiryId: string;
      /** Whether the draft could be published as it came; undefined when none arrived. */
      readonly complete?: boolean;
      readonly failureCode?: StreamErrorCode;
      readonly inputTokens?: number;
      readonly outputTokens?: number;
    }
  | {
      readonly kind: 'published';
      readonly owner: Owner;
      readonly conversationId: string;
      readonly inquiryId: string;
      readonly issueId: string;
      readonly category: string;
      readonly restricted: boolean;
      readonly ingestion: 'started' | 'pending';
    };

export interface Observability {
  readonly logger: Logger;
  /** The core's logging port on {@link Observability.logger}: one JSON line per failure it reports. */
  readonly log: Log;
  readonly telemetry: ChatTelemetry;
  readonly tracing: Tracing;
  /** The request's line, written when its status is known (for a chat: when the stream starts). */
  requestFinished(outcome: RequestOutcome): void;
  /** Staff rated an answer: a log line naming the tickets that solved it, and metrics. */
  feedbackRecorded(report: FeedbackReport): void;
  /** A knowledge draft or publish: a log line (ids, never text) and metrics. */
  knowledgeRecorded(report: KnowledgeReport): void;
  /** An insights aggregate write failed (its log line is the recorder's): the metric. */
  insightsWriteFailed(operation: string): void;
  /** The chat's estimated cost in USD from the function's price table; undefined: no price. */
  estimateCostUsd(report: ChatReport): number | undefined;
  /** A failure worth a look (a 5xx, a bug); the error's stack goes to the log, not to the client. */
  requestFailed(outcome: RequestOutcome, error: unknown): void;
}

/**
 * The owner as logs and metrics name it: a short SHA-256 of the owner key, stable across
 * requests (usage per user can be counted) but not the user id itself.
 */
export function ownerHashOf(owner: Owner): string {
  return createHash('sha256').update(ownerKey(owner)).digest('hex').slice(0, 16);
}

export function createObservability(options: ObservabilityOptions): Observability {
  const logger = new Logger({ serviceName: METRICS_SERVICE, logLevel: options.logLevel });
  const tracing = createTracing({ enabled: options.tracing, logger });
  const prices = options.prices ?? MODEL_PRICES;
  if (options.modelId !== undefined && priceOf(options.modelId, prices) === undefined) {
    logger.warn('model has no price: the estimated cost of its chats is unknown', {
      model_id: options.modelId,
      hint: 'add it to the modelPrices deploy setting (docs/deploy.md, Cost)',
    });
  }
  // The first request of a container pays the init; the log says which one it was.
  let coldStart = true;
  const takeColdStart = () => {
    const cold = coldStart;
    coldStart = false;
    return cold;
  };
  const requestFields = (outcome: RequestOutcome) => ({
    request_id: outcome.requestId,
    method: outcome.method,
    route: outcome.route,
    status: outcome.status,
    duration_ms: Math.round(outcome.durationMs),
    cold_start: takeColdStart(),
    ...(outcome.owner ? { owner_hash: ownerHashOf(outcome.owner) } : {}),
    ...(outcome.conversationId ? { conversation_id: outcome.conversationId } : {}),
    ...(outcome.errorCode ? { error_code: outcome.errorCode } : {}),
  });

  const annotateRequest = (fields: ReturnType<typeof requestFields>) =>
    tracing.annotate({
      route: fields.route,
      method: fields.method,
      status: fields.status,
      owner_hash: fields.owner_hash,
      error_code: fields.error_code,
    });

  return {
    logger,
    log: {
      info: (message, fields) => logger.info(message, { ...fields }),
      warn: (message, fields) => logger.warn(message, { ...fields }),
      error: (message, fields) => logger.error(message, { ...fields }),
    },
    tracing,
    requestFinished(outcome) {
      const fields = requestFields(outcome);
      logger.info('request', fields);
      annotateRequest(fields);
    },
    requestFailed(outcome, error) {
      const fields = requestFields(outcome);
      logger.error('request failed', { ...fields, error: error as Error });
      annotateRequest(fields);
    },
    feedbackRecorded(report) {
      // Ticket numbers are no message content: they say which past tickets solve inquiries.
      logger.info('feedback', {
        owner_hash: ownerHashOf(report.owner),
        conversation_id: report.conversationId,
        inquiry_id: report.inquiryId,
        rating: report.feedback.rating,
        ...(report.feedback.reason ? { reason: report.feedback.reason } : {}),
        ...(report.previousRating ? { previous_rating: report.previousRating } : {}),
        helpful_ticket_ids: report.feedback.helpfulTicketIds ?? [],
        has_comment: report.feedback.comment !== undefined,
      });
      if (options.metrics) publishFeedbackMetrics(report);
    },
    insightsWriteFailed(operation) {
      if (!options.metrics) return;
      const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });
      metrics.addMetric(insightsMetrics.writeFailed.name, 'Count', 1);
      metrics.addMetadata('operation', operation);
      metrics.publishStoredMetrics();
    },
    estimateCostUsd(report) {
      if (report.inputTokens === undefined || report.outputTokens === undefined) return undefined;
      return estimateCostUsd(
        report.modelId,
        {
          inputTokens: report.inputTokens,
          outputTokens: report.outputTokens,
          cacheReadInputTokens: report.cacheReadInputTokens,
          cacheWriteInputTokens: report.cacheWriteInputTokens,
        },
        prices,
      );
    },
    knowledgeRecorded(report) {
      const common = {
        owner_hash: ownerHashOf(report.owner),
        conversation_id: report.conversationId,
        inquiry_id: report.inquiryId,
      };
      if (report.kind === 'draft') {
        logger.info('knowledge draft', {
          ...common,
          complete: report.complete,
          ...(report.failureCode ? { failure_code: report.failureCode } : {}),
          input_tokens: report.inputTokens,
          output_tokens: report.outputTokens,
        });
      } else {
        logger.info('knowledge published', {
          ...common,
          issue_id: report.issueId,
          category: report.category,
          restricted: report.restricted,
          ingestion: report.ingestion,
        });
      }
      if (options.metrics) publishKnowledgeMetrics(report);
    },
    telemetry: {
      chatFinished(report) {
        tracing.annotate({ chat_outcome: report.outcome, failure_code: report.failureCode });
        const costUsd =
          report.inputTokens === undefined || report.outputTokens === undefined
            ? undefined
            : estimateCostUsd(
                report.modelId,
                {
                  inputTokens: report.inputTokens,
                  outputTokens: report.outputTokens,
                  cacheReadInputTokens: report.cacheReadInputTokens,
                  cacheWriteInputTokens: report.cacheWriteInputTokens,
                },
                prices,
              );
        // Tokens without a price (a model not in the table, or cache tokens it has no price for).
        const costUnknown =
          report.inputTokens !== undefined &&
          report.outputTokens !== undefined &&
          costUsd === undefined;
        logger.info('chat finished', {
          owner_hash: ownerHashOf(report.owner),
          conversation_id: report.conversationId,
          inquiry_id: report.inquiryId,
          model_id: report.modelId,
          outcome: report.outcome,
          ...(report.failureCode ? { failure_code: report.failureCode } : {}),
          duration_ms: report.durationMs,
          time_to_first_token_ms: report.timeToFirstTokenMs,
          time_to_first_ticket_ms: report.timeToFirstTicketMs,
          retrieval_ms: report.retrievalMs,
          model_ms: report.modelMs,
          input_tokens: report.inputTokens,
          output_tokens: report.outputTokens,
          cache_read_input_tokens: report.cacheReadInputTokens,
          cache_write_input_tokens: report.cacheWriteInputTokens,
          estimated_cost_usd: costUsd,
          ...(costUnknown ? { cost_unknown: true } : {}),
          tickets_retrieved: report.ticketsRetrieved,
          tickets_cited: report.ticketsCited,
          tickets_dropped: report.ticketsDropped,
          restricted_filtered: report.restrictedFiltered,
          unverified_references: report.unverifiedReferences,
          // The count only: a link is message text and may carry a token or an address.
          unverified_links: report.unverifiedLinks,
          heartbeats_sent: report.heartbeatsSent,
        });
        if (options.metrics) publishChatMetrics(report, costUsd, costUnknown);
      },
    },
  };
}

/**
 * One EMF document per chat. A `Metrics` instance per chat, because the local stack runs
 * concurrent chats in one process and a shared instance would mix their values.
 */
function publishChatMetrics(
  report: ChatReport,
  costUsd: number | undefined,
  costUnknown: boolean,
): void {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });
  const add = (metric: { name: string; unit: string }, value: number | undefined) => {
    if (value !== undefined)
      metrics.addMetric(
        metric.name,
        metric.unit as (typeof MetricUnit)[keyof typeof MetricUnit],
        value,
      );
  };
  add(chatMetrics.outcome[report.outcome], 1);
  add(chatMetrics.timeToFirstToken, report.timeToFirstTokenMs);
  add(chatMetrics.timeToFirstTicket, report.timeToFirstTicketMs);
  add(chatMetrics.retrievalLatency, report.retrievalMs);
  add(chatMetrics.modelLatency, report.modelMs);
  add(chatMetrics.inputTokens, report.inputTokens);
  add(chatMetrics.outputTokens, report.outputTokens);
  add(chatMetrics.cacheReadInputTokens, report.cacheReadInputTokens);
  add(chatMetrics.cacheWriteInputTokens, report.cacheWriteInputTokens);
  add(chatMetrics.estimatedCost, costUsd);
  if (costUnknown) add(chatMetrics.costUnknown, 1);
  add(chatMetrics.heartbeats, report.heartbeatsSent);
  if (report.outcome !== 'replayed') {
    add(chatMetrics.ticketsCited, report.ticketsCited);
    add(chatMetrics.ticketsDropped, report.ticketsDropped);
    add(chatMetrics.restrictedFiltered, report.restrictedFiltered);
    add(chatMetrics.unverifiedReferences, report.unverifiedReferences);
    add(chatMetrics.unverifiedLinks, report.unverifiedLinks);
  }
  if (report.failureCode === 'model_throttled') add(chatMetrics.modelThrottled, 1);
  else if (report.failureCode && MODEL_FAILURES.has(report.failureCode)) {
    add(chatMetrics.modelErrors, 1);
  }
  // Searchable in the EMF document, never dimensions (unbounded cardinality).
  metrics.addMetadata('conversationId', report.conversationId);
  metrics.addMetadata('modelId', report.modelId);
  metrics.publishStoredMetrics();
}

/**
 * A verdict counts +1 for its rating; a changed verdict also counts −1 for the one it replaced,
 * so the sums over a period are the verdicts standing (a repeat of the same rating nets 0).
 */
function publishFeedbackMetrics(report: FeedbackReport): void {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });
  const change = (rating: AnswerFeedback['rating']) =>
    (report.feedback.rating === rating ? 1 : 0) - (report.previousRating === rating ? 1 : 0);
  metrics.addMetric(feedbackMetrics.up.name, 'Count', change('up'));
  metrics.addMetric(feedbackMetrics.down.name, 'Count', change('down'));
  metrics.addMetric(
    feedbackMetrics.helpfulTickets.name,
    'Count',
    report.feedback.helpfulTicketIds?.length ?? 0,
  );
  metrics.addMetadata('conversationId', report.conversationId);
  metrics.publishStoredMetrics();
}

function publishKnowledgeMetrics(report: KnowledgeReport): void {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });
  if (report.kind === 'draft') {
    metrics.addMetric(knowledgeMetrics.draftsComplete.name, 'Count', report.complete ? 1 : 0);
    metrics.addMetric(knowledgeMetrics.draftsIncomplete.name, 'Count', report.complete ? 0 : 1);
  } else {
    metrics.addMetric(knowledgeMetrics.published.name, 'Count', 1);
    metrics.addMetric(
      knowledgeMetrics.syncPending.name,
      'Count',
      report.ingestion === 'pending' ? 1 : 0,
    );
    metrics.addMetadata('issueId', report.issueId);
  }
  metrics.addMetadata('conversationId', report.conversationId);
  metrics.publishStoredMetrics();
}

const MODEL_FAILURES: ReadonlySet<StreamErrorCode> = new Set<StreamErrorCode>([
  'model_rejected',
  'model_unavailable',
  'model_stream_failed',
  'invalid_model_output',
  'empty_model_output',
  'model_output_truncated',
]);
