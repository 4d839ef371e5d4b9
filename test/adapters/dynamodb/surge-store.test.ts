import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbSurgeCounter } from '../../../functions/adapters/dynamodb/surge-store.js';
import type { SurgeCounter } from '../../../functions/surges/ports.js';
import { type SurgeMark, tallyOf, withInquiry } from '../../../functions/surges/surge-window.js';
import { createTestTables, type TestTables } from '../../support/dynamodb-test-tables.js';

/**
 * The surge counter's conditions on DynamoDB Local (ADR 0033): concurrent counts each see a
 * distinct state before theirs, and an item quiet for a window is cleaned rather than grown.
 */

const WINDOW = 60;
const scope = { tenantId: 'acme' };
// Now, on the hour: DynamoDB Local removes items whose TTL has passed, so a fixed date in the
// past would lose the items mid-test.
const start = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
const minutes = (count: number) => new Date(start.getTime() + count * 60_000);
const mark = (staff: string, at: Date): SurgeMark => ({
  topicKey: '*|vpn',
  label: 'vpn',
  staffHash: staff,
  inquiryHash: `q-${staff}-${at.getTime()}`,
  at,
});

let t: TestTables;
let documents: DynamoDBDocumentClient;
let counter: SurgeCounter;
beforeAll(async () => {
  t = await createTestTables('surges');
  documents = DynamoDBDocumentClient.from(t.client);
  counter = createDynamoDbSurgeCounter({ documents, tableName: t.tables.insights });
});
afterAll(() => t?.dispose());

describe('the DynamoDB surge counter', () => {
  it('gives each of 20 concurrent counts its own state before, so one crosses the threshold', async () => {
    const marks = Array.from({ length: 20 }, (_, index) => mark(`s${index}`, minutes(1)));
    const befores = await Promise.all(marks.map((m) => counter.countInquiry(scope, m, WINDOW)));
    const staffBefore = befores
      .map((state) => tallyOf(state, minutes(1), WINDOW).staff)
      .sort((a, b) => a - b);
    expect(staffBefore).toEqual(Array.from({ length: 20 }, (_, index) => index));
    const after = befores.map(
      (state, index) =>
        tallyOf(withInquiry(state, marks[index] as SurgeMark, WINDOW), minutes(1), WINDOW).staff,
    );
    expect(after.filter((staff) => staff === 3)).toHaveLength(1);
  });

  it('cleans an item quiet for over a window instead of keeping its slices', async () => {
    await counter.countInquiry(scope, { ...mark('a', minutes(0)), topicKey: '*|wifi' }, WINDOW);
    await counter.countInquiry(scope, { ...mark('b', minutes(20)), topicKey: '*|wifi' }, WINDOW);
    // Three hours later: the old slices are outside the window and must not linger.
    const before = await counter.countInquiry(
      scope,
      { ...mark('c', minutes(200)), topicKey: '*|wifi' },
      WINDOW,
    );
    expect(tallyOf(before, minutes(200), WINDOW).staff).toBe(0);
    const stored = await documents.send(
      new GetCommand({ TableName: t.tables.insights, Key: { pk: 'acme#surge', sk: '60#*|wifi' } }),
    );
    const sliceNames = Object.keys(stored.Item ?? {}).filter((name) => /^[qsfe]\d+$/.test(name));
    expect(sliceNames.sort()).toEqual(
      ['f', 'q', 's']
        .map((kind) => `${kind}${Math.floor(minutes(200).getTime() / 600_000)}`)
        .sort(),
    );
    const [topic] = (await counter.listTopics(scope, minutes(200), WINDOW)).filter(
      (state) => state.topicKey === '*|wifi',
    );
    expect(
      tallyOf(topic ?? { topicKey: '', label: '', slices: [] }, minutes(200), WINDOW),
    ).toMatchObject({
      inquiries: 1,
      staff: 1,
    });
  });
});
