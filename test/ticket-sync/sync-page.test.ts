import { describe, expect, it } from 'vitest';
import type { ImportedRecord } from '../../functions/ticket-import/imported-ticket.js';
import { rateLimitWait } from '../../functions/ticket-sync/source-http.js';
import {
  positionAfter,
  startPosition,
} from '../../functions/ticket-sync/sources/keyset-position.js';
import { initialCursor, windowStartOf } from '../../functions/ticket-sync/sync-cursor.js';
import { syncPage } from '../../functions/ticket-sync/sync-page.js';
import type { StoredTickets } from '../../functions/ticket-sync/ticket-document-store.js';

const record = (
  number: string,
  resolution: string,
  overrides: Partial<ImportedRecord> = {},
): ImportedRecord => ({
  number,
  subject: `Subject ${number}`,
  inquiry: 'The printer on floor 3 does not print.',
  resolution: [resolution],
  category: 'hardware',
  resolved: true,
  duplicate: false,
  people: [],
  fields: {},
  ...overrides,
});

const nothingStored: StoredTickets = { hashes: new Map(), isTakenByAnother: () => false };
const settings = { system: 'servicenow' as const, rules: [] };

describe('syncPage', () => {
  it('writes a record listed twice in a page once, at its latest change', () => {
    const outcome = syncPage(
      {
        records: [
          {
            sourceId: 'a',
            updatedAt: '2024-03-01T08:00:00.000Z',
            record: record('INC0000001', 'First fix.'),
          },
          {
            sourceId: 'a',
            updatedAt: '2024-03-01T08:05:00.000Z',
            record: record('INC0000001', 'Second fix.'),
          },
        ],
      },
      nothingStored,
      settings,
    );
    expect(outcome.changes.written).toHaveLength(1);
    expect(outcome.changes.written[0]?.document).toContain('Second fix.');
    expect(outcome.counts.added).toBe(1);
  });

  it('does not write what it already wrote (same content hash), and rewrites what changed', () => {
    const first = syncPage(
      {
        records: [
          {
            sourceId: 'a',
            updatedAt: '2024-03-01T08:00:00.000Z',
            record: record('INC0000001', 'Fix.'),
          },
        ],
      },
      nothingStored,
      settings,
    );
    const written = first.changes.written[0];
    const stored: StoredTickets = {
      hashes: new Map([['INC0000001', written?.hash ?? '']]),
      isTakenByAnother: () => false,
    };
    const again = syncPage(
      {
        records: [
          {
            sourceId: 'a',
            updatedAt: '2024-03-01T08:00:00.000Z',
            record: record('INC0000001', 'Fix.'),
          },
        ],
      },
      stored,
      settings,
    );
    expect(again.changes.written).toEqual([]);
    expect(again.counts.unchanged).toBe(1);
    const changed = syncPage(
      {
        records: [
          {
            sourceId: 'a',
            updatedAt: '2024-03-02T08:00:00.000Z',
            record: record('INC0000001', 'Better fix.'),
          },
        ],
      },
      stored,
      settings,
    );
    expect(changed.counts.changed).toBe(1);
  });

  it('removes the document of a reopened, merged or deleted ticket, and only one it wrote', () => {
    const stored: StoredTickets = {
      hashes: new Map([
        ['INC0000001', 'h1'],
        ['INC0000002', 'h2'],
        ['INC0000003', 'h3'],
      ]),
      isTakenByAnother: () => false,
    };
    const outcome = syncPage(
      {
        records: [
          {
            sourceId: 'a',
            updatedAt: '2024-03-01T08:00:00.000Z',
            record: record('INC0000001', 'x', { resolved: false }),
          },
          {
            sourceId: 'b',
            updatedAt: '2024-03-01T08:00:00.000Z',
            record: record('INC0000002', 'x', { duplicate: true }),
          },
          {
            sourceId: 'c',
            updatedAt: '2024-03-01T08:00:00.000Z',
            record: record('INC0000009', 'x', { resolved: false }),
          },
        ],
        deletedNumbers: ['INC0000003', 'INC0000404'],
      },
      stored,
      settings,
    );
    expect([...outcome.changes.removed].sort()).toEqual(['INC0000001', 'INC0000002', 'INC0000003']);
    expect(outcome.counts.skipped).toMatchObject({ notResolved: 2, duplicate: 1 });
  });

  it('reports a malformed record by its source id, without its text, and skips it', () => {
    const outcome = syncPage(
      {
        records: [
          { sourceId: 'sys-1', updatedAt: '2024-03-01T08:00:00.000Z', malformed: 'has no number' },
          {
            sourceId: 'sys-2',
            updatedAt: '2024-03-01T08:00:00.000Z',
            record: record('not a number ✗ 山田', 'x'),
          },
        ],
      },
      nothingStored,
      settings,
    );
    expect(outcome.counts.skipped.malformed).toBe(2);
    expect(outcome.malformed.map((item) => item.sourceId)).toEqual(['sys-1', 'sys-2']);
    expect(JSON.stringify(outcome.malformed)).not.toContain('山田');
    expect(outcome.changes.written).toEqual([]);
    expect(outcome.newestChange).toBe('2024-03-01T08:00:00.000Z');
  });

  it('counts personal data replaced by type', () => {
    const outcome = syncPage(
      {
        records: [
          {
            sourceId: 'a',
            updatedAt: '2024-03-01T08:00:00.000Z',
            record: record(
              'INC0000001',
              'Called back on 090-1234-5678 and mailed taro@example.com.',
            ),
          },
        ],
      },
      nothingStored,
      settings,
    );
    expect(outcome.counts.scrubbed).toMatchObject({ phone: 1, email: 1 });
    expect(outcome.changes.written[0]?.document).not.toContain('090-1234-5678');
  });
});

