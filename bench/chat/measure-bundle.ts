import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { TRACER_OMITTED_DEFINE } from '../../functions/observability/tracing.js';
import {
  API_BUNDLE_MAIN_FIELDS,
  API_HANDLER_ENTRY,
  bundleApiHandler,
} from '../../scripts/bundle-api-handler.js';

export interface BundleFigures {
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Output bytes by package (own code under its top folder), largest first. */
  readonly byPackage: readonly { readonly name: string; readonly bytes: number }[];
  /** The metafile build produced the same number of bytes as `bundleApiHandler`. */
  readonly breakdownMatches: boolean;
}

/**
 * Bundles the handler exactly as the deployment does (`bundleApiHandler`, minified) and
 * measures it. `bundleApiHandler` keeps its metafile to itself, so the per-package breakdown
 * comes from a second, unwritten build with the same options, checked against the first.
 */
export async function measureBundle(
  outfile: string,
  options: { readonly omitTracer?: boolean } = {},
): Promise<BundleFigures> {
  const { bytes } = await bundleApiHandler({ outfile, minify: true, ...options });
  const gzipBytes = gzipSync(await readFile(outfile), { level: 9 }).length;
  const metafileBuild = await build({
    entryPoints: [API_HANDLER_ENTRY],
    outfile,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    mainFields: API_BUNDLE_MAIN_FIELDS,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    metafile: true,
    logLevel: 'silent',
    define: options.omitTracer ? { ...TRACER_OMITTED_DEFINE } : undefined,
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  const output = Object.entries(metafileBuild.metafile.outputs).find(
    ([file]) => file.endsWith('.mjs') || file.endsWith('.js'),
  )?.[1];
  const totals = new Map<string, number>();
  for (const [path, input] of Object.entries(output?.inputs ?? {})) {
    const name = packageOf(path);
    totals.set(name, (totals.get(name) ?? 0) + input.bytesInOutput);
  }
  const byPackage = [...totals]
    .map(([name, size]) => ({ name, bytes: size }))
    .sort((a, b) => b.bytes - a.bytes);
  return { bytes, gzipBytes, byPackage, breakdownMatches: output?.bytes === bytes };
}

/** `node_modules/@scope/name/…` → `@scope/name` (the innermost node_modules); own code → its top folder. */
export function packageOf(path: string): string {
  const parts = path.split('/');
  const last = parts.lastIndexOf('node_modules');
  if (last === -1) return `${parts[0]}/ (own code)`;
  const first = parts[last + 1] ?? '?';
  return first.startsWith('@') ? `${first}/${parts[last + 2]}` : first;
}

/** The AWS SDK v3 and its runtime (`@aws-sdk/*`, `@smithy/*`, `@aws-crypto/*`, `@aws/*`). */
export const isAwsSdkPackage = (name: string) => /^@(aws-sdk|smithy|aws-crypto|aws)\//.test(name);
