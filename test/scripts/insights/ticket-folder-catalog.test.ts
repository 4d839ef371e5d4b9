import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ticketFolderIssueIds } from '../../../scripts/open-insights-store.js';

/** `npm run insights`' local ticket catalog: the documents the local Knowledge Base indexes. */
describe('ticketFolderIssueIds', () => {
  const served = mkdtempSync(join(tmpdir(), 'catalog-served-'));
  const published = mkdtempSync(join(tmpdir(), 'catalog-published-'));
  afterAll(() => {
    for (const folder of [served, published]) rmSync(folder, { recursive: true, force: true });
  });

  it('lists each ticket document with its sidecar, by issue id, over every folder', () => {
    const files: [string, string][] = [
      [served, '1001.md'],
      [served, '1001.md.metadata.json'],
      [served, '1002.md'], // no sidecar: not indexed
      [served, '1003.md.metadata.json'], // a sidecar alone: no document
      [served, 'README.md'],
      [served, 'README.md.metadata.json'], // indexed, but no ticket
      [published, 'ZD_35436.md'],
      [published, 'ZD_35436.md.metadata.json'],
      [published, '1001.md'],
      [published, '1001.md.metadata.json'], // the same ticket twice counts once
    ];
    for (const [folder, name] of files) writeFileSync(join(folder, name), '{}');
    expect(ticketFolderIssueIds([served, published, join(published, 'missing')])).toEqual([
      '1001',
      'ZD#35436',
    ]);
  });
});