describe('the cursor window and keyset paging', () => {
  it('starts a run the overlap before the last change written, so a skewed clock cannot skip a record', () => {
    const cursor = { ...initialCursor({}), updatedSince: '2024-03-01T08:00:00.000Z' };
    expect(windowStartOf(cursor).toISOString()).toBe('2024-03-01T07:55:00.000Z');
    expect(startPosition(cursor)).toEqual({ part: 0, after: '2024-03-01T07:55:00.000Z', skip: 0 });
  });

  it('starts the next page at the last change read, skipping those of that instant already read', () => {
    const start = { part: 0, after: '2024-03-01T07:55:00.000Z', skip: 0 };
    const next = positionAfter(
      start,
      ['2024-03-01T07:58:00.000Z', '2024-03-01T08:00:00.000Z', '2024-03-01T08:00:00.000Z'],
      true,
    );
    expect(next).toEqual({
      part: 0,
      after: '2024-03-01T08:00:00.000Z',
      skip: 2,
      newest: '2024-03-01T08:00:00.000Z',
    });
    // A whole page on that one instant: page within it.
    const within = positionAfter(
      next as NonNullable<typeof next>,
      Array(3).fill('2024-03-01T08:00:00.000Z'),
      true,
      'token',
    );
    expect(within).toMatchObject({
      after: '2024-03-01T08:00:00.000Z',
      skip: 5,
      pageToken: 'token',
    });
    expect(positionAfter(start, ['2024-03-01T07:58:00.000Z'], false)).toBeUndefined();
  });
});

describe('rateLimitWait', () => {
  const now = Date.parse('2024-03-01T08:00:00Z');
  it('reads Retry-After in seconds or as a date, Jira’s X-RateLimit-Reset, and Zendesk’s ratelimit-reset', () => {
    expect(rateLimitWait(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(
      rateLimitWait(new Headers({ 'retry-after': 'Fri, 01 Mar 2024 08:00:05 GMT' }), now),
    ).toBe(5000);
    expect(rateLimitWait(new Headers({ 'x-ratelimit-reset': '2024-03-01T08:01:00Z' }), now)).toBe(
      60_000,
    );
    expect(rateLimitWait(new Headers({ 'ratelimit-reset': '7' }), now)).toBe(7000);
    expect(rateLimitWait(new Headers({}), now)).toBeUndefined();
  });
});
