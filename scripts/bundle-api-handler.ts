import { readFile, stat, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { TRACER_OMITTED_DEFINE } from '../functions/observability/tracing.js';

export interface BundleOptions {
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
 * Bundles the API function the way the CDK's NodejsFunction does for Lambda: one ESM file with
 * the AWS SDK inside (the runtime's copy is not version-pinned), and a `require` shim for the
 * CommonJS dependencies esbuild leaves as requires.
 */
export async function bundleApiHandler(
  options: BundleOptions,
): Promise<{ bytes: number; inputs: string[] }> {
  const result = await build({
    entryPoints: [options.entry ?? API_HANDLER_ENTRY],
    outfile: options.outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: options.target ?? 'node22',
    // As the stack bundles (`nodeFunctionBundling`): a package's ES module build where it has one,
    // which esbuild can defer per module; the CommonJS builds made the bundle a fifth larger.
    mainFields: API_BUNDLE_MAIN_FIELDS,
    minify: options.minify ?? true,
    sourcemap: true,
    // As deployed: line mappings without the sources, which would make the map (read at every
    // cold start under --enable-source-maps) several times larger.
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
    define: options.omitTracer ? { ...TRACER_OMITTED_DEFINE } : undefined,
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  const output = Object.entries(result.metafile.outputs).find(
    ([file]) => file.endsWith('.mjs') || file.endsWith('.js'),
  );
  return { bytes: output?.[1].bytes ?? 0, inputs: Object.keys(result.metafile.inputs) };
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
