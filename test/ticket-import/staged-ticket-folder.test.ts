import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MANIFEST_NAME,
  ManifestError,
  StagedTicketFolder,
} from '../../functions/ticket-import/staged-ticket-folder.js';
import { temporaryDirectoriesOfThisFile } from '../support/import-folders.js';

const temporaryDirectory = temporaryDirectoriesOfThisFile('staged-folder-test-');

/** An import of one ticket, `INC1.md`, into `outDir`: staged, committed, staging discarded. */
function importOneTicket(outDir: string): void {
  const folder = StagedTicketFolder.open({ outDir, source: 'servicenow', write: true });
  folder.stage('INC1.md', 'fine');
  folder.commit({
    hashes: { INC1: 'h1' },
    writtenNames: ['INC1.md'],
    removedNames: [],
    prune: false,
  });
  folder.discard();
}

describe('StagedTicketFolder', () => {
  it('creates a new folder whole at the commit: absent before, every staged file and the manifest after', () => {
    const parent = temporaryDirectory();
    const outDir = join(parent, 'tickets');
    const folder = StagedTicketFolder.open({ outDir, source: 'servicenow', write: true });
    const names = Array.from({ length: 40 }, (_, index) => `INC${index}.md`);
    for (const name of names) folder.stage(name, `# ${name}\n`);
    expect(existsSync(outDir)).toBe(false);
    folder.commit({
      hashes: { INC0: 'h0' },
      writtenNames: names,
      removedNames: [],
      prune: false,
    });
    folder.discard();
    // One rename of the staging folder: nothing of it is left beside the output folder.
    expect(readdirSync(parent)).toEqual(['tickets']);
    expect(readdirSync(outDir).sort()).toEqual([MANIFEST_NAME, ...names].sort());
    expect(readFileSync(join(outDir, 'INC39.md'), 'utf8')).toBe('# INC39.md\n');
    expect(JSON.parse(readFileSync(join(outDir, MANIFEST_NAME), 'utf8'))).toEqual({
      version: 1,
      sources: { servicenow: { INC0: 'h0' } },
    });
  });

  it('fills an empty folder the same way, and leaves it empty when the run fails', () => {
    const outDir = temporaryDirectory();
    const failing = StagedTicketFolder.open({ outDir, source: 'servicenow', write: true });
    failing.stage('INC1.md', 'fine');
    // A name in a folder that does not exist: the write fails (ENOENT), as a full disk would.
    expect(() => failing.stage('missing/INC2.md', 'fails')).toThrow(/ENOENT/);
    failing.discard();
    expect(readdirSync(outDir)).toEqual([]);
    expect(
      readdirSync(join(outDir, '..')).filter((name) => name.includes('import-staging')),
    ).toEqual([]);

    importOneTicket(outDir);
    expect(readdirSync(outDir).sort()).toEqual([MANIFEST_NAME, 'INC1.md'].sort());
  });

  it('fills an empty folder behind a symbolic link through the link', () => {
    const target = temporaryDirectory();
    const outDir = join(temporaryDirectory(), 'tickets');
    symlinkSync(target, outDir);
    importOneTicket(outDir);
    expect(lstatSync(outDir).isSymbolicLink()).toBe(true);
    expect(readdirSync(target).sort()).toEqual([MANIFEST_NAME, 'INC1.md'].sort());
  });

  it('leaves a folder it did not create absent when the run fails', () => {
    const outDir = join(temporaryDirectory(), 'tickets');
    const folder = StagedTicketFolder.open({ outDir, source: 'servicenow', write: true });
    folder.stage('INC1.md', 'fine');
    folder.discard();
    expect(existsSync(outDir)).toBe(false);
    expect(readdirSync(join(outDir, '..'))).toEqual([]);
  });

  it('into a folder with tickets: stages inside it, renames only the staged files, prunes, replaces the manifest', () => {
    const outDir = temporaryDirectory();
    writeFileSync(join(outDir, '1001.md'), 'a sample ticket');
    writeFileSync(join(outDir, 'INC1.md'), 'old');
    writeFileSync(join(outDir, 'INC2.md'), 'pruned');
    writeFileSync(
      join(outDir, MANIFEST_NAME),
      JSON.stringify({ version: 1, sources: { servicenow: { INC1: 'h1', INC2: 'h2' } } }),
    );
    const folder = StagedTicketFolder.open({ outDir, source: 'servicenow', write: true });
    folder.stage('INC1.md', 'new');
    folder.stage('INC3.md', 'added');
    expect(readFileSync(join(outDir, 'INC1.md'), 'utf8')).toBe('old');
    folder.commit({
      hashes: { INC1: 'h1b', INC3: 'h3' },
      writtenNames: ['INC1.md', 'INC3.md'],
      removedNames: ['INC2.md'],
      prune: true,
    });
    folder.discard();
    expect(readdirSync(outDir).sort()).toEqual(
      [MANIFEST_NAME, '1001.md', 'INC1.md', 'INC3.md'].sort(),
    );
    expect(readFileSync(join(outDir, 'INC1.md'), 'utf8')).toBe('new');
    expect(JSON.parse(readFileSync(join(outDir, MANIFEST_NAME), 'utf8'))).toEqual({
      version: 1,
      sources: { servicenow: { INC1: 'h1b', INC3: 'h3' } },
    });
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
