import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isWebBuildStale, WEB_DIST, WEB_SOURCES } from '../../scripts/build-web.js';
import { followImports } from '../support/follow-imports.js';

const repository = resolve(import.meta.dirname, '../..');

/**
 * Every file outside `web/` that the web app's bundle is built from: relative imports (static and
 * dynamic, as the bundler follows them) followed from `web/src`, through the files outside it too.
 */
function importsOutsideWeb(): string[] {
  const web = join(repository, 'web');
  const sources = readdirSync(join(web, 'src'), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
  const relativeImports = (source: string) =>
    [...source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map(
      (match) => match[1] as string,
    );
  const outside = followImports(sources, relativeImports)
    .map(({ target }) => target)
    .filter((target): target is string => target !== undefined && !target.startsWith(`${web}/`))
    .map((target) => relative(repository, target));
  return [...new Set(outside)].sort();
}

describe('the web build staleness check of npm start', () => {
  it('watches every folder outside web/ that the web app imports from', () => {
    const imports = importsOutsideWeb();
    // The wire contract, at least: what makes this check worth having.
    expect(imports.some((path) => path.startsWith('functions/contract/'))).toBe(true);
    const uncovered = imports.filter(
      (path) => !WEB_SOURCES.some((source) => path === source || path.startsWith(`${source}/`)),
    );
    expect(uncovered).toEqual([]);
  });

  describe('in a tree of its own', () => {
    let root: string;
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    /** A tree with every source one minute before the build and the build now. */
    function builtTree(): string {
      root = mkdtempSync(join(tmpdir(), 'web-build-'));
      const minuteAgo = new Date(Date.now() - 60_000);
      for (const source of WEB_SOURCES) {
        const file = /\.[a-z]+$/.test(source) ? join(root, source) : join(root, source, 'a.ts');
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, '');
        utimesSync(file, minuteAgo, minuteAgo);
      }
      mkdirSync(join(root, WEB_DIST), { recursive: true });
      writeFileSync(join(root, WEB_DIST, 'index.html'), '');
      return root;
    }

    it('is fresh when nothing changed since the build, stale without a build', async () => {
      builtTree();
      expect(await isWebBuildStale(root)).toBe(false);
      rmSync(join(root, WEB_DIST), { recursive: true });
      expect(await isWebBuildStale(root)).toBe(true);
    });

    it.each(WEB_SOURCES)('is stale after a change under %s', async (source) => {
      builtTree();
      const changed = /\.[a-z]+$/.test(source) ? join(root, source) : join(root, source, 'a.ts');
      const later = new Date(Date.now() + 60_000);
      utimesSync(changed, later, later);
      expect(await isWebBuildStale(root)).toBe(true);
    });
  });
});
