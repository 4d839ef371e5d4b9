import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExportFileError } from '../../functions/ticket-import/export-files.js';
import type { SourceName } from '../../functions/ticket-import/imported-ticket.js';
import {
  type ImportOptions,
  runImport,
  StrictImportError,
} from '../../functions/ticket-import/run-import.js';
import { readTabularMapping } from '../../functions/ticket-import/sources/tabular.js';
import { temporaryDirectoriesOfThisFile, ticketFilesOf } from '../support/import-folders.js';

const FIXTURES = 'test/fixtures/import';
const temporaryDirectory = temporaryDirectoriesOfThisFile('import-test-');

const tabular = (source: 'csv' | 'jsonl') => ({
  paths: [join(FIXTURES, source, `tickets.${source}`)],
  mapping: readTabularMapping(join(FIXTURES, source, 'mapping.json')),
});

/** Each source's fixture set and the folder of its expected documents. */
const GOLDEN: readonly {
  readonly name: string;
  readonly source: SourceName;
  readonly options: Partial<ImportOptions> & Pick<ImportOptions, 'paths'>;
}[] = [
  {
    name: 'servicenow/table-api-display-false',
    source: 'servicenow',
    options: { paths: [join(FIXTURES, 'servicenow/table-api-display-false')] },
  },
  {
    name: 'servicenow/table-api-display-true',
    source: 'servicenow',
    options: { paths: [join(FIXTURES, 'servicenow/table-api-display-true')], comments: 'public' },
  },
  {
    name: 'servicenow/table-api-display-all',
    source: 'servicenow',
    options: { paths: [join(FIXTURES, 'servicenow/table-api-display-all')], comments: 'all' },
  },
  {
    name: 'servicenow/list-export',
    source: 'servicenow',
    options: { paths: [join(FIXTURES, 'servicenow/list-export/incident.csv')] },
  },
  {
    name: 'servicenow/requested-items',
    source: 'servicenow',
    options: { paths: [join(FIXTURES, 'servicenow/requested-items')] },
  },
  { name: 'jira/cloud-v3', source: 'jira', options: { paths: [join(FIXTURES, 'jira/cloud-v3')] } },
  {
    name: 'jira/server-v2',
    source: 'jira',
    options: { paths: [join(FIXTURES, 'jira/server-v2/search.json')] },
  },
  {
    name: 'zendesk',
    source: 'zendesk',
    options: { paths: [join(FIXTURES, 'zendesk')] },
  },
  { name: 'csv', source: 'csv', options: tabular('csv') },
  { name: 'jsonl', source: 'jsonl', options: tabular('jsonl') },
];

const goldenDirectory = (name: string) => join(FIXTURES, 'expected', name);

