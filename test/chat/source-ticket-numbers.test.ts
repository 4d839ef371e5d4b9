import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findUnverifiedReferences, groundTicket } from '../../functions/chat/generate.js';
import { parseTicketReferences } from '../../functions/chat/inquiry-rules.js';
import {
  canonicalIssueId,
  findTicketReferences,
  formatIssueId,
  issueIdKind,
  issueIdLookupKeys,
  NOT_JIRA_PROJECT_KEYS,
  resolveIssueId,
  sourceTicketId,
} from '../../functions/contract/ticket-references.js';
import {
  issueIdOfDocumentName,
  ticketDocumentNames,
} from '../../functions/knowledge/ticket-document.js';
import { harness, named, results, scriptedModel, ticket } from '../support/chat-core-harness.js';

/**
 * Ticket numbers as the source writes them (ADR 0020): every form found in free text in half and
 * full width with Japanese around it, none where there is no ticket (dates, phone numbers,
 * versions, prices), one canonical id per ticket and no collision across sources.
 */

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** ASCII as its full-width form (`A` → `Ａ`, `#` → `＃`, space → ideographic space). */
const fullWidth = (character: string) =>
  character === ' '
    ? '\u3000'
    : /[!-~]/.test(character)
      ? String.fromCharCode(character.charCodeAt(0) + 0xfee0)
      : character;

/** `text` with each character in half or full width, as `widths` says (cycled). */
const withWidths = (text: string, widths: readonly boolean[]) =>
  Array.from(text, (character, index) =>
    widths[index % widths.length] ? fullWidth(character) : character,
  ).join('');

const widths = fc.array(fc.boolean(), { minLength: 1, maxLength: 16 });

/** Japanese around a reference: no letters, digits, `#` or words that are prefixes themselves. */
const japanese = fc.constantFrom(
  '',
  'さっきの',
  'について詳しく',
  'の件、',
  '。',
  'と同じ症状です',
  '（参照）',
  '「',
  '」を見てください',
  '前回は',
  '\n',
  ' ',
);

const jiraKey = fc
  .tuple(
    fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'),
    fc.array(fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'), {
      minLength: 1,
      maxLength: 9,
    }),
  )
  .map(([first, rest]) => first + rest.join(''))
  .filter((key) => !NOT_JIRA_PROJECT_KEYS.has(key));

const positive = (max: number) => fc.integer({ min: 1, max });

/** A ticket of some source: its canonical id and the ways staff write it in a sentence. */
const writtenTicket: fc.Arbitrary<{ issueId: string; written: string }> = fc.oneof(
  // The app's own numbers, 3–8 digits in free text (leading zeros allowed and dropped).
  fc
    .tuple(
      fc.integer({ min: 100, max: 99_999_999 }),
      fc.nat({ max: 4 }),
      fc.constantFrom(
        '#',
        'チケット',
        'チケット番号：#',
        'チケット ',
        'ticket ',
        'Ticket No. ',
        'ﾁｹｯﾄ',
      ),
    )
    .map(([number, zeros, prefix]) => {
      const digits = `${'0'.repeat(zeros)}${number}`.slice(-Math.max(String(number).length, 8));
      return { issueId: String(number), written: `${prefix}${digits}` };
    }),
  // ServiceNow: a ticket table's prefix and seven zero-padded digits, in either case.
  fc
    .tuple(
      fc.constantFrom('INC', 'RITM', 'REQ', 'SCTASK', 'TASK', 'CHG', 'PRB'),
      positive(9_999_999),
      fc.boolean(),
    )
    .map(([prefix, number, lower]) => {
      const issueId = `${prefix}${String(number).padStart(7, '0')}`;
      return { issueId, written: lower ? issueId.toLowerCase() : issueId };
    }),
  // ServiceNow tables with other prefixes, in their default width.
  fc
    .tuple(fc.constantFrom('HRC', 'CS', 'SIR', 'WO', 'IDEA'), fc.integer({ min: 1, max: 999_999 }))
    .map(([prefix, number]) => {
      const issueId = `${prefix}${String(number).padStart(7, '0')}`;
      return { issueId, written: issueId };
    }),
  // Jira: project key, hyphen, number.
  fc
    .tuple(jiraKey, positive(999_999))
    .map(([key, number]) => ({ issueId: `${key}-${number}`, written: `${key}-${number}` })),
  // Zendesk, source-qualified.
  fc
    .tuple(
      positive(99_999_999),
      fc.constantFrom('ZD#', 'zd#', 'Zendesk #', 'zendesk ', 'Zendesk ticket #'),
    )
    .map(([number, prefix]) => ({ issueId: `ZD#${number}`, written: `${prefix}${number}` })),
);

