import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** One import reached from the entry files. */
export interface ReachedImport {
  /** As written: `./x.js`, `aws-cdk-lib/aws-s3`. */
  readonly specifier: string;
  /** The file a relative import names (`./x.js` → `x.ts` or `x.tsx`); undefined for a package. */
  readonly target: string | undefined;
  /** The importing file first, then the file that imported it, back to an entry file. */
  readonly chain: readonly string[];
}

/**
 * Follows imports breadth-first from `entries`: each file's imports as `importsOf` reads them
 * (what counts — type-only, dynamic — is the caller's rule), relative ones resolved to files and
 * followed once. Every import reached is returned, with the chain of files that leads to it.
 */
export function followImports(
  entries: readonly string[],
  importsOf: (source: string) => readonly string[],
): ReachedImport[] {
  const parentOf = new Map<string, string | undefined>(entries.map((entry) => [entry, undefined]));
  const pending = [...entries];
  const reached: ReachedImport[] = [];
  for (let file = pending.shift(); file !== undefined; file = pending.shift()) {
    const chain: string[] = [];
    for (let at: string | undefined = file; at !== undefined; at = parentOf.get(at)) chain.push(at);
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      const target = specifier.startsWith('.') ? resolveRelative(file, specifier) : undefined;
      reached.push({ specifier, target, chain });
      if (target && /\.tsx?$/.test(target) && existsSync(target) && !parentOf.has(target)) {
        parentOf.set(target, file);
        pending.push(target);
      }
    }
  }
  return reached;
}

/** The file a relative import names: TypeScript sources are imported by their `.js` name. */
function resolveRelative(from: string, specifier: string): string {
  const target = resolve(dirname(from), specifier);
  if (existsSync(target)) return target;
  const sources = [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx')];
  return sources.find((candidate) => existsSync(candidate)) ?? target;
}
