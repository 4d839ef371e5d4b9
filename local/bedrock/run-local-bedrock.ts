/**
 * Runs the local Bedrock endpoint on its own, for trying the chat function against it:
 * `npx tsx local/bedrock/run-local-bedrock.ts` (port from `LOCAL_BEDROCK_PORT`, default 4010).
 * `npm start` starts it in-process instead.
 */
import { OFFLINE_MODEL_ID } from './local-bedrock-defaults.js';
import { startLocalBedrockServer } from './start-local-bedrock-server.js';

const server = await startLocalBedrockServer({
  port: Number(process.env.LOCAL_BEDROCK_PORT ?? 4010),
});
console.log(`BEDROCK_RUNTIME_ENDPOINT=${server.runtimeEndpoint}`);
console.log(`BEDROCK_AGENT_RUNTIME_ENDPOINT=${server.agentRuntimeEndpoint}`);
console.log(`BEDROCK_AGENT_ENDPOINT=${server.agentEndpoint}`);
console.log(
  `model id: ${OFFLINE_MODEL_ID}, knowledge base id: ${server.knowledgeBaseId}, data source id: ${server.dataSourceId}`,
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close().then(() => process.exit(0));
  });
}
