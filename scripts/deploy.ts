import { spawnSync } from 'node:child_process';

/**
 * `npm run deploy [-- <cdk deploy arguments>]`: `cdk deploy --require-approval broadening` with
 * the given arguments (every stack of the app unless one is named), then, after a successful deploy, the state of the ingestion
 * job the deploy started (`npm run ingest -- --latest`): progress, failed documents, and a
 * non-zero exit when the documents did not all make it into the Knowledge Base.
 */
const run = (command: string, args: string[]) =>
  spawnSync(command, args, { stdio: 'inherit', shell: process.platform === 'win32' }).status ?? 1;

// Outside us-east-1 the app has more than one stack (the CloudFront alarm, and the WAF web ACL,
// live in us-east-1); `cdk deploy` then wants the stacks named. Without a name, deploy them all.
const args = process.argv.slice(2);
const namesAStack = args.some((arg) => !arg.startsWith('-')) || args.includes('--all');
const deployed = run('npx', [
  'cdk',
  'deploy',
  '--require-approval',
  'broadening',
  ...(namesAStack ? [] : ['--all']),
  ...args,
]);
if (deployed !== 0) process.exit(deployed);
console.log('\nDeployed. The ticket documents are ingested in the background; following the job:');
process.exit(run('npx', ['tsx', 'scripts/ingest.ts', '--latest']));