// ---------------------------------------------------------------------------------------------

describe('findTicketReferences', () => {
  it('finds every form in half and full width with Japanese around it', () => {
    fc.assert(
      fc.property(writtenTicket, widths, japanese, japanese, (ticket, width, before, after) => {
        const written = withWidths(ticket.written, width);
        const text = `${before}${written}${after}`;
        const references = findTicketReferences(text);
        expect(references.map((reference) => reference.issueId)).toEqual([ticket.issueId]);
        expect(text.slice(references[0]?.start, references[0]?.end)).toBe(written);
      }),
      { numRuns: 2000 },
    );
  });

  it('finds several tickets of several sources in one sentence, each once and in order', () => {
    fc.assert(
      fc.property(
        fc.array(writtenTicket, { minLength: 1, maxLength: 5 }),
        widths,
        (tickets, width) => {
          const text = tickets.map((ticket) => withWidths(ticket.written, width)).join('、それと');
          expect(findTicketReferences(text).map((reference) => reference.issueId)).toEqual(
            tickets.map((ticket) => ticket.issueId),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  const year = fc.integer({ min: 1990, max: 2099 });
  const month = fc.integer({ min: 1, max: 12 });
  const day = fc.integer({ min: 1, max: 31 });
  const pad = (value: number) => String(value).padStart(2, '0');
  const digits = (length: number) =>
    fc
      .array(fc.constantFrom(...'0123456789'), { minLength: length, maxLength: length })
      .map((d) => d.join(''));
  const notATicket = fc.oneof(
    // Dates.
    fc.tuple(year, month, day).map(([y, m, d]) => `${y}-${pad(m)}-${pad(d)}`),
    fc.tuple(year, month, day).map(([y, m, d]) => `${y}/${m}/${d}`),
    fc.tuple(year, month, day).map(([y, m, d]) => `${y}年${m}月${d}日`),
    fc.tuple(year, month).map(([y, m]) => `${y}.${pad(m)}`),
    fc.tuple(month, day).map(([m, d]) => `R7-${m}-${d}`),
    // Phone numbers: landline, mobile, toll-free, +81, extensions, with and without separators.
    fc.tuple(digits(4), digits(4)).map(([a, b]) => `03-${a}-${b}`),
    fc.tuple(digits(4), digits(4)).map(([a, b]) => `090-${a}-${b}`),
    fc.tuple(digits(4), digits(4)).map(([a, b]) => `+81-90-${a}-${b}`),
    fc.tuple(digits(4), digits(4)).map(([a, b]) => `+81 3 ${a} ${b}`),
    fc.tuple(digits(3), digits(3)).map(([a, b]) => `0120-${a}-${b}`),
    digits(10).map((d) => `TEL 0${d.slice(1)}`),
    digits(10).map((d) => `TEL-0${d.slice(1)}`),
    fc.tuple(digits(2), digits(4), digits(4)).map(([a, b, c]) => `FAX-${a}-${b}-${c}`),
    digits(4).map((d) => `内線${d}`),
    digits(4).map((d) => `ext. ${d}`),
    // Versions and standards.
    fc.tuple(positive(30), positive(30), positive(30)).map(([a, b, c]) => `v${a}.${b}.${c}`),
    fc.tuple(positive(30), positive(9)).map(([a, b]) => `TLS-${a}.${b}`),
    fc.tuple(positive(30), positive(9)).map(([a, b]) => `iOS ${a}.${b}`),
    fc.constantFrom('Windows 10', 'Windows 11 23H2', 'Office 2019', 'SHA-256', 'UTF-8', 'AES-256'),
    fc.constantFrom('ISO-27001', 'RFC-5322', 'COVID-19', 'IPv6', 'KB5034441', 'Python 3.12'),
    fc.tuple(positive(200), positive(9999)).map(([a, b]) => `Chrome ${a}.0.${b}.130`),
    // Prices.
    positive(9_999_999).map((price) => `¥${price.toLocaleString('en-US')}`),
    positive(9_999_999).map((price) => `${price.toLocaleString('en-US')}円`),
    positive(9_999_999).map((price) => `${price}円`),
    positive(999_999).map((price) => `$${price}`),
    positive(999_999).map((price) => `USD ${price}`),
    positive(999_999).map((price) => `USD${price}`),
    positive(999_999).map((price) => `JPY${price}`),
    positive(999_999).map((price) => `税込${price}円`),
    // Short numbers, ports and bare numbers.
    fc.integer({ min: 0, max: 99 }).map((n) => `#${n}`),
    positive(65_535).map((port) => `ポート ${port}`),
    positive(99_999_999).map((n) => String(n)),
  );

  it('finds nothing in dates, phone numbers, versions and prices, whatever their width', () => {
    fc.assert(
      fc.property(notATicket, widths, japanese, japanese, (value, width, before, after) => {
        const text = `${before}${withWidths(value, width)}${after}`;
        expect(findTicketReferences(text)).toEqual([]);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps INC0012345 and RITM0012345 two tickets, and ITSD-123 and ZD#123 apart from 123', () => {
    expect(
      parseTicketReferences('INC0012345 と RITM0012345、ITSD-123、ZD#123、#123 を比較'),
    ).toEqual(['INC0012345', 'RITM0012345', 'ITSD-123', 'ZD#123', '123']);
  });
});

describe('canonicalIssueId', () => {
  it('reads each written form, alone in a field, as the canonical id, and keeps canonical ids as they are', () => {
    fc.assert(
      fc.property(writtenTicket, widths, (ticket, width) => {
        expect(canonicalIssueId(` ${withWidths(ticket.written, width)} `)).toBe(ticket.issueId);
        expect(canonicalIssueId(ticket.issueId)).toBe(ticket.issueId);
        expect(issueIdKind(ticket.issueId)).toBeDefined();
      }),
      { numRuns: 1000 },
    );
  });

  it.each<[unknown, string]>([
    ['inc0012345', 'INC0012345'],
    ['ＲＩＴＭ００１２３４５', 'RITM0012345'],
    ['itsd-0123', 'ITSD-123'],
    ['ＩＴＳＤ－１２３', 'ITSD-123'],
    ['MY_PROJ-7', 'MY_PROJ-7'],
    ['ZD#35436', 'ZD#35436'],
    ['Zendesk #35436', 'ZD#35436'],
    ['CUSTOM0000042', 'CUSTOM0000042'],
  ])('reads %j as %s', (value, expected) => {
    expect(canonicalIssueId(value)).toBe(expected);
  });

  it.each<unknown>([
    'ITSD-0',
    'ITSD-',
    '-123',
    'ZD#0',
    'INC 0012345 RITM0012345',
    'ITSD-12-3',
    'A1',
  ])('rejects %j', (value) => {
    expect(canonicalIssueId(value)).toBeUndefined();
  });
});

describe('sourceTicketId', () => {
  it.each<[Parameters<typeof sourceTicketId>[0], string | number, string]>([
    ['servicenow', 'INC0012345', 'INC0012345'],
    ['servicenow', 'RITM0012345', 'RITM0012345'],
    ['jira', 'ITSD-123', 'ITSD-123'],
    ['zendesk', 35436, 'ZD#35436'],
    ['zendesk', '35436', 'ZD#35436'],
    ['csv', '1001', '1001'],
    ['csv', 'inc0000001', 'INC0000001'],
  ])('%s %j → %s', (source, raw, expected) => {
    expect(sourceTicketId(source, raw)).toBe(expected);
  });

  it.each<[Parameters<typeof sourceTicketId>[0], string]>([
    ['servicenow', 'ITSD-123'],
    ['jira', 'INC0012345'],
    ['zendesk', 'ITSD-123'],
    ['zendesk', '0'],
    ['csv', 'see #12'],
  ])('refuses %s %j, naming the value', (source, raw) => {
    expect(() => sourceTicketId(source, raw)).toThrow(JSON.stringify(raw));
  });
});

describe('resolving a reference among the retrieved tickets', () => {
  const retrieved = new Set(['1001', 'INC0012345', 'ITSD-123', 'ZD#35436']);

  it('grounds a card that names its ticket in any form, and none that names another source', () => {
    const card = (issue_id: string) => ({ issue_id, subject: 's', summary: 'm', resolution: 'r' });
    expect(groundTicket(card('inc0012345'), retrieved)?.issue_id).toBe('INC0012345');
    expect(groundTicket(card('#35436'), retrieved)?.issue_id).toBe('ZD#35436');
    expect(groundTicket(card('ZD#35436'), retrieved)?.issue_id).toBe('ZD#35436');
    expect(groundTicket(card('1001'), retrieved)?.issue_id).toBe('1001');
    expect(groundTicket(card('RITM0012345'), retrieved)).toBeUndefined();
    expect(groundTicket(card('12345'), retrieved)).toBeUndefined();
    expect(groundTicket(card('123'), retrieved)).toBeUndefined();
    expect(groundTicket(card('ITSD-1001'), retrieved)).toBeUndefined();
  });

  it('flags the references of the advice that name no retrieved ticket', () => {
    expect(
      findUnverifiedReferences(
        {
          general_advice: 'INC0012345 と #35436、ITSD-123 を参照。RITM0012345 と ITSD-124 は別件。',
          mail_draft: 'チケット1001 と 123',
        },
        retrieved,
      ),
    ).toEqual(['RITM0012345', 'ITSD-124']);
  });

  it('prefers the app ticket over the Zendesk one with the same number', () => {
    expect(resolveIssueId('35436', new Set(['35436', 'ZD#35436']))).toBe('35436');
    expect(issueIdLookupKeys('35436')).toEqual(['35436', 'ZD#35436']);
    expect(issueIdLookupKeys('INC0012345')).toEqual(['INC0012345']);
  });
});

describe('formatIssueId', () => {
  it.each([
    ['1001', '#1001'],
    ['ZD#35436', '#35436'],
    ['INC0012345', 'INC0012345'],
    ['ITSD-123', 'ITSD-123'],
  ])('shows %s as %s, which reads back as the same ticket', (issueId, shown) => {
    expect(formatIssueId(issueId)).toBe(shown);
    expect(resolveIssueId(canonicalIssueId(shown) ?? '', new Set([issueId]))).toBe(issueId);
  });
});

describe('ticketDocumentNames', () => {
  it('gives every canonical id its own safe file name, even on a case-insensitive file system', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          writtenTicket.map((ticket) => ticket.issueId),
          { maxLength: 30 },
        ),
        (ids) => {
          const names = ids.map((issueId) => ticketDocumentNames(issueId).documentName);
          for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]+\.md$/);
          expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(ids.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses an id that is not canonical', () => {
    expect(() => ticketDocumentNames('../1001')).toThrow('not in canonical form');
    expect(() => ticketDocumentNames('inc0012345')).toThrow('not in canonical form');
  });
});

describe('issueIdOfDocumentName', () => {
  it('maps every document name back to the canonical id it was written for', () => {
    fc.assert(
      fc.property(
        writtenTicket.map((ticket) => ticket.issueId),
        fc.constantFrom('', 'tickets/', 'tickets/published/', 's3://bucket/tickets/'),
        (issueId, prefix) => {
          const { documentName, sidecarName } = ticketDocumentNames(issueId);
          expect(issueIdOfDocumentName(`${prefix}${documentName}`)).toBe(issueId);
          expect(issueIdOfDocumentName(`${prefix}${sidecarName}`)).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    ['ZD_35436.md', 'ZD#35436'],
    ['IT_OPS-12.md', 'IT_OPS-12'],
    ['INC0012345.md', 'INC0012345'],
    ['1001.md', '1001'],
  ])('reads %s as %s', (name, issueId) => {
    expect(issueIdOfDocumentName(name)).toBe(issueId);
  });

  it.each([
    'README.md',
    '0123.md',
    'inc0012345.md',
    'ZD_0.md',
    'ZD_35436_1.md',
    '1001.md.metadata.json',
    '1001.txt',
    '1001',
    '.md',
    'tickets/',
  ])('reads %s as no ticket', (name) => {
    expect(issueIdOfDocumentName(name)).toBeUndefined();
  });
});

describe('the sample tickets', () => {
  const directory = join(import.meta.dirname, '../../data/tickets');
  const sidecars = readdirSync(directory).filter((name) => name.endsWith('.md.metadata.json'));

  it('still resolve: canonical ids, their file names, found when staff write them', () => {
    expect(sidecars).toHaveLength(171);
    for (const sidecar of sidecars) {
      const { metadataAttributes } = JSON.parse(readFileSync(join(directory, sidecar), 'utf8'));
      const issueId: string = metadataAttributes.issue_id;
      expect(canonicalIssueId(issueId)).toBe(issueId);
      expect(ticketDocumentNames(issueId).sidecarName).toBe(sidecar);
      expect(issueIdOfDocumentName(ticketDocumentNames(issueId).documentName)).toBe(issueId);
      expect(parseTicketReferences(`チケット＃${issueId}の手順`)).toEqual([issueId]);
      expect(parseTicketReferences(`see ${formatIssueId(issueId)}.`)).toEqual([issueId]);
    }
  });
});

describe('an answer over imported tickets, in process', () => {
  const imported = [
    ticket('INC0012345', 'VPN に接続できない'),
    ticket('RITM0012345', 'VPN アカウント申請', { score: 0.6 }),
    ticket('ITSD-123', 'プリンター設定', { score: 0.5 }),
    ticket('ZD#35436', 'Wi-Fi 切断', { score: 0.4 }),
  ];

  it('fetches the tickets the inquiry names and cites them by their source numbers', async () => {
    const { model } = scriptedModel({
      kind: 'answer',
      answer: results('INC0012345 と #35436 の手順です。', [
        'inc0012345',
        '#35436',
        'ITSD-123',
        '123',
      ]),
    });
    const { chat, kb } = harness({ model, tickets: imported });
    const { events } = await chat('ｉｎｃ００１２３４５ と #35436、ITSD-123 と同じ症状です');

    expect(kb.fetched).toEqual([['INC0012345', '35436', 'ZD#35436', 'ITSD-123']]);
    const cards = named(events, 'ticket').map((event) => event.data.issue_id);
    // `123` names no retrieved ticket: ITSD-123 is not 123.
    expect(cards).toEqual(['INC0012345', 'ZD#35436', 'ITSD-123']);
    const result = named(events, 'result')[0]?.data;
    expect(result?.results?.map((card) => card.issue_id)).toEqual(cards);
    expect(result?.unverified_references ?? []).toEqual([]);
    expect(cards.map(formatIssueId)).toEqual(['INC0012345', '#35436', 'ITSD-123']);
  });
});
