import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface FirstLoadAsset {
  readonly file: string;
  readonly bytes: number;
  readonly gzipBytes: number;
}

/**
 * What a browser downloads before the app can start: every script, module preload and stylesheet
 * referenced by `index.html`. Lazy chunks (oidc-client-ts in Cognito mode) are not counted.
 */
export async function measureFirstLoad(distDir: string): Promise<FirstLoadAsset[]> {
  const html = await readFile(join(distDir, 'index.html'), 'utf8');
  const references = new Set<string>();
  for (const match of html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)) references.add(match[1] ?? '');
  for (const match of html.matchAll(/<link[^>]*rel="(?:modulepreload|stylesheet)"[^>]*>/g)) {
    const href = /href="([^"]+)"/.exec(match[0])?.[1];
    if (href) references.add(href);
  }
  const assets: FirstLoadAsset[] = [];
  for (const reference of references) {
    if (!reference || /^https?:/.test(reference)) continue;
    const content = await readFile(join(distDir, reference.replace(/^\//, '')));
    assets.push({
      file: reference,
      bytes: content.length,
      gzipBytes: gzipSync(content, { level: 9 }).length,
    });
  }
  return assets;
}
