import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TICKET_CATEGORIES } from '../../functions/contract/knowledge.js';
import { authorHash, renderTicketDocuments } from '../../functions/knowledge/ticket-document.js';
import { loadTicketDocuments } from '../../local/bedrock/knowledge-base-data-source.js';

/** A published ticket is written in exactly the format of the imported ones. */

const source = {
  conversationId: '01JCONVERSATION000000000000',
  inquiryId: '01JINQUIRY00000000000000000',
  author: { tenantId: 'default', userId: 'alice' },
  publishedAt: new Date('2026-12-01T09:30:00Z'),
};

const headingsOf = (markdown: string) =>
  markdown
    .split('\n')
    .filter((line) => /^(#|- [^:]+:)/.test(line))
    .map((line) => line.replace(/:.*$/, ':').replace(/^# .*/, '#'));

describe('ticket documents', () => {
  it('renders a Japanese draft with the headings and facts of a Japanese seed ticket', async () => {
    const files = renderTicketDocuments(
      '900001',
      {
        subject: 'プリンターで印刷できない',
        category: 'Printer',
        inquiry: '印刷ジョブが止まる。',
        resolution: ['スプーラーを再起動', 'ドライバーを更新\n再起動後に確認'],
        restricted: false,
      },
      source,
    );
    const seed = await readFile('data/tickets/1001.md', 'utf8');
    expect(headingsOf(files.document)).toEqual(headingsOf(seed));
    expect(files.document).toContain('- チケット番号: 900001\n');
    expect(files.document).toContain('- 起票日: 2026-12-01\n');
    expect(files.document).toContain(
      '1. スプーラーを再起動\n2. ドライバーを更新\n   再起動後に確認\n',
    );
  });

  it('renders an English draft with the English seed headings', async () => {
    const files = renderTicketDocuments(
      '900002',
      {
        subject: 'Cannot print',
        category: 'Printer',
        inquiry: 'Jobs stay in the queue.',
        resolution: ['Restart the spooler'],
        restricted: true,
      },
      source,
    );
    const seed = await readFile('data/tickets/1011.md', 'utf8');
    expect(headingsOf(files.document)).toEqual(headingsOf(seed));
    expect(files.documentName).toBe('900002.md');
    expect(files.sidecarName).toBe('900002.md.metadata.json');
  });

  it('carries the seed metadata keys plus the source, never the user id', async () => {
    const files = renderTicketDocuments(
      '900003',
      { subject: 'S', category: 'VPN', inquiry: 'I', resolution: ['R'], restricted: true },
      source,
    );
    const sidecar = JSON.parse(files.sidecar).metadataAttributes;
    const seedKeys = Object.keys(
      JSON.parse(await readFile('data/tickets/1001.md.metadata.json', 'utf8')).metadataAttributes,
    );
    for (const key of seedKeys) expect(sidecar).toHaveProperty(key);
    expect(sidecar).toMatchObject({
      issue_id: '900003',
      restricted: true,
      status: 'resolved',
      created_at: '2026-12-01',
      source: 'knowledge-capture',
      source_conversation_id: source.conversationId,
      source_inquiry_id: source.inquiryId,
      author_hash: authorHash(source.author),
      published_at: '2026-12-01T09:30:00.000Z',
    });
    expect(files.sidecar).not.toContain('alice');
    expect(authorHash(source.author)).not.toBe(authorHash({ tenantId: 'default', userId: 'bob' }));
  });

  it('is read back by the local Knowledge Base loader with its metadata', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'ticket-document-'));
    try {
      const files = renderTicketDocuments(
        '900004',
        { subject: 'S', category: 'SSO', inquiry: 'I', resolution: ['R'], restricted: false },
        source,
      );
      await writeFile(join(directory, files.documentName), files.document);
      await writeFile(join(directory, files.sidecarName), files.sidecar);
      const [loaded] = await loadTicketDocuments(directory);
      expect(loaded?.metadata).toMatchObject({
        issue_id: '900004',
        category: 'SSO',
        restricted: false,
      });
    } finally {
      await rm(directory, { recursive: true });
    }
  });
});

describe('ticket categories', () => {
  it('are exactly the categories of data/tickets', async () => {
    const found = new Set<string>();
    for (const name of await readdir('data/tickets')) {
      if (!name.endsWith('.metadata.json')) continue;
      const metadata = JSON.parse(await readFile(join('data/tickets', name), 'utf8'));
      found.add(metadata.metadataAttributes.category);
    }
    expect([...found].sort()).toEqual([...TICKET_CATEGORIES].sort());
  });
});
