import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServiceDeskConfig } from '../../lib/config.js';
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

  it('bundles every function of the app into one ESM file with its source map', () => {
    const bundles = functionBundles();
    // The API, the retention sweeper, the knowledge sync catch-up and the OpenSearch index handler.
    expect(bundles).toHaveLength(4);
    for (const bundle of bundles) {
      expect(readdirSync(bundle).sort(), bundle).toEqual(['index.mjs', 'index.mjs.map']);
      const code = readFileSync(join(bundle, 'index.mjs'), 'utf8');
      expect(
        code.startsWith("import { createRequire as __createRequire } from 'node:module';"),
      ).toBe(true);
      const map = JSON.parse(readFileSync(join(bundle, 'index.mjs.map'), 'utf8'));
      expect(map.sourcesContent).toBeUndefined();
    }
  });
});
