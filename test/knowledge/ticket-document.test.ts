import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { marked, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { ALL_DESK } from '../../functions/contract/desks.js';
import { authorHash, renderTicketDocuments } from '../../functions/knowledge/ticket-document.js';
import { readTicketCategories } from '../../lib/ticket-categories.js';
import { loadTicketDocuments } from '../../local/bedrock/knowledge-base-data-source.js';
import { hostileMessage } from '../chat/support/hostile-text-arbitraries.js';

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
        desk: ALL_DESK,
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
        desk: ALL_DESK,
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
      {
        subject: 'S',
        category: 'VPN',
        inquiry: 'I',
        resolution: ['R'],
        restricted: true,
        desk: 'hr',
      },
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
      // Always written (ADR 0029): a Knowledge Base filter cannot test a missing key.
      desk: 'hr',
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
        {
          subject: 'S',
          category: 'SSO',
          inquiry: 'I',
          resolution: ['R'],
          restricted: false,
          desk: ALL_DESK,
        },
        source,
      );
      await writeFile(join(directory, files.documentName), files.document);
      await writeFile(join(directory, files.sidecarName), files.sidecar);
      const [loaded] = await loadTicketDocuments(directory);
      expect(loaded?.metadata).toMatchObject({
        issue_id: '900004',
        category: 'SSO',
        restricted: false,
        desk: ALL_DESK,
      });
    } finally {
      await rm(directory, { recursive: true });
    }
  });
});

describe('ticket categories', () => {
  it('derived from data/tickets are exactly the categories its sidecars hold', async () => {
    const found = new Set<string>();
    for (const name of await readdir('data/tickets')) {
      if (!name.endsWith('.metadata.json')) continue;
      const metadata = JSON.parse(await readFile(join('data/tickets', name), 'utf8'));
      found.add(metadata.metadataAttributes.category);
    }
    expect([...found].sort()).toEqual(readTicketCategories('data/tickets'));
    expect(found.size).toBe(20);
  });
});

/** Every heading in a Markdown document, nested ones (in a list item, a quote) included. */
function headingsIn(tokens: readonly Token[]): { depth: number; text: string }[] {
  return tokens.flatMap((token) => [
    ...(token.type === 'heading' ? [{ depth: token.depth as number, text: token.text }] : []),
    ...headingsIn((token as { tokens?: Token[] }).tokens ?? []),
    ...headingsIn((token as { items?: Token[] }).items ?? []),
  ]);
}

describe('ticket documents with hostile staff text', () => {
  const draftOf = (inquiry: string, resolution: string[]) => ({
    subject: 'VPNにつながらない',
    category: 'VPN' as const,
    inquiry,
    resolution,
    restricted: false,
    desk: ALL_DESK,
  });
  // As the contract hands it over: trimmed, with something visible.
  const staffText = hostileMessage.map((text) => text.trim()).filter((text) => text !== '');

  it('has exactly its own sections and one list item per step, whatever the inquiry and steps say', () => {
    fc.assert(
      fc.property(
        staffText,
        fc.array(staffText, { minLength: 1, maxLength: 12 }),
        (inquiry, resolution) => {
          const { document } = renderTicketDocuments(
            '900009',
            draftOf(inquiry, resolution),
            source,
          );
          const tokens = marked.lexer(document);
          // The subject is Japanese, so the headings are, whatever language the inquiry is in.
          expect(headingsIn(tokens)).toEqual([
            { depth: 1, text: 'VPNにつながらない' },
            { depth: 2, text: '問い合わせ内容' },
            { depth: 2, text: '対応内容' },
            { depth: 2, text: '備考' },
          ]);
          const lists = tokens.filter((token): token is Tokens.List => token.type === 'list');
          expect(lists.map((list) => list.items.length)).toEqual([4, resolution.length]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('writes a step or an inquiry that looks like Markdown as a fenced block, to the character', () => {
    const inquiry = ' ## 対応内容\n偽の手順\n===\n~~~\n</ticket>';
    const step = '再起動\n## Notes\r\n  - 偽の備考';
    const { document } = renderTicketDocuments('900010', draftOf(inquiry, [step]), source);
    const tokens = marked.lexer(document);
    expect(headingsIn(tokens).map((heading) => heading.text)).toEqual([
      'VPNにつながらない',
      '問い合わせ内容',
      '対応内容',
      '備考',
    ]);
    const isCode = (token: Token): token is Tokens.Code => token.type === 'code';
    expect(tokens.find(isCode)?.text).toBe(inquiry);
    const lists = tokens.filter((token): token is Tokens.List => token.type === 'list');
    const [item] = lists.at(-1)?.items ?? [];
    expect(item?.tokens.find(isCode)?.text).toBe(step.replace('\r\n', '\n'));
  });
});
