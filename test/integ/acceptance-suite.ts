import {
  clarificationCheck,
  contaminationCheck,
  groundingCheck,
  readRestrictedTickets,
  restrictedTicketsCheck,
} from './checks/answer-checks.js';
import { knowledgeCaptureCheck } from './checks/knowledge-checks.js';
import {
  cleanUpCheck,
  functionUrlCheck,
  retrievalEvaluationCheck,
  usageCheck,
} from './checks/platform-checks.js';
import {
  type CheckOutcome,
  firstTokenCheck,
  heartbeatCheck,
  tokenSpreadCheck,
} from './checks/streaming-checks.js';
import type { CheckResult, IntegReport } from './integ-report.js';
import type { IntegTarget } from './integ-target.js';
import { createSuiteSession, type SentChat, type SuiteSession } from './suite-session.js';

/**
 * The acceptance suite a platform team runs after every deploy (`npm run test:integ`), and its
 * dry run against the local stack (`-- --local`). Every check runs, in this order, whatever the
 * ones before found; a check that throws fails with the error; a check the target cannot run is
 * "not applicable" with the target's reason. Grounding, usage and the clean-up look at every
 * chat the checks before them sent.
 */

export interface SuiteOptions {
  /** The question whose stream is timed. @default a Salesforce login question */
  readonly message?: string;
  /** Restricted tickets probed (each by subject and by number). @default all */
  readonly probeLimit?: number;
  /** Chats in flight at once during the probes. @default 4 */
  readonly concurrency?: number;
  /** @default 'data/tickets' */
  readonly ticketsDir?: string;
  /** @default 'data/eval/retrieval-queries.jsonl' */
  readonly evalQueriesPath?: string;
  /** Progress lines (check started / finished). */
  readonly log?: (line: string) => void;
}

/** Every check, in the order it runs. The ids are the report's and the docs'. */
export const CHECK_IDS = [
  'first-token',
  'token-spread',
  'heartbeats',
  'function-url-unsigned',
  'restricted-tickets',
  'contamination',
  'clarification',
  'grounding',
  'retrieval-evaluation',
  'knowledge-capture',
  'usage-and-cost',
  'clean-up',
] as const;
export type CheckId = (typeof CHECK_IDS)[number];

const DEFAULT_MESSAGE = 'Salesforceにログインできません。どうすればよいですか？';

export async function runAcceptanceSuite(
  target: IntegTarget,
  options: SuiteOptions = {},
): Promise<IntegReport> {
  const log = options.log ?? (() => undefined);
  const startedAt = new Date().toISOString();
  const session = createSuiteSession(target);
  let timed: Promise<SentChat> | undefined;
  const timedChat = () => {
    timed ??= session.send('timed chat', { message: options.message ?? DEFAULT_MESSAGE });
    return timed;
  };
  const restricted = readRestrictedTickets(options.ticketsDir ?? 'data/tickets');

  const checks: Record<
    CheckId,
    { title: string; run: (session: SuiteSession) => Promise<CheckOutcome> | CheckOutcome }
  > = {
    'first-token': {
      title: 'Time to first token and first ticket',
      run: async () => firstTokenCheck(await timedChat()),
    },
    'token-spread': {
      title: 'Token arrival spread (one burst = streaming broken)',
      run: async () => tokenSpreadCheck(await timedChat()),
    },
    heartbeats: {
      title: 'A long answer survives past the origin read timeout (heartbeats reach the client)',
      run: heartbeatCheck,
    },
    'function-url-unsigned': {
      title: "A direct Function URL call without CloudFront's signature is refused (403)",
      run: () => functionUrlCheck(target),
    },
    'restricted-tickets': {
      title: 'Restricted tickets never appear (probes by subject and by number)',
      run: async () =>
        restrictedTicketsCheck(session, await restricted, {
          probeLimit: options.probeLimit ?? Number.POSITIVE_INFINITY,
          concurrency: options.concurrency ?? 4,
        }),
    },
    contamination: {
      title: 'No contamination: Q2 (Salesforce) carries nothing of Q1 (printer)',
      run: contaminationCheck,
    },
    clarification: { title: 'A clarification round trip', run: clarificationCheck },
    grounding: {
      title: "Grounding: every ticket card is among its chat's retrieved tickets",
      run: groundingCheck,
    },
    'retrieval-evaluation': {
      title: 'Retrieval evaluation against the Knowledge Base (recall, MRR)',
      run: () =>
        retrievalEvaluationCheck(
          target,
          options.evalQueriesPath ?? 'data/eval/retrieval-queries.jsonl',
        ),
    },
    'knowledge-capture': {
      title: 'Knowledge capture: draft, publish, retrieved and cited by the next question, removed',
      run: knowledgeCaptureCheck,
    },
    'usage-and-cost': {
      title: 'Tokens and estimated cost per chat (stored usage)',
      run: usageCheck,
    },
    'clean-up': { title: 'The run deletes its conversations through the API', run: cleanUpCheck },
  };

  const results: CheckResult[] = [];
  for (const id of CHECK_IDS) {
    const { title, run } = checks[id];
    const reason = target.notApplicable[id];
    if (reason !== undefined) {
      results.push({
        id,
        title,
        status: 'na',
        summary: `not applicable ${target.kind === 'local' ? 'locally' : 'on this target'}: ${reason}`,
        figures: {},
        details: [],
      });
      log(`${id}: not applicable`);
      continue;
    }
    log(`${id}: running…`);
    const started = performance.now();
    let outcome: CheckOutcome;
    try {
      outcome = await run(session);
    } catch (error) {
      outcome = {
        status: 'fail',
        summary: `the check failed to run: ${error instanceof Error ? error.message : String(error)}`,
        figures: {},
        details:
          error instanceof Error && error.stack
            ? [error.stack.split('\n').slice(0, 4).join(' ')]
            : [],
      };
    }
    const seconds = Number(((performance.now() - started) / 1000).toFixed(1));
    results.push({ id, title, ...outcome, figures: { ...outcome.figures, checkSeconds: seconds } });
    log(`${id}: ${outcome.status} (${seconds} s)`);
  }
  return {
    target: { kind: target.kind, label: target.label, vectorStore: target.vectorStore },
    startedAt,
    finishedAt: new Date().toISOString(),
    checks: results,
    passed: results.every((result) => result.status !== 'fail'),
  };
}
