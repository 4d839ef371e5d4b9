import { build } from 'esbuild';
import { TRACER_OMITTED_DEFINE } from '../functions/observability/tracing.js';

export interface BundleOptions {
  readonly outfile: string;
  /** @default 'node22', the Lambda runtime */
  readonly target?: string;
  /** @default true */
  readonly minify?: boolean;
  /** Leave out the X-Ray tracer, as the stack does when its `tracing` setting is off. @default false */
  readonly omitTracer?: boolean;
}

export const API_HANDLER_ENTRY = 'functions/api/handler.ts';

/**
 * Bundles the API function the way the CDK's NodejsFunction does for Lambda: one ESM file with
 * the AWS SDK inside (the runtime's copy is not version-pinned), and a `require` shim for the
 * CommonJS dependencies esbuild leaves as requires.
 */
export async function bundleApiHandler(options: BundleOptions): Promise<{ bytes: number }> {
  const result = await build({
    entryPoints: [API_HANDLER_ENTRY],
    outfile: options.outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: options.target ?? 'node22',
    minify: options.minify ?? true,
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
    define: options.omitTracer ? { ...TRACER_OMITTED_DEFINE } : undefined,
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
  const output = Object.entries(result.metafile.outputs).find(
    ([file]) => file.endsWith('.mjs') || file.endsWith('.js'),
  );
  return { bytes: output?.[1].bytes ?? 0 };
}
