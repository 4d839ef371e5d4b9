#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { parseServiceDeskConfig, settingsInContext } from '../lib/config.js';
import type { WebAppInput } from '../lib/constructs/web-app-source.js';
import { addServiceDeskStacks } from '../lib/service-desk-app.js';

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const app = new App();
// Every context key that is not CDK's own is a setting; an unknown one fails synthesis with the
// closest setting's name (CDK itself ignores unknown keys).
let config: ReturnType<typeof parseServiceDeskConfig>;
try {
  config = parseServiceDeskConfig(settingsInContext(app.node.getAllContext()));
} catch (error) {
  // The message names every bad key; a stack trace would only bury it.
  console.error((error as Error).message);
  process.exit(1);
}

// Without webDistPath the web app is built with Vite during synthesis (asset bundling), as
// the functions are bundled with esbuild: a fresh clone needs only `npm ci`.
const webApp: WebAppInput = config.webDistPath
  ? { prebuilt: join(repositoryRoot, config.webDistPath) }
  : { viteConfig: join(repositoryRoot, 'web/vite.config.ts') };
const paths = {
  apiEntry: join(repositoryRoot, config.apiEntry),
  retentionEntry: join(repositoryRoot, config.retentionEntry),
  knowledgeSyncEntry: join(repositoryRoot, 'functions/knowledge-sync/handler.ts'),
  ticketSyncEntry: join(repositoryRoot, 'functions/ticket-sync/handler.ts'),
  webApp,
  ticketsPath: join(repositoryRoot, config.ticketsPath),
};
const required: [path: string, what: string][] = [
  [paths.apiEntry, 'the API handler'],
  [paths.retentionEntry, 'the retention sweeper'],
  [paths.knowledgeSyncEntry, 'the knowledge sync catch-up'],
  ...(config.ticketSync.length > 0
    ? [[paths.ticketSyncEntry, 'the ticket sync'] as [string, string]]
    : []),
  'prebuilt' in webApp
    ? [join(webApp.prebuilt, 'index.html'), 'the built web app (webDistPath; npm run build)']
    : [webApp.viteConfig, 'the web app'],
  ...(config.existingKnowledgeBaseId
    ? []
    : [[paths.ticketsPath, 'the ticket documents'] as [string, string]]),
];
const missing = required.filter(([path]) => !existsSync(path));
if (missing.length > 0) {
  const list = missing.map(([path, what]) => `  - ${what}: ${path}`).join('\n');
  console.error(`Cannot synthesize, files are missing:\n${list}`);
  process.exit(1);
}

addServiceDeskStacks(app, config, paths);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
