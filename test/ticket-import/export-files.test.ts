import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createCsvRowParser,
  ExportFileError,
  JsonPageError,
  JsonPageSplitter,
  readCsvRecords,
  readJsonPageRecords,
} from '../../functions/ticket-import/export-files.js';

const directory = mkdtempSync(join(tmpdir(), 'export-files-test-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const result: T[] = [];
  for await (const item of items) result.push(item);
  return result;
}

/** RFC 4180 writing: quote every field, double the quotes. */
const toCsv = (rows: readonly (readonly string[])[], lineEnd: string) =>
  rows
    .map((row) => row.map((field) => `"${field.replaceAll('"', '""')}"`).join(','))
    .join(lineEnd) + lineEnd;

describe('createCsvRowParser', () => {
  it('reads quoted commas, quotes and line breaks inside fields', () => {
    const parser = createCsvRowParser();
    const rows = parser.push('a,"b,c","say ""hi""","line 1\r\nline 2"\r\nx,,z\n');
    expect(rows).toEqual([
      ['a', 'b,c', 'say "hi"', 'line 1\r\nline 2'],
      ['x', '', 'z'],
    ]);
    expect(parser.end()).toBeUndefined();
  });

  it('returns the last row without a final line break, and flags an unclosed quote', () => {
    const parser = createCsvRowParser();
    expect(parser.push('a,b\nc,d')).toEqual([['a', 'b']]);
    expect(parser.end()).toEqual(['c', 'd']);
    const open = createCsvRowParser();
    open.push('a,"never closed\n');
    expect(open.end()).toBe('unterminated');
  });

  it('reads back any rows, however the text is cut into pieces (property)', () => {
    const field = fc.string({ unit: fc.constantFrom('a', 'あ', ',', '"', '\n', '\r\n', ' ', '1') });
    fc.assert(
      fc.property(
        fc.array(fc.array(field, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 8 }),
        fc.constantFrom('\n', '\r\n'),
        fc.array(fc.nat(), { maxLength: 6 }),
        (rows, lineEnd, cuts) => {
          const text = toCsv(rows, lineEnd);
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort(
            (a, b) => a - b,
          );
          const parser = createCsvRowParser();
          const parsed: string[][] = [];
          let start = 0;
          for (const point of [...points, text.length]) {
            parsed.push(...parser.push(text.slice(start, point)));
            start = point;
          }
          const last = parser.end();
          if (last && last !== 'unterminated') parsed.push(last);
          expect(parsed).toEqual(rows);
        },
      ),
    );
  });
});

describe('readCsvRecords', () => {
  it('keys rows by the header, drops the BOM, and reports a short row by its number', async () => {
    const file = join(directory, 'bom.csv');
    writeFileSync(
      file,
      '\uFEFF"number","short_description"\r\n"INC1","a"\r\n"INC2"\r\n"INC3","c"\r\n',
    );
    const records = await collect(readCsvRecords(file, 'utf-8'));
    expect(
      records.map((record) => ('malformed' in record ? record.malformed : record.value)),
    ).toEqual([
      { number: 'INC1', short_description: 'a' },
      'has 1 fields, the header has 2',
      { number: 'INC3', short_description: 'c' },
    ]);
    expect(records[1]?.recordNumber).toBe(2);
  });
});

/** Feeds `bytes` to a splitter cut at `cuts`; the listed elements, parsed, or the error thrown. */
function split(bytes: Buffer, cuts: readonly number[], listed: readonly string[]) {
  const splitter = new JsonPageSplitter(listed);
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const elements: [string, unknown][] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    for (const piece of splitter.push(bytes.subarray(from, point))) {
      elements.push([piece.listedUnder, JSON.parse(piece.text)]);
    }
    from = point;
  }
  splitter.end();
  return elements;
}

