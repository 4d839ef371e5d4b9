import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { readTabularMapping } from '../../../functions/ticket-import/sources/tabular.js';

const run = promisify(execFile);
const directory = mkdtempSync(join(tmpdir(), 'import-command-test-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Runs `npm run import -- …` as the README shows it (through tsx, without npm's banner). */
async function importCommand(...args: string[]) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/import.ts', ...args],
      {
        env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

// The one test through a child process: the command line itself (flags, exit codes, messages).
// Everything else is tested in process through runImport.
describe('npm run import', () => {
  it('imports, refuses an unknown flag or a missing file, and says what to change', async () => {
    const out = join(directory, 'tickets');
    // In parallel: each start of tsx costs seconds on a loaded machine.
    const [imported, unknown, missing, shiftJis, badEncoding] = await Promise.all([
      importCommand(
        '--from',
        'zendesk',
        'test/fixtures/import/zendesk',
        '--out',
        out,
        '--restricted-when',
        'tags=hr',
      ),
      importCommand('--from', 'zendesk', 'x', '--otu', out),
      importCommand('--from', 'jira', 'exports/nowhere', '--out', join(directory, 'missing')),
      importCommand(
        '--from',
        'csv',
        'test/fixtures/import/csv-shift-jis/tickets.csv',
        '--mapping',
        'test/fixtures/import/csv-shift-jis/mapping.json',
        '--encoding',
        'shift_jis',
        '--dry-run',
      ),
      importCommand('--from', 'csv', 'x.csv', '--encoding', 'latin1', '--dry-run'),
    ]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('3 new, 0 changed');
    expect(imported.stdout).toContain('1  tags=hr');
    expect(imported.stdout).toMatch(
      /malformed: test\/fixtures\/import\/zendesk\/incremental-tickets-page-2\.json record 2: has no id/,
    );
    expect(existsSync(join(out, 'ZD_35436.md'))).toBe(true);

    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown option '--otu'/);
    expect(unknown.stderr).toContain('usage: npm run import');

    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('exports/nowhere: no such file or directory');
    expect(missing.stderr).toContain('Nothing was written.');
    expect(existsSync(join(directory, 'missing'))).toBe(false);

    expect(shiftJis.code).toBe(0);
    expect(shiftJis.stdout).toContain('1 new, 0 changed');
    expect(badEncoding.code).toBe(2);
    expect(badEncoding.stderr).toContain('--encoding must be one of utf-8, shift_jis');
  }, 120_000);
});

describe('readTabularMapping', () => {
  it('names every problem of a mapping file with its path', () => {
    const file = join(directory, 'mapping.json');
    writeFileSync(
      file,
      JSON.stringify({ number: 'id', inquiry: [], status: { column: 'state' }, extra: 1 }),
    );
    expect(() => readTabularMapping(file)).toThrow(
      /mapping .*mapping\.json is not valid:\n(?=[\s\S]*subject)(?=[\s\S]*inquiry)(?=[\s\S]*status\.resolved)(?=[\s\S]*extra)/,
    );
  });
});
