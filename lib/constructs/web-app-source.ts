import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';

/** Where the web app comes from: a directory built earlier, or the Vite project to build. */
export type WebAppInput =
  /** `web/dist` of an earlier `npm run build` (or a test fixture), deployed as it is. */
  | { readonly prebuilt: string }
  /** `web/vite.config.ts`: built with the repository's Vite during synthesis. */
  | { readonly viteConfig: string };

/**
 * The web app as a BucketDeployment source.
 *
 * With `viteConfig`, synthesis builds it the way CDK builds Lambda code: asset bundling with a
 * local bundler, here the installed Vite (3–5 s), so `npm ci && npx cdk deploy` works on a
 * fresh clone. The asset hash is the hash of the build output, so an unchanged app uploads
 * nothing. There is no Docker fallback: the build runs locally or synthesis stops with the
 * reason — a silent switch to Docker would need a Docker daemon and build a different tree.
 *
 * @example
 * new WebHosting(stack, 'Web', { webApp: webAppSource({ viteConfig: 'web/vite.config.ts' }), … });
 */
export function webAppSource(input: WebAppInput): s3deploy.ISource {
  if ('prebuilt' in input) {
    const indexHtml = join(input.prebuilt, 'index.html');
    if (!existsSync(indexHtml)) {
      throw new Error(
        `The web app is not built: ${indexHtml} is missing. Run npm run build, or leave ` +
          'webDistPath unset to build it during synthesis.',
      );
    }
    return s3deploy.Source.asset(input.prebuilt);
  }
  const { viteConfig } = input;
  return s3deploy.Source.asset(dirname(viteConfig), {
    assetHashType: AssetHashType.OUTPUT,
    exclude: ['dist', 'node_modules'],
    bundling: {
      // Required by the API, never used: tryBundle below builds or throws, it never declines.
      image: DockerImage.fromRegistry('local-bundling-only'),
      local: {
        tryBundle(outputDir) {
          buildWithVite(viteConfig, outputDir);
          return true;
        },
      },
    },
  });
}

/** Runs `vite build` of the installed Vite into `outputDir`; throws with the reason on failure. */
function buildWithVite(viteConfig: string, outputDir: string): void {
  let viteBin: string;
  try {
    const vitePackage = createRequire(import.meta.url).resolve('vite/package.json');
    viteBin = join(dirname(vitePackage), 'bin', 'vite.js');
  } catch (error) {
    throw new Error(
      'Cannot build the web app: Vite is not installed. Run npm ci in the repository first ' +
        '(the web app is built locally during synthesis; there is no Docker fallback).',
      { cause: error },
    );
  }
  const result = spawnSync(
    process.execPath,
    [
      viteBin,
      'build',
      '--config',
      viteConfig,
      '--outDir',
      outputDir,
      '--emptyOutDir',
      '--logLevel',
      'warn',
    ],
    // The CDK CLI reads the app's stdout; the build's output goes to stderr.
    { stdio: ['ignore', 2, 2] },
  );
  if (result.status !== 0) {
    throw new Error(
      `Cannot build the web app: vite build --config ${viteConfig} exited with ` +
        `${result.error ? result.error.message : `status ${result.status}`} (output above).`,
    );
  }
}
