import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureApiHandlerBundle } from '../../scripts/bundle-api-handler.js';

const folder = await mkdtemp(join(tmpdir(), 'bundle-api-handler-'));
afterAll(() => rm(folder, { recursive: true, force: true }));

describe('ensureApiHandlerBundle', () => {
  it('counts its own source among the inputs: a change to how it bundles rebuilds', async () => {
    const outfile = join(folder, 'handler.mjs');
    const options = { outfile, target: 'node20', minify: false } as const;
    expect(await ensureApiHandlerBundle(options)).toEqual({ rebuilt: true });
    const inputs = JSON.parse(await readFile(`${outfile}.inputs.json`, 'utf8')) as {
      files: string[];
    };
    const bundler = resolve('scripts/bundle-api-handler.ts');
    expect(inputs.files.map((file) => resolve(file))).toContain(bundler);
    expect(await ensureApiHandlerBundle(options)).toEqual({ rebuilt: false });
  });
});