describe('JsonPageSplitter', () => {
  const page = fc.record(
    {
      before: fc.jsonValue(),
      result: fc.array(fc.jsonValue()),
      users: fc.array(fc.jsonValue()),
      after: fc.jsonValue(),
    },
    { requiredKeys: ['result'] },
  );

  it('hands out every element of the listed arrays, however the bytes are cut (property)', () => {
    fc.assert(
      fc.property(page, fc.array(fc.nat()), fc.boolean(), (value, cuts, indent) => {
        const bytes = Buffer.from(JSON.stringify(value, null, indent ? 2 : undefined));
        const expected = JSON.parse(bytes.toString()) as Record<string, unknown[]>;
        expect(split(bytes, cuts, ['result', 'users'])).toEqual(
          Object.entries(expected)
            .filter(([key]) => key === 'result' || key === 'users')
            .flatMap(([key, list]) => list.map((element) => [key, element])),
        );
      }),
    );
  });

  it('refuses a page cut short anywhere (property)', () => {
    fc.assert(
      fc.property(page, fc.nat(), fc.array(fc.nat()), (value, end, cuts) => {
        const bytes = Buffer.from(JSON.stringify(value));
        const prefix = bytes.subarray(0, end % bytes.length);
        expect(() => split(prefix, cuts, ['result'])).toThrow();
      }),
    );
  });

  it('refuses what is not one JSON object of listed arrays', () => {
    const attempt = (text: string) => () => split(Buffer.from(text), [], ['result']);
    expect(attempt('[{"result":[]}]')).toThrow(JsonPageError);
    expect(attempt('{"result":{"number":"INC1"}}')).toThrow(/"result" is not a list/);
    expect(attempt('{"result":[1,]}')).toThrow(/expected a value/);
    expect(attempt('{"result":[],}')).toThrow(/expected a key/);
    expect(attempt('{"result":[]} {}')).toThrow(/text after the page/);
    expect(attempt('{"total":1x,"result":[]}')).toThrow(JsonPageError);
    expect(attempt('{"result" []}')).toThrow(/expected ":"/);
    expect(attempt('')).toThrow(/empty file/);
    expect(split(Buffer.from('\uFEFF{"result":[{"a":"\\""}]}'), [], ['result'])).toEqual([
      ['result', { a: '"' }],
    ]);
  });
});

describe('readJsonPageRecords', () => {
  it('streams the elements of the named lists, counting each list on its own', async () => {
    const file = join(directory, 'page.json');
    writeFileSync(
      file,
      JSON.stringify({ tickets: [{ id: 1 }, { id: 2 }], users: [{ id: 7 }], end_of_stream: true }),
    );
    const records = await collect(readJsonPageRecords(file, ['tickets', 'users']));
    expect(
      records.map((record) => [record.listedUnder, record.recordNumber, record.value]),
    ).toEqual([
      ['tickets', 1, { id: 1 }],
      ['tickets', 2, { id: 2 }],
      ['users', 1, { id: 7 }],
    ]);
  });

  it('reads a record split across chunk boundaries (a page larger than one chunk)', async () => {
    const file = join(directory, 'large.json');
    const result = Array.from({ length: 2000 }, (_, index) => ({
      number: `INC${String(index).padStart(7, '0')}`,
      description: 'あ'.repeat(50),
    }));
    writeFileSync(file, JSON.stringify({ result }));
    const records = await collect(readJsonPageRecords(file, ['result']));
    expect(records).toHaveLength(2000);
    expect(records[1999]?.value).toEqual(result[1999]);
  });

  it('reads records cut by the 1 MB reads of a large page', async () => {
    const file = join(directory, 'pages-of-megabytes.json');
    const result = Array.from({ length: 12_000 }, (_, index) => ({
      number: `INC${String(index).padStart(7, '0')}`,
      description: `${'あ\\"'.repeat(index % 97)}${index}`,
    }));
    writeFileSync(file, JSON.stringify({ result, total: 12_000 }));
    const records = await collect(readJsonPageRecords(file, ['result']));
    expect(records.map((record) => record.value)).toEqual(result);
  });

  it('names the file and the last good record when the JSON breaks off', async () => {
    const file = join(directory, 'broken.json');
    writeFileSync(file, '{"result":[{"number":"INC1"},{"number":"INC2"},{"numb');
    await expect(collect(readJsonPageRecords(file, ['result']))).rejects.toThrow(
      /broken\.json: not valid JSON after record 2/,
    );
  });

  it('refuses a file that is another export (no such list)', async () => {
    const file = join(directory, 'other.json');
    writeFileSync(file, '{"issues":[]}');
    await expect(collect(readJsonPageRecords(file, ['result']))).rejects.toThrow(ExportFileError);
    const empty = join(directory, 'empty-page.json');
    writeFileSync(empty, '{"result":[]}');
    await expect(collect(readJsonPageRecords(empty, ['result']))).resolves.toEqual([]);
  });
});
