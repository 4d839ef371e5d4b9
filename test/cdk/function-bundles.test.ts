import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ANALYZER_DICTIONARY_FOLDER,
  analyzerDictionaryPath,
} from '../../functions/knowledge/person-name-analyzer.js';
import { parseServiceDeskConfig } from '../../lib/config.js';
import { analyzerDictionaryHooks } from '../../lib/constructs/api-function.js';
import { nodeFunctionBundling } from '../../lib/constructs/app-function.js';
import { addServiceDeskStacks } from '../../lib/service-desk-app.js';
import { bundlingOn, featureFlags, fixturePaths } from './synthesize.js';

/**
 * The one synthesis of the suite that bundles: the other CDK tests run with bundling off
 * (`CDK_CONTEXT_JSON` in vitest.config.ts), since they read templates and the functions' entries
 * are stand-ins. This file checks what `cdk deploy` uploads: every function the app defines is
 * bundled by esbuild from node_modules (no Docker), as ESM with the `require` shim and a source
 * map without the sources.
 */
describe('the functions’ bundles, as cdk deploy builds them', () => {
  let outdir: string;
  let template: Template;
  beforeAll(() => {
    outdir = mkdtempSync(join(tmpdir(), 'cdk-bundles-'));
    const app = new App({ outdir, context: featureFlags, postCliContext: bundlingOn });
    const config = parseServiceDeskConfig({ account: '123456789012' });
    template = Template.fromStack(addServiceDeskStacks(app, config, fixturePaths).main);
  });
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  /** The asset folders of the app's own Node.js functions (Handler index.handler, ESM). */
  function functionBundles(): string[] {
    const keys = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Handler: 'index.handler', Runtime: 'nodejs22.x' },
      }),
    ).map((resource) => String(resource.Properties.Code.S3Key));
    return keys.map((key) => join(outdir, `asset.${key.replace(/\.zip$/, '')}`));
  }

  /** The API function's bundle: the one that ships the person-name analyzer's dictionary. */
  function apiBundle(): string {
    const [bundle, ...others] = functionBundles().filter((path) =>
      readdirSync(path).includes(ANALYZER_DICTIONARY_FOLDER),
    );
    expect(others).toEqual([]);
    return bundle as string;
  }

  it('bundles every function of the app into one ESM file with its source map', () => {
    const bundles = functionBundles();
    // The API, the retention sweeper, the knowledge sync catch-up and the OpenSearch index handler.
    expect(bundles).toHaveLength(4);
    for (const bundle of bundles) {
      const files = readdirSync(bundle).filter((name) => name !== ANALYZER_DICTIONARY_FOLDER);
      expect(files.sort(), bundle).toEqual(['index.mjs', 'index.mjs.map']);
      const code = readFileSync(join(bundle, 'index.mjs'), 'utf8');
      expect(
        code.startsWith("import { createRequire as __createRequire } from 'node:module';"),
      ).toBe(true);
      const map = JSON.parse(readFileSync(join(bundle, 'index.mjs.map'), 'utf8'));
      expect(map.sourcesContent).toBeUndefined();
    }
  });

  it('ships kuromoji’s dictionary beside the API bundle only', () => {
    const bundle = apiBundle();
    const dictionary = join(bundle, ANALYZER_DICTIONARY_FOLDER);
    const shipped = readdirSync(dictionary).sort();
    expect(shipped).toEqual(readdirSync(analyzerDictionaryPath()).sort());
    expect(shipped).toContain('base.dat.gz');
  });

  it('loads the analyzer from a bundle of the same options with the dictionary beside it, no node_modules', async () => {
    // A folder outside the project: nothing can resolve from a node_modules.
    const folder = mkdtempSync(join(tmpdir(), 'analyzer-bundle-'));
    try {
      await build({
        entryPoints: [
          fileURLToPath(
            new URL('../../functions/knowledge/person-name-analyzer.ts', import.meta.url),
          ),
        ],
        outfile: join(folder, 'index.mjs'),
        bundle: true,
        format: 'esm',
        platform: 'node',
        target: nodeFunctionBundling.target,
        mainFields: ['module', 'main'],
        banner: { js: nodeFunctionBundling.banner ?? '' },
        logLevel: 'error',
      });
      // The dynamic import is bundled (a function has no node_modules), not left to resolve.
      const code = readFileSync(join(folder, 'index.mjs'), 'utf8');
      expect(code).toContain('tid_pos.dat.gz');
      expect(code).not.toMatch(/import\(["'](?:kuromoji|compromise)["']\)/);
      for (const command of analyzerDictionaryHooks.afterBundling('.', folder)) {
        execSync(command, { stdio: 'pipe' });
      }
      const script =
        "const m = await import('./index.mjs'); const a = await m.loadPersonNameAnalyzer(); console.log(JSON.stringify(a.names('経理部の山田太郎です。Regards, Maria Garcia')));";
      const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: folder,
        encoding: 'utf8',
      });
      expect(JSON.parse(output)).toEqual(expect.arrayContaining(['山田太郎', 'Maria Garcia']));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 120_000);
});
