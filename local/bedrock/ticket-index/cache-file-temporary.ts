import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * The temporary file a cache file of the local index is written to before it is renamed into
 * place (`<file>.<pid>.tmp`), after removing the ones an earlier process left behind: a start
 * killed while it wrote its caches (they are written after the index serves, ADR 0021) leaves
 * one, hundreds of megabytes at 100,000 tickets, and each later kill would add another. A
 * temporary of a process still running is left alone — it is being written.
 */
export function temporaryFileFor(file: string): string {
  removeAbandonedTemporaries(file);
  return `${file}.${process.pid}.tmp`;
}

function removeAbandonedTemporaries(file: string): void {
  const prefix = `${basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return; // no folder yet: nothing was left
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pid = Number(name.slice(prefix.length, -'.tmp'.length));
    if (!Number.isInteger(pid) || pid <= 0 || isRunning(pid)) continue;
    rmSync(join(dirname(file), name), { force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: only asks whether the process exists
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
