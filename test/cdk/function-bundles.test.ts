import { execFileSync } from 'node:child_process';
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
import { copyAnalyzerDictionary } from '../../lib/constructs/api-function.js';
import { nodeFunctionBundling } from '../../lib/constructs/app-function.js';
import { addServiceDeskStacks } from '../../lib/service-desk-app.js';
import { bundlingOn, featureFlags, fixturePaths } from './synthesize.js';

/**
 * The one synthesis of the suite that bundles: the other CDK tests run with bundling off
 * (`CDK_CONTEXT_JSON` in vitest.config.ts), since they read templates and the functions' entries
 * are stand-ins. This file checks what `cdk deploy` uploads: every function the app defines is
 * bundled by esbuild from node_modules (no Docker), as ESM with the `require` shim, a source
 * map without the sources and the formatter that reads it when a stack trace is printed.
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

  /** Each JavaScript file of a bundle: ESM with the `require` shim, its source map without the sources. */
  function expectShippable(bundle: string, files: readonly string[]): void {
    for (const file of files.filter((name) => name.endsWith('.mjs'))) {
      expect(files, `${bundle}/${file}`).toContain(`${file}.map`);
      const code = readFileSync(join(bundle, file), 'utf8');
      expect(
        code.startsWith("import { createRequire as __createRequire } from 'node:module';"),
        `${bundle}/${file}`,
      ).toBe(true);
      const map = JSON.parse(readFileSync(join(bundle, `${file}.map`), 'utf8'));
      expect(map.sourcesContent).toBeUndefined();
    }
    // Each bundle prints its stack traces in terms of its sources, without --enable-source-maps
    // (ADR 0034): the formatter is injected ahead of the bundle's own code.
    const sources = files
      .filter((name) => name.endsWith('.mjs.map'))
      .flatMap((name) => JSON.parse(readFileSync(join(bundle, name), 'utf8')).sources as string[]);
    expect(
      sources.some((source) =>
        source.endsWith('functions/observability/source-mapped-stack-traces.ts'),
      ),
      bundle,
    ).toBe(true);
  }

  it('bundles every other function of the app into one ESM file with its source map', () => {
    const bundles = functionBundles();
    // The API, the retention sweeper, the knowledge sync catch-up and the OpenSearch index handler.
    expect(bundles).toHaveLength(4);
    const api = apiBundle();
    for (const bundle of bundles.filter((path) => path !== api)) {
      const files = readdirSync(bundle);
      expect(files.sort(), bundle).toEqual(['index.mjs', 'index.mjs.map']);
      expectShippable(bundle, files);
    }
  });

  it('splits the API function into index.mjs and chunks that only a dynamic import loads (ADR 0034)', () => {
    const bundle = apiBundle();
    const files = readdirSync(bundle).filter((name) => name !== ANALYZER_DICTIONARY_FOLDER);
    expect(files).toContain('index.mjs');
    expect(
      files.every((name) => /^index(-[\w-]+)?\.mjs(\.map)?$/.test(name)),
      files.join(),
    ).toBe(true);
    expectShippable(bundle, files);
    // Two chunks: the stand-in handler's import()ed module (test/cdk/fixtures/api-handler-on-demand.ts),
    // not in the entry, and what both share (the injected stack-trace formatter); which modules of
    // the real handler are split off, bundle-api-handler.test.ts.
    const chunks = files.filter((name) => name !== 'index.mjs' && name.endsWith('.mjs'));
    expect(chunks).toHaveLength(2);
    const marker = 'loaded-on-demand-only';
    expect(readFileSync(join(bundle, 'index.mjs'), 'utf8')).not.toContain(marker);
    const onDemand = chunks.filter((name) =>
      readFileSync(join(bundle, name), 'utf8').includes(marker),
    );
    expect(onDemand).toHaveLength(1);
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
      copyAnalyzerDictionary(folder);
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
