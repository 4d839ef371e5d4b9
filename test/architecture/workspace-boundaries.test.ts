import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript-5';
import { describe, expect, it } from 'vitest';

/**
 * Product and tooling apart (issue #47): `local/` (the stack behind `npm start`) and `bench/`
 * are npm workspaces with their own package.json, so what only they use stays out of the
 * product's dependencies, and `local/` sees the product (`functions/`) only through its contract
 * — what a client of the deployed API may know too, and what the product and the model agree on:
 * the prompts' data elements, their markup, the language rule — and the model-call tool
 * definitions, which the emulator answers from. `bench/` measures internals and may import any of them. The imports
 * are read with the TypeScript compiler's pre-processor: `import type`, `export … from` and
 * `import()` all count (the 5.9 compiler, as in import-cycles.test.ts).
 */

const ROOT = resolve(import.meta.dirname, '../..');

/** What `local/` may import of `functions/` without an entry below. */
const PRODUCT_INTERFACE = ['functions/contract/', 'functions/model-call/'];

/**
 * The product modules `local/` still imports beyond its interface, each with why. Shrink it:
 * an entry no file imports any more fails the test, so it cannot outlive its reason.
 */
const STILL_IMPORTED: Readonly<Record<string, string>> = {
  'functions/adapters/bedrock/vector-store-search.ts':
    "the local Retrieve refuses the filter operators the deployed vector store does not support, from the adapter's own list",
  'functions/adapters/bedrock/prompt-cache-support.ts':
    'the local ConverseStream reports cache reads and writes only for models the product marks as caching',
  'functions/adapters/dynamodb/table-definitions.ts':
    "DynamoDB Local's tables are created from the stack's own definitions",
  'functions/settings/function-settings.ts':
    "the local stack checks the function's environment with the function's own schema before it starts",
};

const WORKSPACES = ['local', 'bench'] as const;

/** The source files under `directory` (TypeScript and plain JavaScript modules). */
function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) {
      return [];
    }
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Every module a file names: static, type-only, re-exported, dynamic and `require`d. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles.map((imported) => imported.fileName);
}

/** The repository path a relative import names (`./x.js` is `x.ts` in the sources). */
function targetOf(file: string, specifier: string): string {
  return relative(ROOT, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts');
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`; undefined for a relative or built-in one. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return undefined;
  if (specifier.startsWith('node:') || builtinModules.includes(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

interface Manifest {
  readonly workspaces?: readonly string[];
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
}

const manifestOf = (directory: string): Manifest =>
  JSON.parse(readFileSync(join(ROOT, directory, 'package.json'), 'utf8')) as Manifest;
const declared = (manifest: Manifest) => ({
  ...manifest.dependencies,
  ...manifest.devDependencies,
});
/** A type-only package (`aws-lambda`) is declared by its `@types` package. */
const isDeclared = (name: string, versions: Readonly<Record<string, string>>) =>
  name in versions || `@types/${name.replace(/^@([^/]+)\/(.+)$/, '$1__$2')}` in versions;

/** The packages the files under `directories` import. */
const packagesImportedBy = (directories: readonly string[]) =>
  new Set(
    directories.flatMap((directory) =>
      sourceFiles(join(ROOT, directory)).flatMap((file) =>
        importsOf(file).flatMap((specifier) => packageOf(specifier) ?? []),
      ),
    ),
  );

/** Whether `local/` may import `target` (a repository path) without an entry. */
const inProductInterface = (target: string) =>
  PRODUCT_INTERFACE.some((allowed) => target.startsWith(allowed));

describe('local/ and bench/ apart from the product', () => {
  it('are npm workspaces of the one repository', () => {
    expect(manifestOf('.').workspaces).toEqual([...WORKSPACES]);
  });

  it('local/ imports the product only through its contract and the model-call tool definitions', () => {
    const files = sourceFiles(join(ROOT, 'local'));
    expect(files.length).toBeGreaterThan(20);
    const productImports = files.flatMap((file) =>
      importsOf(file)
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => ({ from: relative(ROOT, file), target: targetOf(file, specifier) }))
        .filter(({ target }) => target.startsWith('functions/')),
    );
    const outside = productImports.filter(
      ({ target }) => !inProductInterface(target) && !(target in STILL_IMPORTED),
    );
    expect(outside.map(({ from, target }) => `${from} → ${target}`)).toEqual([]);
    // An entry nothing imports any more goes: the list only shrinks.
    const stillImported = new Set(productImports.map(({ target }) => target));
    expect(Object.keys(STILL_IMPORTED).filter((entry) => !stillImported.has(entry))).toEqual([]);
  });

  it('tells an import of the product from one of its contract', () => {
    const from = join(ROOT, 'local/bedrock/x.ts');
    expect(inProductInterface(targetOf(from, '../../functions/contract/answer.js'))).toBe(true);
    expect(inProductInterface(targetOf(from, '../../functions/chat/run-chat.js'))).toBe(false);
    expect(inProductInterface(targetOf(from, '../../functions/contractual.js'))).toBe(false);
  });

  it.each(WORKSPACES)('%s/ declares every package it imports in its own package.json', (name) => {
    const versions = declared(manifestOf(name));
    const undeclared = [...packagesImportedBy([name])].filter(
      (entry) => !isDeclared(entry, versions),
    );
    expect(undeclared).toEqual([]);
  });

  it('keeps what only the workspaces import out of the root package.json', () => {
    const rootVersions = declared(manifestOf('.'));
    const elsewhere = packagesImportedBy([
      'bin',
      'eval',
      'functions',
      'lib',
      'scripts',
      'test',
      'web',
    ]);
    for (const file of ['vitest.config.ts']) {
      for (const specifier of importsOf(join(ROOT, file))) {
        const name = packageOf(specifier);
        if (name) elsewhere.add(name);
      }
    }
    const onlyWorkspaces = [...packagesImportedBy(WORKSPACES)].filter(
      (name) => !elsewhere.has(name),
    );
    expect(onlyWorkspaces.filter((name) => isDeclared(name, rootVersions))).toEqual([]);
    // The benchmarks' parsers and SDKs are what this is about.
    expect(onlyWorkspaces).toEqual(expect.arrayContaining(['ai', '@langchain/core']));
  });

  it('pins exact versions, one per package across the root and the workspaces', () => {
    const manifests = ['.', ...WORKSPACES].map((directory) => ({
      directory,
      versions: declared(manifestOf(directory)),
    }));
    const loose = manifests.flatMap(({ directory, versions }) =>
      Object.entries(versions)
        .filter(([, version]) => !/^(npm:(@?[^@]+)@)?\d+\.\d+\.\d+$/.test(version))
        .map(([name, version]) => `${directory}: ${name}@${version}`),
    );
    expect(loose).toEqual([]);
    const versionsOf = new Map<string, Set<string>>();
    for (const { versions } of manifests) {
      for (const [name, version] of Object.entries(versions)) {
        versionsOf.set(name, (versionsOf.get(name) ?? new Set()).add(version));
      }
    }
    const split = [...versionsOf].filter(([, versions]) => versions.size > 1);
    expect(split.map(([name, versions]) => `${name}: ${[...versions].join(' ≠ ')}`)).toEqual([]);
  });
});
