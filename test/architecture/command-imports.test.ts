import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import ts from 'typescript-5';
import { describe, expect, it } from 'vitest';
import { followImports } from '../support/follow-imports.js';

/**
 * The npm commands run by tsx (`npm start`, `npm run import`, `insights`, `eval`, …) load no
 * CDK library when they start: aws-cdk-lib costs about a second of CPU to load, and the
 * operator commands once paid it on every run — even for a mistyped flag — only to read a stack
 * output's name (now in `lib/deployed-stack-names.ts`). A command that does need the CDK loads it
 * with `import()` where it needs it. Runtime imports only: `import type` loads nothing.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const CDK_PACKAGES = ['aws-cdk-lib', 'constructs', 'cdk-nag'];

/** The TypeScript files package.json's scripts run with tsx. */
function commandEntryPoints(): string[] {
  const { scripts } = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  return Object.values(scripts)
    .flatMap((command) => [...command.matchAll(/\btsx (\S+\.ts)\b/g)].map((match) => match[1]))
    .filter((file): file is string => file !== undefined);
}

/** The modules a file loads when it is loaded: static imports and re-exports that are not type-only. */
function runtimeImports(source: string): string[] {
  const file = ts.createSourceFile('module.ts', source, ts.ScriptTarget.Latest);
  const specifiers: string[] = [];
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const bindings = clause?.namedBindings;
      const onlyTypes =
        clause?.isTypeOnly ||
        (clause !== undefined &&
          clause.name === undefined &&
          bindings !== undefined &&
          ts.isNamedImports(bindings) &&
          bindings.elements.length > 0 &&
          bindings.elements.every((element) => element.isTypeOnly));
      if (!onlyTypes) specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (
      ts.isExportDeclaration(statement) &&
      statement.moduleSpecifier &&
      !statement.isTypeOnly
    ) {
      specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return specifiers;
}

/** Each CDK package an entry point loads, with the chain of files that loads it. */
function cdkLoads(entry: string): string[] {
  return followImports([entry], runtimeImports)
    .filter(({ specifier }) =>
      CDK_PACKAGES.some((name) => specifier === name || specifier.startsWith(`${name}/`)),
    )
    .map(({ specifier, chain }) =>
      [specifier, ...chain.map((file) => relative(ROOT, file))].join(' ← '),
    );
}

describe('the npm commands run by tsx', () => {
  it('load no CDK library when they start', () => {
    const entries = commandEntryPoints();
    // npm start, build, deploy, ingest, import, bench, eval, usage, insights, integ, screenshots.
    expect(entries.length).toBeGreaterThanOrEqual(10);
    expect(entries.flatMap((entry) => cdkLoads(resolve(ROOT, entry)))).toEqual([]);
  });

  it('counts what a file loads at run time, not what it imports for types', () => {
    expect(
      runtimeImports(
        [
          "import { App } from 'aws-cdk-lib';",
          "import type { Stack } from 'aws-cdk-lib';",
          "import { type Construct } from 'constructs';",
          "import { type A, b } from './b.js';",
          "export { c } from './c.js';",
          "export type { D } from './d.js';",
          "import './side-effect.js';",
          "const lazy = await import('aws-cdk-lib/aws-s3');",
        ].join('\n'),
      ),
    ).toEqual(['aws-cdk-lib', './b.js', './c.js', './side-effect.js']);
  });

  it('finds the CDK behind a chain of project files', () => {
    // lib/service-desk-app.ts builds the stack: what the check must catch if a command imports it.
    expect(cdkLoads(resolve(ROOT, 'lib/service-desk-app.ts')).length).toBeGreaterThan(0);
  });
});
