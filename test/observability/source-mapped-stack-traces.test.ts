import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiBundleBuildOptions } from '../../scripts/bundle-api-handler.js';

const run = promisify(execFile);
const FIXTURE = 'test/observability/fixtures/fails-in-a-bundle.ts';
/** The fixture's line (1-based) holding `text`: where a mapped frame must point. */
const lineOf = (text: string) =>
  readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .findIndex((line) => line.includes(text)) + 1;

/**
 * The bundles' stack traces (ADR 0034): a fixture bundled as the API function is (minified, split,
 * with its source map and the injected formatter), run in a fresh `node` as Lambda runs it.
 */
describe('stack traces of a bundled function', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'mapped-stacks-'));
    await build(
      apiBundleBuildOptions({
        outfile: join(folder, 'built', 'index.mjs'),
        entry: FIXTURE,
      }),
    );
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  /** Runs a fresh copy of the bundle (a case may remove its map). */
  async function runBundle(options: { nodeOptions?: string; removeMap?: boolean } = {}) {
    const copy = await mkdtemp(join(folder, 'run-'));
    await cp(join(folder, 'built'), copy, { recursive: true });
    const { stdout } = await run(process.execPath, [join(copy, 'index.mjs')], {
      env: {
        PATH: process.env.PATH,
        NODE_OPTIONS: options.nodeOptions ?? '',
        REMOVE_MAP_BEFORE_TRACE: options.removeMap ? '1' : '0',
      },
    });
    return JSON.parse(stdout) as { stack: string };
  }

  it('names the source file, line and function of each frame of the bundle', async () => {
    const { stack } = await runBundle();
    const [header, first, second] = stack.split('\n');
    expect(header).toBe('Error: not a ticket number: INC-abc');
    const throwing = lineOf('throw new Error(');
    const calling = lineOf("parseTicketNumber('INC-abc')");
    expect(first).toMatch(
      new RegExp(`^ {4}at parseTicketNumber \\(\\S*${FIXTURE}:${throwing}:\\d+\\)$`),
    );
    // The module's top level, which called it.
    expect(second).toMatch(new RegExp(`^ {4}at \\S*${FIXTURE}:${calling}:\\d+$`));
    expect(stack).not.toMatch(/index\.mjs/);
  });

  it('prints the same locations as Node’s own --enable-source-maps', async () => {
    const injected = await runBundle();
    const node = await runBundle({ nodeOptions: '--enable-source-maps' });
    const location = (stack: string) =>
      stack
        .split('\n')
        .slice(1, 3)
        .map((line) => /fails-in-a-bundle\.ts:\d+:\d+/.exec(line)?.[0]);
    expect(location(node.stack)).toEqual(location(injected.stack));
    expect(location(injected.stack).every(Boolean)).toBe(true);
  });

  it('reads a map when a trace is printed, not at load: a map gone by then leaves generated positions', async () => {
    const { stack } = await runBundle({ removeMap: true });
    expect(stack.split('\n')[0]).toBe('Error: not a ticket number: INC-abc');
    expect(stack.split('\n')[1]).toMatch(/index\.mjs:\d+:\d+\)?$/);
  });
});
