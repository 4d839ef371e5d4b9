import { spawnSync } from 'node:child_process';

/**
 * `npm run deploy [-- <cdk deploy arguments>]`: `cdk deploy --require-approval broadening` with
 * the given arguments (e.g. `--all`), then, after a successful deploy, the state of the ingestion
 * job the deploy started (`npm run ingest -- --latest`): progress, failed documents, and a
 * non-zero exit when the documents did not all make it into the Knowledge Base.
 */
const run = (command: string, args: string[]) =>
  spawnSync(command, args, { stdio: 'inherit', shell: process.platform === 'win32' }).status ?? 1;

const deployed = run('npx', [
  'cdk',
  'deploy',
  '--require-approval',
  'broadening',
  ...process.argv.slice(2),
]);
if (deployed !== 0) process.exit(deployed);
console.log('\nDeployed. The ticket documents are ingested in the background; following the job:');
process.exit(run('npx', ['tsx', 'scripts/ingest.ts', '--latest']));
