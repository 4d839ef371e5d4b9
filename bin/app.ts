#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { configKeys, parseServiceDeskConfig } from '../lib/config.js';
import { addServiceDeskStacks } from '../lib/service-desk-app.js';

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const app = new App();
const config = parseServiceDeskConfig(
  Object.fromEntries(
    configKeys
      .map((key) => [key, app.node.tryGetContext(key)] as const)
      // cdk.json lists optional keys as null so they are discoverable; null means unset.
      .filter(([, value]) => value !== undefined && value !== null),
  ),
);

const paths = {
  apiEntry: join(repositoryRoot, config.apiEntry),
  retentionEntry: join(repositoryRoot, config.retentionEntry),
  webDistPath: join(repositoryRoot, config.webDistPath),
  ticketsPath: join(repositoryRoot, config.ticketsPath),
};
const missing = [
  [paths.apiEntry, 'the API handler'],
  [paths.retentionEntry, 'the retention sweeper'],
  [join(paths.webDistPath, 'index.html'), 'the built web app'],
  ...(config.existingKnowledgeBaseId ? [] : [[paths.ticketsPath, 'the ticket documents']]),
].filter(([path]) => !existsSync(path as string));
if (missing.length > 0) {
  const list = missing.map(([path, what]) => `  - ${what}: ${path}`).join('\n');
  console.error(`Cannot synthesize, files are missing (run npm run build first):\n${list}`);
  process.exit(1);
}

addServiceDeskStacks(app, config, paths);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
