/**
 * `npm run insights` — the insights page's figures (issue #28) in a terminal: activity, knowledge
 * gaps, what helped, knowledge capture and the latest retrieval evaluation from use, read with
 * the page's own `readInsights` (O(days × topics) items, never the conversations).
 *
 *   npm run insights                       the local stack's data (.data/dynamodb; stop `npm start`
 *                                          first or pass --endpoint of its running DynamoDB)
 *   npm run insights -- --target aws       the deployed stack's insights table (stack output
 *                                          InsightsTableName; INSIGHTS_STACK_NAME or cdk.json stackName)
 *   --since 30d|90d                        the window (default 30d)
 *   --json                                 the `GET /api/insights` body as JSON
 *   --endpoint URL, --table NAME, --tenant ID   see scripts/insights/insights-options.ts
 *
 * "Never retrieved in 90 days" counts out of the ticket catalog (scripts/open-insights-store.ts):
 * the deployed data source's listing, or locally the served ticket folders; where there is none
 * the report says the tickets cannot be listed, and the JSON body has no `total`.
 *
 * Without AWS credentials `--target aws` prints a SKIPPED line and exits 0, as `npm run usage` and
 * `npm run eval` do; any other failure is one line (no stack trace) and exit code 1.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { SkipError } from './deployed-stack.js';
import { InsightsUsageError, parseInsightsOptions } from './insights/insights-options.js';
import { renderInsights } from './insights/render-insights.js';
import { openInsightsStore } from './open-insights-store.js';

async function main(): Promise<void> {
  const options = parseInsightsOptions(process.argv.slice(2));
  const source = await openInsightsStore({ ...options, stackNameVariable: 'INSIGHTS_STACK_NAME' });
  try {
    const catalog = await source.catalog?.issueIds();
    const insights = await source.store.readInsights(
      { tenantId: options.tenantId },
      options.days,
      new Date(),
      catalog === undefined ? {} : { catalog },
    );
    if (options.json) console.log(JSON.stringify(insights, null, 2));
    else {
      console.log(
        `${renderInsights(insights)}\n\n(${source.label}; ${catalog === undefined && source.catalog ? 'ticket catalog: the listing failed (see above), so the tickets are not listed' : source.catalogLabel})`,
      );
    }
  } finally {
    await source.close();
  }
}

main().catch((error: unknown) => {
  if (error instanceof InsightsUsageError) {
    console.error(`npm run insights: ${error.message}`);
    process.exitCode = 2;
    return;
  }
  if (error instanceof SkipError) {
    console.log(`SKIPPED: insights of the deployed stack — ${error.message}`);
    return;
  }
  // The operator needs what went wrong (a missing stack or table, a refused permission), not where.
  const { name, message } =
    error instanceof Error ? error : { name: 'Error', message: String(error) };
  console.error(`npm run insights: ${name === 'Error' ? '' : `${name}: `}${message}`);
  process.exitCode = 1;
});