describe('runImport', () => {
  // The expected documents are files a reviewer reads; UPDATE_GOLDEN=1 rewrites them after a
  // deliberate change (review the diff: it is what staff will read).
  it.each(GOLDEN)('imports the $name fixtures to the expected documents', async (golden) => {
    const out = temporaryDirectory();
    await runImport({ source: golden.source, outDir: out, ...golden.options });
    const written = ticketFilesOf(out);
    const expectedDirectory = goldenDirectory(golden.name);
    if (process.env.UPDATE_GOLDEN) {
      rmSync(expectedDirectory, { recursive: true, force: true });
      mkdirSync(expectedDirectory, { recursive: true });
      for (const [name, text] of Object.entries(written)) {
        writeFileSync(join(expectedDirectory, name), text);
      }
    }
    expect(written).toEqual(ticketFilesOf(expectedDirectory));
    expect(Object.keys(written).length).toBeGreaterThan(0);
  });

  it('writes the ticket number as the source writes it into issue_id and the file names', async () => {
    const ids: Record<string, string[]> = {};
    for (const golden of GOLDEN) {
      const out = temporaryDirectory();
      await runImport({ source: golden.source, outDir: out, ...golden.options });
      ids[golden.name] = readdirSync(out)
        .filter((name) => name.endsWith('.metadata.json'))
        .map(
          (name) =>
            JSON.parse(readFileSync(join(out, name), 'utf8')).metadataAttributes.issue_id as string,
        )
        .sort();
    }
    expect(ids).toEqual({
      'servicenow/table-api-display-false': ['INC0012345', 'INC0012349'],
      'servicenow/table-api-display-true': ['INC0012345', 'INC0012350'],
      'servicenow/table-api-display-all': ['INC0012345'],
      'servicenow/list-export': ['INC0012360'],
      'servicenow/requested-items': ['RITM0012345'],
      'jira/cloud-v3': ['ITSD-123', 'ITSD-126'],
      'jira/server-v2': ['HELP-42'],
      zendesk: ['ZD#35436', 'ZD#35439', 'ZD#35440'],
      csv: ['HD-1001', 'HD-1004'],
      jsonl: ['FS-501'],
    });
  });

  it('counts every skipped record by its reason', async () => {
    const servicenow = await runImport({
      source: 'servicenow',
      dryRun: true,
      paths: [join(FIXTURES, 'servicenow/table-api-display-false')],
    });
    expect(servicenow.records).toBe(7);
    expect(servicenow.skipped).toEqual({
      notResolved: 1,
      noResolutionText: 1,
      duplicate: 1,
      repeatedNumber: 0,
      malformed: 2,
      idTaken: 0,
    });
    const jira = await runImport({ source: 'jira', dryRun: true, paths: [join(FIXTURES, 'jira')] });
    expect(jira.skipped).toMatchObject({ notResolved: 1, duplicate: 1, malformed: 2 });
    const zendesk = await runImport({
      source: 'zendesk',
      dryRun: true,
      paths: [join(FIXTURES, 'zendesk')],
    });
    // 35437 is open, 35438 was closed by a merge, the last record of page 2 has no id.
    expect(zendesk.skipped).toMatchObject({ notResolved: 1, duplicate: 1, malformed: 1 });
    // The same incident exported in three modes and as CSV is imported once.
    const all = await runImport({
      source: 'servicenow',
      dryRun: true,
      paths: [join(FIXTURES, 'servicenow')],
    });
    expect(all.skipped.repeatedNumber).toBe(2);
  });

  it('with comments none, a Zendesk ticket has no resolution and is skipped', async () => {
    const report = await runImport({
      source: 'zendesk',
      dryRun: true,
      comments: 'none',
      paths: [join(FIXTURES, 'zendesk')],
    });
    expect(report.tickets.new).toBe(0);
    expect(report.skipped.noResolutionText).toBe(3);
  });

  it('names each malformed record by file and record number and imports the rest', async () => {
    const report = await runImport({
      source: 'jira',
      outDir: temporaryDirectory(),
      paths: [join(FIXTURES, 'jira')],
    });
    expect(report.malformed).toEqual([
      {
        file: 'test/fixtures/import/jira/cloud-v3/search-jql-page-2.json',
        recordNumber: 1,
        message: 'ITSD-127 has no fields (search with fields=*all)',
      },
      {
        file: 'test/fixtures/import/jira/server-v2/search.json',
        recordNumber: 2,
        message: 'HELP-43: comment.comments is not a list',
      },
    ]);
    expect(report.tickets.new).toBe(3);
  });

  it('with --strict stops at a malformed record and writes nothing', async () => {
    const parent = temporaryDirectory();
    const out = join(parent, 'tickets');
    await expect(
      runImport({ source: 'jira', outDir: out, strict: true, paths: [join(FIXTURES, 'jira')] }),
    ).rejects.toThrow(StrictImportError);
    await expect(
      runImport({ source: 'jira', outDir: out, strict: true, paths: [join(FIXTURES, 'jira')] }),
    ).rejects.toThrow(/search-jql-page-2\.json record 1: ITSD-127 has no fields/);
    expect(existsSync(out)).toBe(false);
  });

  it('writes nothing when a file is not JSON, even after good records', async () => {
    const exportDirectory = temporaryDirectory();
    cpSync(join(FIXTURES, 'servicenow/table-api-display-true'), exportDirectory, {
      recursive: true,
    });
    const broken = readFileSync(join(exportDirectory, 'page-2.json'), 'utf8').slice(0, 200);
    writeFileSync(join(exportDirectory, 'page-2.json'), broken);
    const out = temporaryDirectory();
    writeFileSync(join(out, 'README.txt'), 'not the import’s');
    await expect(
      runImport({ source: 'servicenow', outDir: out, paths: [exportDirectory] }),
    ).rejects.toThrow(ExportFileError);
    expect(readdirSync(out)).toEqual(['README.txt']);
  });

  it('refuses a missing export path with its name', async () => {
    await expect(
      runImport({ source: 'zendesk', dryRun: true, paths: ['exports/nowhere'] }),
    ).rejects.toThrow('exports/nowhere: no such file or directory');
  });

  it('with --dry-run writes nothing and counts what each rule marks', async () => {
    const out = temporaryDirectory();
    const report = await runImport({
      source: 'jira',
      outDir: out,
      dryRun: true,
      restrictedWhen: ['labels=HR', 'components=network', 'project=NONE'],
      paths: [join(FIXTURES, 'jira')],
    });
    expect(readdirSync(out)).toEqual([]);
    expect(report.tickets).toEqual({ new: 3, changed: 0, unchanged: 0 });
    expect(report.restrictedByRule).toEqual({
      'labels=HR': 1,
      'components=network': 1,
      'project=NONE': 0,
    });
    expect(report.restricted).toBe(2);
  });

  it('sets restricted in the sidecars of the tickets a rule marks (CLI and mapping rules)', async () => {
    const out = temporaryDirectory();
    await runImport({ source: 'csv', outDir: out, ...tabular('csv') });
    const restrictedOf = (id: string) =>
      JSON.parse(readFileSync(join(out, `${id}.md.metadata.json`), 'utf8')).metadataAttributes
        .restricted;
    expect(restrictedOf('HD-1004')).toBe(true); // Department=HR in the mapping
    expect(restrictedOf('HD-1001')).toBe(false);
    const zendeskOut = temporaryDirectory();
    await runImport({
      source: 'zendesk',
      outDir: zendeskOut,
      restrictedWhen: ['tags=hr'],
      paths: [join(FIXTURES, 'zendesk')],
    });
    expect(
      JSON.parse(readFileSync(join(zendeskOut, 'ZD_35439.md.metadata.json'), 'utf8'))
        .metadataAttributes.restricted,
    ).toBe(true);
  });

  it('rewrites only the tickets whose content changed in a newer export', async () => {
    const exportDirectory = temporaryDirectory();
    cpSync(join(FIXTURES, 'servicenow/table-api-display-true'), exportDirectory, {
      recursive: true,
    });
    const out = temporaryDirectory();
    const first = await runImport({ source: 'servicenow', outDir: out, paths: [exportDirectory] });
    expect(first.tickets).toEqual({ new: 2, changed: 0, unchanged: 0 });
    const untouchedBefore = statSync(join(out, 'INC0012345.md')).mtimeMs;

    const again = await runImport({ source: 'servicenow', outDir: out, paths: [exportDirectory] });
    expect(again.tickets).toEqual({ new: 0, changed: 0, unchanged: 2 });
    expect(again.writtenNames).toEqual([]);

    const page = JSON.parse(readFileSync(join(exportDirectory, 'page-2.json'), 'utf8'));
    page.result[0].close_notes = 'Updated the camera driver and reset the privacy setting.';
    writeFileSync(join(exportDirectory, 'page-2.json'), JSON.stringify(page));
    const newer = await runImport({ source: 'servicenow', outDir: out, paths: [exportDirectory] });
    expect(newer.tickets).toEqual({ new: 0, changed: 1, unchanged: 1 });
    expect(newer.writtenNames).toEqual(['INC0012350.md', 'INC0012350.md.metadata.json']);
    expect(readFileSync(join(out, 'INC0012350.md'), 'utf8')).toContain('Updated the camera driver');
    expect(statSync(join(out, 'INC0012345.md')).mtimeMs).toBe(untouchedBefore);
  });

  it('with --prune removes only tickets it wrote that are no longer exported', async () => {
    const exportDirectory = temporaryDirectory();
    cpSync(join(FIXTURES, 'servicenow/table-api-display-true'), exportDirectory, {
      recursive: true,
    });
    const out = temporaryDirectory();
    writeFileSync(join(out, '1001.md'), '# a seed ticket\n');
    await runImport({ source: 'servicenow', outDir: out, paths: [exportDirectory] });
    await runImport({ source: 'zendesk', outDir: out, paths: [join(FIXTURES, 'zendesk')] });
    rmSync(join(exportDirectory, 'page-2.json'));

    const withoutPrune = await runImport({
      source: 'servicenow',
      outDir: out,
      paths: [exportDirectory],
    });
    expect(withoutPrune.removed).toBe(0);
    expect(existsSync(join(out, 'INC0012350.md'))).toBe(true);

    const pruned = await runImport({
      source: 'servicenow',
      outDir: out,
      prune: true,
      paths: [exportDirectory],
    });
    expect(pruned.removedNames).toEqual(['INC0012350.md', 'INC0012350.md.metadata.json']);
    expect(existsSync(join(out, 'INC0012350.md'))).toBe(false);
    expect(existsSync(join(out, 'INC0012345.md'))).toBe(true);
    expect(existsSync(join(out, '1001.md'))).toBe(true);
    expect(existsSync(join(out, 'ZD_35436.md'))).toBe(true);
  });

  it('reports a number unusable as an id without echoing it', async () => {
    const exportDirectory = temporaryDirectory();
    const file = join(exportDirectory, 'tickets.csv');
    writeFileSync(
      file,
      'Ticket ID,Title,Details,Resolution notes\n山田 太郎,Printer,Offline.,Restarted.\n',
    );
    const report = await runImport({
      source: 'csv',
      dryRun: true,
      paths: [file],
      mapping: {
        ...tabular('csv').mapping,
        category: undefined,
        status: undefined,
        duplicate: undefined,
        openedAt: undefined,
        resolvedAt: undefined,
        people: [],
        restrictedWhen: [],
        inquiry: 'Details',
        resolution: 'Resolution notes',
      },
    });
    expect(report.skipped.malformed).toBe(1);
    expect(report.malformed[0]?.message).toMatch(
      /^its number \(5 characters\) is not a CSV ticket number/,
    );
    expect(JSON.stringify(report)).not.toContain('山田');
  });

  it('never overwrites a ticket it did not write', async () => {
    const out = temporaryDirectory();
    writeFileSync(join(out, 'ZD_35436.md'), '# a ticket written by hand\n');
    const report = await runImport({
      source: 'zendesk',
      outDir: out,
      paths: [join(FIXTURES, 'zendesk')],
    });
    expect(report.skipped.idTaken).toBe(1);
    expect(readFileSync(join(out, 'ZD_35436.md'), 'utf8')).toBe('# a ticket written by hand\n');
  });
});

