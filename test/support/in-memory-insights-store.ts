import type { AnswerFeedback } from '../../functions/contract/conversations.js';
import {
  answerKey,
  type CounterGroup,
  type CounterIncrement,
  type CounterRow,
  chatIncrements,
  countedVerdictOf,
  type ExampleRow,
  feedbackIncrements,
  gapKey,
  MAX_EXAMPLES_PER_TOPIC_DAY,
  type MailDraftAnswerState,
  mailDraftIncrements,
  mailDraftMarkOf,
  newGapExampleId,
  type SolvedRow,
} from '../../functions/insights/aggregates.js';
import {
  buildInsights,
  dayOf,
  RETRIEVED_HORIZON_DAYS,
  windowOf,
} from '../../functions/insights/build-insights.js';
import type {
  EvaluationRun,
  FeedbackInsight,
  InsightsScope,
  InsightsStore,
} from '../../functions/insights/ports.js';

interface TenantAggregates {
  counters: Map<
    CounterGroup,
    Map<string, { counters: Record<string, number>; labels?: CounterRow['labels'] }>
  >;
  retrieved: Map<string, Set<string>>;
  examples: Map<string, ExampleRow>;
  /** With the verdict time of the feedback that wrote it: an older verdict never overwrites. */
  solved: Map<string, SolvedRow & { feedbackAt: string }>;
  /**
   * The topic and day of each recorded answer, for feedback that names no topic; its verdict; and
   * its draft's marks (`day` absent when only a draft action created the entry).
   */
  answers: Map<
    string,
    {
      day?: string;
      topic?: NonNullable<FeedbackInsight['topic']>;
      /** `recordChat` counted the answer as a gap (set with the topic, as the DynamoDB store). */
      chatCountedGap?: boolean;
      verdict?: AnswerFeedback;
    } & Omit<MailDraftAnswerState, 'day'>
  >;
  evaluation?: EvaluationRun;
}

/**
 * The `InsightsStore` port in memory, for in-process tests of the API without Java. The
 * conformance suite (test/support/insights-store-conformance.ts) runs the same cases on it and on
 * the DynamoDB store, so it cannot drift: the same increments (`functions/insights/aggregates.ts`),
 * the same example bound, the same read (`buildInsights`). Every row is copied in and out.
 *
 * @example
 * const insights = createInMemoryInsightsStore();
 * await insights.recordChat({ tenantId: 'acme' }, chatInsight);
 */
