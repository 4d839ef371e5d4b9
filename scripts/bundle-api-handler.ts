import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { TRACER_OMITTED_DEFINE } from '../functions/observability/tracing.js';

export interface BundleOptions {
  /** Where the entry goes (e.g. `…/index.mjs`); its chunks are written beside it. */
  readonly outfile: string;
  /** @default 'node22', the Lambda runtime */
  readonly target?: string;
  /** @default true */
  readonly minify?: boolean;
  /** @default API_HANDLER_ENTRY; tests bundle handler modules of their own the same way */
  readonly entry?: string;
  /** Leave out the X-Ray tracer, as the stack does when its `tracing` setting is off. @default false */
  readonly omitTracer?: boolean;
}

export const API_HANDLER_ENTRY = 'functions/api/handler.ts';

/** Which `package.json` fields pick a package's entry: the same as `nodeFunctionBundling`'s. */
export const API_BUNDLE_MAIN_FIELDS = ['module', 'main'];

/**
 * Injected into every bundle of the app, ahead of its own code (esbuild's `inject`): stack traces
 * printed in terms of the sources, each file's map read when one of its frames is first printed
 * rather than at module load as `--enable-source-maps` does (ADR 0034).
 */
export const SOURCE_MAPPED_STACK_TRACES = fileURLToPath(
  new URL('../functions/observability/source-mapped-stack-traces.ts', import.meta.url),
);

/** CommonJS dependencies inside an ESM bundle call require(); each output file gets one. */
export const REQUIRE_SHIM_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * How the API function is bundled, for the stack (`lib/constructs/api-function.ts`), `npm start`,
 * the tests and the bench alike: ESM with the AWS SDK inside (the runtime's copy is not
 * version-pinned), the `require` shim, and **split** (ADR 0034): every module only a dynamic
 * `import()` reaches — the publish and catalog adapters with the S3 and Bedrock Agent clients,
 * the person-name analyzer's NLP libraries, the SDK's own lazy credential providers — goes to a
 * chunk file beside the entry, so a cold start neither parses nor compiles it. Chunks sit in
 * the entry's folder (not a subfolder): code that finds files beside its module (the analyzer's
 * dictionary) finds them wherever esbuild put it.
 */
export function apiBundleBuildOptions(options: BundleOptions): BuildOptions & {
  metafile: true;
} {
  const entryName = basename(options.outfile).replace(/\.m?js$/, '');
  return {
    entryPoints: { [entryName]: options.entry ?? API_HANDLER_ENTRY },
    outdir: dirname(options.outfile),
    outExtension: { '.js': extname(options.outfile) || '.mjs' },
    splitting: true,
    chunkNames: `${entryName}-[name]-[hash]`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: options.target ?? 'node22',
    // As the stack bundles (`nodeFunctionBundling`): a package's ES module build where it has one,
    // which esbuild can defer per module; the CommonJS builds made the bundle a fifth larger.
    mainFields: API_BUNDLE_MAIN_FIELDS,
    minify: options.minify ?? true,
    sourcemap: true,
    // Line mappings without the sources, which would make the maps several times larger.
    sourcesContent: false,
    inject: [SOURCE_MAPPED_STACK_TRACES],
    metafile: true,
    logLevel: 'warning',
    define: options.omitTracer ? { ...TRACER_OMITTED_DEFINE } : undefined,
    banner: { js: REQUIRE_SHIM_BANNER },
  };
}

/** What a bundle weighs: every file, and what a cold start loads (the entry and its static imports). */
export interface BundleSize {
  /** Every JavaScript file written: the entry and all its chunks. */
  readonly bytes: number;
  /** The entry and the chunks it imports statically: what module init parses. */
  readonly initBytes: number;
  readonly files: number;
}

/**
 * The JavaScript outputs of an esbuild metafile whose entry is `outfile`, as the metafile names
 * them, each marked whether module init loads it: the entry, and what it imports statically.
 */
export function outputsOf(
  metafile: Metafile,
  outfile: string,
): { readonly file: string; readonly bytes: number; readonly atInit: boolean }[] {
  const outputs = Object.keys(metafile.outputs).filter((file) => /\.m?js$/.test(file));
  const entry = outputs.find((file) => resolve(file) === resolve(outfile));
  const atInit = new Set<string>();
  const visit = (file: string) => {
    if (atInit.has(file)) return;
    atInit.add(file);
    for (const imported of metafile.outputs[file]?.imports ?? []) {
      if (imported.kind === 'import-statement' && imported.path in metafile.outputs) {
        visit(imported.path);
      }
    }
  };
  if (entry) visit(entry);
  return outputs.map((file) => ({
    file,
    bytes: metafile.outputs[file]?.bytes ?? 0,
    atInit: atInit.has(file),
  }));
}

/** The sizes of the JavaScript outputs of an esbuild metafile whose entry is `outfile`. */
export function bundleSizeOf(metafile: Metafile, outfile: string): BundleSize {
  const outputs = outputsOf(metafile, outfile);
  const sum = (files: typeof outputs) => files.reduce((total, { bytes }) => total + bytes, 0);
  return {
    bytes: sum(outputs),
    initBytes: sum(outputs.filter(({ atInit }) => atInit)),
    files: outputs.length,
  };
}

/** Bundles the API function (`apiBundleBuildOptions`): the entry at `options.outfile`, chunks beside it. */
export async function bundleApiHandler(
  options: BundleOptions,
): Promise<BundleSize & { inputs: string[] }> {
  const result = await build(apiBundleBuildOptions(options));
  return {
    ...bundleSizeOf(result.metafile, options.outfile),
    inputs: Object.keys(result.metafile.inputs),
  };
}

/** This module's own source, counted among every bundle's inputs. */
const BUNDLER_SOURCE = fileURLToPath(import.meta.url);

/**
 * The bundle at `options.outfile`, rebuilt only when one of the files it was built from changed
 * since (the inputs are listed beside it). `npm start` and the test run call this, so a second
 * start or a test run after an unrelated edit costs a few `stat` calls, not a build.
 */
export async function ensureApiHandlerBundle(
  options: BundleOptions & { readonly entry?: string },
): Promise<{ rebuilt: boolean }> {
  const inputsFile = `${options.outfile}.inputs.json`;
  const built = await stat(options.outfile).catch(() => undefined);
  const inputs = built
    ? ((await readFile(inputsFile, 'utf8')
        .then((text) => JSON.parse(text) as { build: string; files: string[] })
        .catch(() => undefined)) ?? undefined)
    : undefined;
  const entry = options.entry ?? API_HANDLER_ENTRY;
  const build = JSON.stringify({
    entry,
    target: options.target,
    minify: options.minify,
    omitTracer: options.omitTracer,
  });
  if (built && inputs?.build === build) {
    const changed = await Promise.all(
      inputs.files.map(async (file) => {
        const info = await stat(file).catch(() => undefined);
        return !info || info.mtimeMs > built.mtimeMs;
      }),
    );
    if (!changed.includes(true)) return { rebuilt: false };
  }
  const { inputs: files } = await bundleApiHandler({ ...options, entry });
  // This file too: a change to how it bundles (the banner, the options) makes every bundle stale.
  await writeFile(inputsFile, JSON.stringify({ build, files: [...files, BUNDLER_SOURCE] }));
  return { rebuilt: true };
}