// What the fixtures hold about people: names in their variants, e-mail addresses, phone
// numbers and user ids. None may reach a document, a sidecar or the report. (A display=false
// ServiceNow export has only sys_ids in its person fields: its "山田さん" goes because the
// scrub also takes whoever the text addresses by name as a person.)
const PERSONAL = [
  '山田',
  '太郎',
  '佐藤',
  '花子',
  'Yamada',
  'Taro',
  'Hanako',
  'Sato',
  'yamada.taro',
  'taro.yamada',
  'hanako.sato',
  'sato.hanako',
  '@example',
  '090-1234-5678',
  '03-1234-5678',
  '90-1234-5678',
  '1234-5678',
  'EMP-00123',
  '5b10a2844c20165700ede21g',
];

describe('personal data', () => {
  it.each(GOLDEN)('leaves none in the documents, sidecars or report of $name', async (golden) => {
    const out = temporaryDirectory();
    const report = await runImport({
      source: golden.source,
      outDir: out,
      ...golden.options,
      comments: 'all',
    });
    const written = Object.entries(ticketFilesOf(out));
    const reportText = JSON.stringify(report);
    for (const term of PERSONAL) {
      for (const [name, text] of written) {
        expect(text.includes(term), `${term} in ${name}`).toBe(false);
      }
      expect(reportText.includes(term), `${term} in the report`).toBe(false);
    }
  });
});