export function createInMemoryInsightsStore(): InsightsStore {
  const tenants = new Map<string, TenantAggregates>();
  const tenantOf = (scope: InsightsScope): TenantAggregates => {
    let found = tenants.get(scope.tenantId);
    if (!found) {
      found = {
        counters: new Map(),
        retrieved: new Map(),
        examples: new Map(),
        solved: new Map(),
        answers: new Map(),
      };
      tenants.set(scope.tenantId, found);
    }
    return found;
  };
  const groupOf = (tenant: TenantAggregates, group: CounterGroup) => {
    let found = tenant.counters.get(group);
    if (!found) {
      found = new Map();
      tenant.counters.set(group, found);
    }
    return found;
  };
  const apply = (tenant: TenantAggregates, increment: CounterIncrement) => {
    const items = groupOf(tenant, increment.group);
    const item = items.get(increment.key) ?? { counters: {} };
    for (const [name, value] of Object.entries(increment.add)) {
      item.counters[name] = (item.counters[name] ?? 0) + value;
    }
    // As `SET label = if_not_exists(label, :label)`: the first writer names the item.
    if (increment.labels) item.labels = { ...increment.labels, ...item.labels };
    // As a plain `SET`: the last writer's label stands.
    if (increment.latestLabels) item.labels = { ...item.labels, ...increment.latestLabels };
    items.set(increment.key, item);
  };
  const rowsOf = (tenant: TenantAggregates, group: CounterGroup): CounterRow[] =>
    [...(tenant.counters.get(group)?.entries() ?? [])].map(([key, item]) => ({
      key,
      counters: { ...item.counters },
      ...(item.labels ? { labels: { ...item.labels } } : {}),
    }));

  return {
    async recordChat(scope, insight) {
      const tenant = tenantOf(scope);
      for (const increment of chatIncrements(insight)) apply(tenant, increment);
      const id = answerKey(insight.conversationId, insight.answerSeq);
      const retrieved = tenant.retrieved.get(insight.day) ?? new Set<string>();
      for (const issueId of [...insight.retrievedIssueIds, ...insight.citedIssueIds]) {
        retrieved.add(issueId);
      }
      tenant.retrieved.set(insight.day, retrieved);
      const { gap } = insight;
      tenant.answers.set(id, {
        ...tenant.answers.get(id),
        day: insight.day,
        chatCountedGap: gap !== undefined,
        ...(gap
          ? { topic: { topicKey: gap.topicKey, category: gap.category, terms: gap.terms } }
          : {}),
        ...(insight.topic ? { topic: insight.topic } : {}),
        ...(insight.hasMailDraft ? { hasMailDraft: true } : {}),
      });
      if (gap?.example) {
        // The bound of the DynamoDB store's conditional write: a slot per topic and day.
        const item = groupOf(tenant, 'gap').get(gapKey(insight.day, gap.topicKey));
        if (item && (item.counters.examples ?? 0) < MAX_EXAMPLES_PER_TOPIC_DAY) {
          item.counters.examples = (item.counters.examples ?? 0) + 1;
          tenant.examples.set(id, {
            id,
            exampleId: newGapExampleId(),
            day: insight.day,
            topicKey: gap.topicKey,
            text: gap.example.text,
            ownerHash: gap.example.ownerHash,
            ...(gap.example.source ? { source: { ...gap.example.source } } : {}),
          });
        }
      }
    },

    async recordFeedback(scope, insight) {
      const tenant = tenantOf(scope);
      const id = answerKey(insight.conversationId, insight.answerSeq);
      // As the DynamoDB store's conditional swap: the delta is from the verdict this write
      // replaced; an older or repeated verdict changes nothing.
      const stored = tenant.answers.get(id);
      const answer = { ...stored, day: stored?.day ?? insight.answerDay };
      if (answer.verdict && answer.verdict.updatedAt >= insight.next.updatedAt) return;
      const previous = answer.verdict;
      tenant.answers.set(id, { ...answer, verdict: countedVerdictOf(insight.next) });
      const topic = insight.topic ?? answer.topic;
      const resolved: FeedbackInsight = { ...insight, ...(topic ? { topic } : {}) };
      const counted = { chatCountedGap: answer.chatCountedGap === true };
      for (const increment of feedbackIncrements(resolved, previous, counted)) {
        apply(tenant, increment);
      }
      const issueIds = insight.next.helpfulTicketIds ?? [];
      // The example follows the latest verdict (older ones returned above).
      const example = tenant.examples.get(id);
      if (example) tenant.examples.set(id, { ...example, solved: issueIds.length > 0 });
      const solved = tenant.solved.get(id);
      if (solved && solved.feedbackAt > insight.next.updatedAt) return;
      if (issueIds.length > 0 && insight.inquiryText !== undefined) {
        tenant.solved.set(id, {
          id,
          day: insight.answerDay,
          text: insight.inquiryText,
          issueIds: [...issueIds],
          ...(topic ? { topicKey: topic.topicKey } : {}),
          feedbackAt: insight.next.updatedAt,
        });
      } else if (solved) {
        // Emptied, its text gone, as the DynamoDB store does: an older verdict cannot come back.
        tenant.solved.set(id, {
          ...solved,
          text: '',
          issueIds: [],
          feedbackAt: insight.next.updatedAt,
        });
      }
    },

    async recordMailDraft(scope, insight) {
      const tenant = tenantOf(scope);
      const id = answerKey(insight.conversationId, insight.answerSeq);
      // As the DynamoDB store's `SET mark = if_not_exists(mark, :at)` with ALL_OLD: the state
      // before this action's mark decides, and nothing awaits between the read and the write.
      const before = tenant.answers.get(id);
      const mark = mailDraftMarkOf(insight.action);
      tenant.answers.set(id, { ...before, [mark]: before?.[mark] ?? insight.at });
      for (const increment of mailDraftIncrements(insight, before && { ...before })) {
        apply(tenant, increment);
      }
    },

    async recordCapture(scope, event) {
      const counter = { draft: 'drafts', published: 'published', sync_waited: 'syncsWaited' }[
        event.kind
      ];
      apply(tenantOf(scope), { group: 'capture', key: event.day, add: { [counter]: 1 } });
    },

    async forgetConversation(scope, conversationId) {
      const tenant = tenantOf(scope);
      const prefix = `${conversationId}#`;
      for (const map of [tenant.examples, tenant.solved, tenant.answers]) {
        for (const id of [...map.keys()]) if (id.startsWith(prefix)) map.delete(id);
      }
    },

    async listSolvedInquiries(scope) {
      return [...tenantOf(scope).solved.values()]
        .filter((row) => row.issueIds.length > 0)
        .sort((a, b) => a.id.localeCompare(b.id))
        .map((row) => ({ text: row.text, issueIds: [...row.issueIds], day: row.day }));
    },

    async findGapExample(scope, exampleId) {
      for (const [key, row] of tenantOf(scope).examples) {
        if (row.exampleId !== exampleId || !row.source) continue;
        const at = key.lastIndexOf('#');
        return {
          conversationId: key.slice(0, at),
          answerSeq: Number(key.slice(at + 1)),
          ...row.source,
          solved: row.solved === true,
        };
      }
      return undefined;
    },

    async recordEvaluationRun(scope, run) {
      tenantOf(scope).evaluation = structuredClone(run);
    },

    async readInsights(scope, days, now, options) {
      const tenant = tenantOf(scope);
      const horizonFrom = windowOf(RETRIEVED_HORIZON_DAYS, now).first;
      return buildInsights(
        {
          days: rowsOf(tenant, 'day'),
          gaps: rowsOf(tenant, 'gap'),
          tickets: rowsOf(tenant, 'ticket-day'),
          captures: rowsOf(tenant, 'capture'),
          retrieved: [...tenant.retrieved.entries()]
            .filter(([day]) => day >= horizonFrom && day <= dayOf(now.getTime()))
            .map(([day, issueIds]) => ({ day, issueIds: [...issueIds] })),
          examples: [...tenant.examples.values()].map((row) => ({ ...row })),
        },
        {
          days,
          now,
          ...(tenant.evaluation ? { evaluation: structuredClone(tenant.evaluation) } : {}),
          ...(options?.catalog ? { catalog: options.catalog } : {}),
        },
      );
    },
  };
}
