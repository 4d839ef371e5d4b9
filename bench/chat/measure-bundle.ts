import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import {
  apiBundleBuildOptions,
  bundleSizeOf,
  outputsOf,
} from '../../scripts/bundle-api-handler.js';

export interface BundleFigures {
  /** Every JavaScript file of the bundle: the entry and all its chunks. */
  readonly bytes: number;
  /** The entry and the chunks it imports statically: what module init parses. */
  readonly initBytes: number;
  /** How many JavaScript files (the entry and its chunks). */
  readonly files: number;
  /** gzip -9 of what module init loads. */
  readonly initGzipBytes: number;
  /** Output bytes by package (own code under its top folder), largest first, over every file. */
  readonly byPackage: readonly { readonly name: string; readonly bytes: number }[];
  /** The same, of what module init loads only. */
  readonly initByPackage: readonly { readonly name: string; readonly bytes: number }[];
}

/**
 * Bundles the handler exactly as the deployment does (`apiBundleBuildOptions`, minified, split
 * into an entry and chunks; ADR 0034) and measures it, by package from the build's metafile.
 */
export async function measureBundle(
  outfile: string,
  options: { readonly omitTracer?: boolean } = {},
): Promise<BundleFigures> {
  const { metafile } = await build(apiBundleBuildOptions({ outfile, minify: true, ...options }));
  const outputs = outputsOf(metafile, outfile);
  const atInit = outputs.filter((output) => output.atInit);
  const initText = Buffer.concat(await Promise.all(atInit.map(({ file }) => readFile(file))));
  const byPackageOf = (files: readonly { readonly file: string }[]) => {
    const totals = new Map<string, number>();
    for (const { file } of files) {
      for (const [path, input] of Object.entries(metafile.outputs[file]?.inputs ?? {})) {
        const name = packageOf(path);
        totals.set(name, (totals.get(name) ?? 0) + input.bytesInOutput);
      }
    }
    return [...totals].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
  };
  return {
    ...bundleSizeOf(metafile, outfile),
    initGzipBytes: gzipSync(initText, { level: 9 }).length,
    byPackage: byPackageOf(outputs),
    initByPackage: byPackageOf(atInit),
  };
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
