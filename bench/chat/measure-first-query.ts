import { execFile } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** An inquiry that mentions glossary terms in both languages, as staff type them. */
const INQUIRY = 'VPNに接続できません。Outlook keeps asking for my password after the MFA change.';

/** How the retrieval query's glossary words are found: the product's scan, or its old rule. */
export const FIRST_QUERY_PEERS = {
  'glossary scan (functions/chat/retrieval.ts)': {
    module: '../../functions/chat/retrieval.ts',
    call: `(module) => module.toRetrievalQuery(${JSON.stringify(INQUIRY)}, { expand: true })`,
  },
  'a regular expression per English variant (the rule before)': {
    module: '../../test/chat/support/glossary-by-regular-expressions.ts',
    call: `(module) => module.expansionByRegularExpressions(${JSON.stringify(INQUIRY)})`,
  },
} as const;

/**
 * A new execution environment's first inquiry: the time its retrieval query's glossary lookup
 * takes in a fresh process (imported before the clock starts), then the second inquiry's. The
 * first is what a cold start adds to the first answer's time to first token.
 */
export async function measureFirstQuery(
  spawns: number,
): Promise<Map<string, { firstMs: number[]; secondMs: number[] }>> {
  const results = new Map<string, { firstMs: number[]; secondMs: number[] }>();
  for (const [name, peer] of Object.entries(FIRST_QUERY_PEERS)) {
    const url = pathToFileURL(fileURLToPath(new URL(peer.module, import.meta.url))).href;
    const probe = `
      const module = await import(${JSON.stringify(url)});
      const call = ${peer.call};
      let started = performance.now(); call(module); const firstMs = performance.now() - started;
      started = performance.now(); call(module); const secondMs = performance.now() - started;
      process.stdout.write(JSON.stringify({ firstMs, secondMs }));`;
    const figures = { firstMs: [] as number[], secondMs: [] as number[] };
    for (let spawn = 0; spawn < spawns; spawn++) {
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '--eval', probe],
        { encoding: 'utf8' },
      );
      const { firstMs, secondMs } = JSON.parse(stdout) as { firstMs: number; secondMs: number };
      figures.firstMs.push(firstMs);
      figures.secondMs.push(secondMs);
    }
    results.set(name, figures);
  }
  return results;
}
