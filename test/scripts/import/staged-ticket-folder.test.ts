import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MANIFEST_NAME,
  ManifestError,
  StagedTicketFolder,
} from '../../../scripts/import/staged-ticket-folder.js';

const temporaryDirectories: string[] = [];

function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'staged-folder-test-'));
  temporaryDirectories.push(directory);
  return directory;
}

afterEach(() => {
  for (const directory of temporaryDirectories.splice(0)) {
    rmSync(directory, { recursive: true, force: true });
  }
});

describe('StagedTicketFolder', () => {
  it('puts nothing into the folder before the commit, then every staged file and the manifest', async () => {
    const outDir = join(temporaryDirectory(), 'tickets');
    const folder = StagedTicketFolder.open({ outDir, source: 'servicenow', write: true });
    // More files than writes in flight, so staging waits for some to end.
    const names = Array.from({ length: 40 }, (_, index) => `INC${index}.md`);
    for (const name of names) await folder.stage(name, `# ${name}\n`);
    expect(readdirSync(outDir).filter((name) => !name.startsWith('.import-staging-'))).toEqual([]);
    await folder.commit({
      hashes: { INC0: 'h0' },
      writtenNames: names,
      removedNames: [],
      prune: false,
    });
    await folder.discard();
    expect(readdirSync(outDir).sort()).toEqual([MANIFEST_NAME, ...names].sort());
    expect(readFileSync(join(outDir, 'INC39.md'), 'utf8')).toBe('# INC39.md\n');
    expect(JSON.parse(readFileSync(join(outDir, MANIFEST_NAME), 'utf8'))).toEqual({
      version: 1,
      sources: { servicenow: { INC0: 'h0' } },
    });
  });

  it('fails the commit on a staged write that failed, and leaves a folder it created absent', async () => {
    const outDir = join(temporaryDirectory(), 'tickets');
    const folder = StagedTicketFolder.open({ outDir, source: 'servicenow', write: true });
    await folder.stage('INC1.md', 'fine');
    // A name in a folder that does not exist: the write fails in the background (ENOENT).
    await folder.stage('missing/INC2.md', 'fails');
    await expect(
      folder.commit({
        hashes: {},
        // Only the good file is to be renamed: the rejection can come from the failed write alone.
        writtenNames: ['INC1.md'],
        removedNames: [],
        prune: false,
      }),
    ).rejects.toThrow(/ENOENT/);
    await folder.discard();
    expect(existsSync(outDir)).toBe(false);
  });

  it('knows a ticket file it did not write from one it did, with one listing of the folder', () => {
    const outDir = temporaryDirectory();
    writeFileSync(join(outDir, '1001.md'), 'a sample ticket');
    writeFileSync(join(outDir, 'INC1.md'), 'imported earlier');
    writeFileSync(
      join(outDir, MANIFEST_NAME),
      JSON.stringify({
        version: 1,
        sources: { servicenow: { INC1: 'h1' }, jira: { 'ITSD-1': 'x' } },
      }),
    );
    const folder = StagedTicketFolder.open({ outDir, source: 'servicenow', write: false });
    expect(folder.isTakenByAnother('1001', '1001.md')).toBe(true);
    expect(folder.isTakenByAnother('ITSD-1', 'ITSD-1.md')).toBe(true);
    expect(folder.isTakenByAnother('INC1', 'INC1.md')).toBe(false);
    expect(folder.isUnchanged('INC1', 'INC1.md', 'h1')).toBe(true);
    expect(folder.isUnchanged('INC1', 'INC1.md', 'other')).toBe(false);
  });

  it('refuses a manifest of another version, saying how to start over', () => {
    const outDir = temporaryDirectory();
    writeFileSync(join(outDir, MANIFEST_NAME), JSON.stringify({ version: 2, sources: {} }));
    expect(() => StagedTicketFolder.open({ outDir, source: 'jira', write: true })).toThrow(
      ManifestError,
    );
    expect(() => StagedTicketFolder.open({ outDir, source: 'jira', write: true })).toThrow(
      /move it away to start over/,
    );
  });
});
