/**
 * `npm run eval` — the retrieval evaluation (eval/retrieval-evaluation.ts) against the local
 * Knowledge Base (default) or a deployed one (`-- --target aws`).
 *
 * Options:
 *   --target local|aws        where to retrieve (default local: the local Bedrock endpoint
 *                             started in this process over data/tickets)
 *   --knowledge-base-id ID    with --target aws; default: the stack output KnowledgeBaseId
 *                             (stack EVAL_STACK_NAME, cdk.json `stackName`, or ServiceDeskAssistant)
 *   --queries PATH            default data/eval/retrieval-queries.jsonl
 *   --json PATH               also write the report as JSON
 *   --search-type HYBRID|SEMANTIC   with --target aws (default HYBRID, as the function)
 *   --expansion on|off|both   the glossary expansion of the retrieval query (default both:
 *                             one table each, to see what the expansion buys on this target)
 *
 * Without AWS credentials, `--target aws` prints a SKIPPED line and exits 0.
 */
// Before the SDK is loaded: its "Node 22 from January 2027" notice is noise in a report.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { BedrockAgentRuntimeClient } from '@aws-sdk/client-bedrock-agent-runtime';
import { createKnowledgeBaseRetriever } from '../functions/adapters/bedrock/knowledge-base-retriever.js';
import type { Retriever } from '../functions/chat/ports.js';
import { toRetrievalQuery } from '../functions/chat/retrieval-query.js';
import { stackOutputNames } from '../lib/service-desk-stack.js';
import { startLocalBedrockServer } from '../local/bedrock/start-local-bedrock-server.js';
import { readDeployedStack, requireOutput, SkipError } from '../scripts/deployed-stack.js';
import {
  type EvaluationReport,
  formatReport,
  loadEvalQueries,
  runRetrievalEvaluation,
  scoreOutcomes,
} from './retrieval-evaluation.js';

const { values } = parseArgs({
  options: {
    target: { type: 'string', default: 'local' },
    'knowledge-base-id': { type: 'string' },
    queries: { type: 'string', default: 'data/eval/retrieval-queries.jsonl' },
    json: { type: 'string' },
    'search-type': { type: 'string', default: 'HYBRID' },
    expansion: { type: 'string', default: 'both' },
  },
});

async function deployedRetriever(): Promise<{ retriever: Retriever; label: string }> {
  const stack = await readDeployedStack('EVAL_STACK_NAME', {
    outputs: values['knowledge-base-id'] === undefined,
  });
  const { region } = stack;
  const knowledgeBaseId =
    values['knowledge-base-id'] ?? requireOutput(stack, stackOutputNames.knowledgeBaseId);
  const searchType = values['search-type'] === 'SEMANTIC' ? 'SEMANTIC' : 'HYBRID';
  return {
    retriever: createKnowledgeBaseRetriever({
      client: new BedrockAgentRuntimeClient({ region }),
      knowledgeBaseId,
      searchType,
    }),
    label: `Knowledge Base ${knowledgeBaseId} (${region}, ${searchType})`,
  };
}

async function main(): Promise<void> {
  const queries = await loadEvalQueries(values.queries);
  let close = async () => {};
  let source: { retriever: Retriever; label: string };
  if (values.target === 'aws') {
    source = await deployedRetriever();
  } else if (values.target === 'local') {
    const bedrock = await startLocalBedrockServer({ pacing: { minMs: 0, maxMs: 0 } });
    close = () => bedrock.close();
    source = {
      retriever: createKnowledgeBaseRetriever({
        client: new BedrockAgentRuntimeClient({
          endpoint: bedrock.agentRuntimeEndpoint,
          region: 'us-east-1',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }),
        knowledgeBaseId: bedrock.knowledgeBaseId,
      }),
      label: 'local Knowledge Base (data/tickets)',
    };
  } else {
    throw new Error(`--target must be local or aws, not ${values.target}`);
  }
  const modes = values.expansion === 'both' ? ['off', 'on'] : [values.expansion];
  if (modes.some((mode) => mode !== 'on' && mode !== 'off')) {
    throw new Error(`--expansion must be on, off or both, not ${values.expansion}`);
  }
  try {
    const reports: Record<string, EvaluationReport> = {};
    for (const mode of modes) {
      const expand = mode === 'on';
      const outcomes = await runRetrievalEvaluation(queries, source.retriever, {
        queryFor: (text) => toRetrievalQuery(text, { expand }),
      });
      const report = scoreOutcomes(outcomes);
      reports[`expansion_${mode}`] = report;
      const title = `Retrieval evaluation: ${source.label}, ${queries.length} queries, glossary expansion ${mode}`;
      console.log(`${formatReport(report, title)}\n`);
      if (report.restricted.returned > 0) process.exitCode = 1;
    }
    if (values.json) await writeFile(values.json, `${JSON.stringify(reports, null, 2)}\n`);
  } finally {
    await close();
  }
}

main().catch((error: unknown) => {
  if (error instanceof SkipError) {
    console.log(`SKIPPED: retrieval evaluation against AWS — ${error.message}`);
    return;
  }
  console.error(error);
  process.exitCode = 1;
});
