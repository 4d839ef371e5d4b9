import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
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

  it('splits what only a publish, a catalog read or the person-name analyzer needs out of the entry (ADR 0034)', async () => {
    const files = await readdir(folder);
    const text = (name: string) => readFile(join(folder, name), 'utf8');
    const chunks = files.filter((name) => /^handler-.+\.mjs$/.test(name));
    const chunkText = (await Promise.all(chunks.map(text))).join('\n');
    const entry = await text('handler.mjs');
    expect(entry).toContain('export {');
    // The S3 client (a publish), the Bedrock Agent client (a publish's sync, the catalog),
    // kuromoji and compromise (knowledge drafts, a lead's gap examples; the build is unminified,
    // so each bundled module is named in a comment).
    for (const lazy of [
      'PutObjectCommand',
      'StartIngestionJobCommand',
      'tid_pos.dat.gz',
      'node_modules/compromise/',
    ]) {
      expect(entry, lazy).not.toContain(lazy);
      expect(chunkText, lazy).toContain(lazy);
    }
  });
});
