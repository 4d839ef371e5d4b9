import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeAnalysisCacheInBackground } from '../../../../local/bedrock/ticket-index/analysis-cache.js';
import { temporaryFileFor } from '../../../../local/bedrock/ticket-index/cache-file-temporary.js';

describe('the temporary file a local index cache is written through', () => {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });
  function folderWith(names: readonly string[]): string {
    const folder = mkdtempSync(join(tmpdir(), 'cache-temporary-'));
    folders.push(folder);
    for (const name of names) writeFileSync(join(folder, name), 'x');
    return folder;
  }
  /** The pid of a process that has exited. */
  const exitedPid = () => spawnSync(process.execPath, ['-e', '0']).pid;

  it('removes what killed processes left, keeps a running process’s and every other file', async () => {
    const gone = exitedPid();
    const running = process.ppid;
    const folder = folderWith([
      `analysis.bin.${gone}.tmp`,
      `analysis.bin.${running}.tmp`,
      `snapshot.bin.${gone}.tmp`, // another cache's: removed when that cache is written
      'analysis.bin',
      'analysis.bin.notes.tmp',
    ]);
    const file = join(folder, 'analysis.bin');
    expect(temporaryFileFor(file)).toBe(`${file}.${process.pid}.tmp`);
    expect(readdirSync(folder).sort()).toEqual(
      [
        'analysis.bin',
        `analysis.bin.${running}.tmp`,
        'analysis.bin.notes.tmp',
        `snapshot.bin.${gone}.tmp`,
      ].sort(),
    );
  });

  it('is what the cache writer uses: a write leaves the cache and no abandoned temporary', async () => {
    const folder = folderWith([`analysis.bin.${exitedPid()}.tmp`]);
    await writeAnalysisCacheInBackground(join(folder, 'analysis.bin'), [], []);
    expect(readdirSync(folder)).toEqual(['analysis.bin']);
  });

  it('is fine with a folder that does not exist yet', () => {
    const folder = folderWith([]);
    const file = join(folder, 'not-yet', 'analysis.bin');
    expect(temporaryFileFor(file)).toBe(`${file}.${process.pid}.tmp`);
  });
});
