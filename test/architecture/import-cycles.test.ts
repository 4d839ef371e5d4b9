import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript-5';
import { describe, expect, it } from 'vitest';

/**
 * No import circle in `functions/`, type-only imports included: a circle means two modules are
 * one concept split in two, or a shape declared in the wrong place (issue #27 removed four).
 * The imports are read with the TypeScript compiler's own pre-processor, so `import type`,
 * `export … from` and `import()` all count. The 5.9 compiler, under the `typescript-5` alias:
 * TypeScript 7, which typechecks the project, is native and has no JS API.
 */

const FUNCTIONS = resolve(import.meta.dirname, '../../functions');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each file's relative imports of other files under `root`, resolved (`./x.js` → `x.ts`). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles
        .map((imported) => imported.fileName)
        .filter((name) => name.startsWith('.'))
        .map((name) => resolve(dirname(file), name.replace(/\.js$/, '.ts')))
        .filter((target) => known.has(target));
      return [file, [...new Set(targets)]];
    }),
  );
}

/** The import circles of a graph, each once, as the path that closes it (Tarjan's components). */
function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    const selfImport = graph.get(file)?.includes(file) ?? false;
    if (component.length > 1 || selfImport) circles.push(component.reverse());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

describe('the import graph of functions/', () => {
  it('has no circle, type-only imports included', () => {
    const files = sourceFiles(FUNCTIONS);
    expect(files.length).toBeGreaterThan(50);
    const circles = importCircles(importGraph(files)).map((circle) =>
      circle.map((file) => relative(FUNCTIONS, file)).join(' → '),
    );
    expect(circles).toEqual([]);
  });

  it('finds a circle, however it is closed', () => {
    // The check itself must be able to fail: a type-only pair and a three-file ring.
    const graph = new Map([
      ['a', ['b']],
      ['b', ['a']],
      ['c', ['d']],
      ['d', ['e']],
      ['e', ['c']],
      ['f', ['a']],
    ]);
    expect(importCircles(graph).map((circle) => [...circle].sort())).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
  });

  it('reads type-only, re-export and dynamic imports as edges', () => {
    const info = ts.preProcessFile(
      [
        "import type { A } from './a.js';",
        "export { B } from './b.js';",
        "const c = await import('./c.js');",
      ].join('\n'),
      true,
      true,
    );
    expect(info.importedFiles.map((imported) => imported.fileName)).toEqual([
      './a.js',
      './b.js',
      './c.js',
    ]);
  });
});
