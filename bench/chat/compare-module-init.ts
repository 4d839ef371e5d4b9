import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { apiBundleBuildOptions, bundleSizeOf } from '../../scripts/bundle-api-handler.js';
import { measureModuleInit } from './measure-module-init.js';
import { median } from './summarize.js';

const run = promisify(execFile);

/**
 * Module init of this tree's API bundle against another git revision's, in the same run
 * (interleaved spawns, so the shared machine's load hits both alike): the cold-start part of
 * `bench/chat/run.ts` without the other three minutes.
 *
 * Usage: `npx tsx bench/chat/compare-module-init.ts [revision=main] [spawns=12]`
 */
const revision = process.argv[2] ?? 'main';
const spawns = Number(process.argv[3] ?? 12);

const workDir = await mkdtemp(join(tmpdir(), 'bench-init-'));
try {
  // The other revision's sources, exported beside a link to this tree's node_modules.
  const otherTree = join(workDir, 'tree');
  await mkdir(otherTree);
  await run('sh', ['-c', `git archive ${revision} functions | tar -x -C ${otherTree}`]);
  await symlink(resolve('node_modules'), join(otherTree, 'node_modules'));

  const bundles = {
    [revision]: join(workDir, 'other', 'index.mjs'),
    'this tree': join(workDir, 'this', 'index.mjs'),
  };
  const entries = {
    [revision]: join(otherTree, 'functions/api/handler.ts'),
    'this tree': 'functions/api/handler.ts',
  };
  for (const [name, outfile] of Object.entries(bundles)) {
    const options = apiBundleBuildOptions({ outfile, omitTracer: true, entry: entries[name] });
    const { metafile } = await build(options);
    const size = bundleSizeOf(metafile, outfile);
    console.log(
      `${name}: init loads ${(size.initBytes / 1024).toFixed(0)} KB of ${size.files} files`,
    );
  }

  const variants = {
    '--enable-source-maps': { nodeOptions: '--enable-source-maps' },
    'no source maps': { nodeOptions: '' },
  };
  const cpu = new Map<string, number[]>();
  const wall = new Map<string, number[]>();
  const ratios = new Map<string, number[]>();
  console.log(
    `load before: ${loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}`,
  );
  for (let index = 0; index < spawns; index++) {
    const thisRound = new Map<string, number>();
    for (const [name, bundle] of Object.entries(bundles)) {
      const results = await measureModuleInit(bundle, workDir, variants, 1);
      for (const [variant, figures] of results) {
        const key = `${name}, ${variant}`;
        cpu.set(key, [...(cpu.get(key) ?? []), ...figures.cpuMs]);
        wall.set(key, [...(wall.get(key) ?? []), ...figures.importMs]);
        thisRound.set(key, figures.cpuMs[0] ?? Number.NaN);
      }
    }
    for (const variant of Object.keys(variants)) {
      const ratio =
        (thisRound.get(`this tree, ${variant}`) ?? Number.NaN) /
        (thisRound.get(`${revision}, ${variant}`) ?? Number.NaN);
      ratios.set(variant, [...(ratios.get(variant) ?? []), ratio]);
    }
  }
  console.log(
    `load after: ${loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}`,
  );
  for (const [key, samples] of cpu) {
    console.log(
      `${key.padEnd(44)} CPU ${median(samples).toFixed(1)} ms, wall ${median(wall.get(key) ?? []).toFixed(1)} ms (median of ${samples.length})`,
    );
  }
  for (const [variant, samples] of ratios) {
    console.log(
      `CPU this tree ÷ ${revision}, ${variant}: ${median(samples).toFixed(3)}× (median of the spawn pairs)`,
    );
  }
} finally {
  await rm(workDir, { recursive: true, force: true });
}
