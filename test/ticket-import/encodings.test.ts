import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ExportFileError,
  encodingOfTextFile,
  readCsvRecords,
} from '../../functions/ticket-import/export-files.js';
import { runImport } from '../../functions/ticket-import/run-import.js';
import {
  readTabularMapping,
  tabularMappingSchema,
} from '../../functions/ticket-import/sources/tabular.js';
import { temporaryDirectoriesOfThisFile, ticketFilesOf } from '../support/import-folders.js';

/*
 * The Shift_JIS fixtures (test/fixtures/import/csv-shift-jis) are CP932 bytes as Excel on
 * Japanese Windows saves "CSV (comma delimited)": no byte-order mark, CRLF between rows, LF
 * inside a quoted cell, a field quoted only when it needs it. They were made with glibc's
 * `iconv -t CP932` — a mapping independent of the ICU decoder the import uses — from UTF-8 text
 * this test states: `tickets.csv` has Japanese headers and characters whose second byte is
 * `\` (表 95 5C, ソ 83 5C), CP932's own ① (87 40) and ～ (81 60), and 髙 (FB FC, an IBM
 * extension); `ascii-header.csv` is test/fixtures/import/csv/tickets.csv in CP932.
 */
const FIXTURES = 'test/fixtures/import';
const SHIFT_JIS = join(FIXTURES, 'csv-shift-jis');

const temporaryDirectory = temporaryDirectoriesOfThisFile('import-encodings-test-');
/**
 * A ticket folder inside a directory of its own: the import stages beside the folder, so its
 * staging stays out of the shared temporary directory another test file lists.
 */
const ticketFolder = () => join(temporaryDirectory(), 'tickets');

const japaneseMapping = () => readTabularMapping(join(SHIFT_JIS, 'mapping.json'));

describe('Shift_JIS exports', () => {
  it('are the bytes Excel writes (not UTF-8; 表 and ソ end in a backslash byte)', () => {
    const bytes = readFileSync(join(SHIFT_JIS, 'tickets.csv'));
    expect(bytes.subarray(0, 12)).toEqual(
      // チケット番号
      Buffer.from([0x83, 0x60, 0x83, 0x50, 0x83, 0x62, 0x83, 0x67, 0x94, 0xd4, 0x8d, 0x86]),
    );
    expect(bytes.includes(Buffer.from([0x95, 0x5c]))).toBe(true); // 表
    expect(bytes.includes(Buffer.from([0x87, 0x40]))).toBe(true); // ①
    expect(bytes.includes(Buffer.from([0xfb, 0xfc]))).toBe(true); // 髙
    expect(encodingOfTextFile(join(SHIFT_JIS, 'tickets.csv'), undefined)).toBe('shift_jis');
  });

  it('imports a CSV with Japanese headers, detected as Shift_JIS, text intact and scrubbed', async () => {
    const out = ticketFolder();
    const report = await runImport({
      source: 'csv',
      outDir: out,
      paths: [join(SHIFT_JIS, 'tickets.csv')],
      mapping: japaneseMapping(),
    });
    expect(report.tickets).toEqual({ new: 1, changed: 0, unchanged: 0 });
    expect(report.skipped.notResolved).toBe(1);
    const files = ticketFilesOf(out);
    expect(Object.keys(files)).toEqual(['HD-2001.md', 'HD-2001.md.metadata.json']);
    const document = files['HD-2001.md'] ?? '';
    expect(document).toContain('# 表計算ソフトが起動しない');
    expect(document).toContain('- カテゴリ: ソフトウェア');
    expect(document).toContain('表計算ソフトを開くと「ライセンス認証①」の画面で止まります。');
    expect(document).toContain('Officeの資格情報を削除し、再サインインしてもらいました。');
    expect(document).toContain('確認済み～');
    // The scrub sees the text: the phone number and the requester (髙橋, from the person field) go.
    expect(document).not.toContain('03-1234-5678');
    expect(document).not.toContain('髙橋');
    expect(report.scrubbed.phone).toBe(1);
    for (const text of Object.values(files)) expect(text).not.toContain('\uFFFD');
    expect(JSON.parse(files['HD-2001.md.metadata.json'] ?? '{}').metadataAttributes).toMatchObject({
      subject: '表計算ソフトが起動しない',
      category: 'ソフトウェア',
      created_at: '2024-09-02',
    });
  });

  it('imports a CSV with ASCII headers to the same documents as its UTF-8 original', async () => {
    const mapping = readTabularMapping(join(FIXTURES, 'csv', 'mapping.json'));
    const fromShiftJis = ticketFolder();
    const fromUtf8 = ticketFolder();
    await runImport({
      source: 'csv',
      outDir: fromShiftJis,
      paths: [join(SHIFT_JIS, 'ascii-header.csv')],
      mapping,
    });
    await runImport({
      source: 'csv',
      outDir: fromUtf8,
      paths: [join(FIXTURES, 'csv', 'tickets.csv')],
      mapping,
    });
    expect(ticketFilesOf(fromShiftJis)).toEqual(ticketFilesOf(fromUtf8));
    expect(Object.keys(ticketFilesOf(fromShiftJis))).toHaveLength(4);
  });

  it('imports with --encoding shift_jis, and refuses --encoding utf-8 naming it and the line', async () => {
    const report = await runImport({
      source: 'csv',
      dryRun: true,
      encoding: 'shift_jis',
      paths: [join(SHIFT_JIS, 'tickets.csv')],
      mapping: japaneseMapping(),
    });
    expect(report.tickets.new).toBe(1);
    const out = ticketFolder();
    await expect(
      runImport({
        source: 'csv',
        outDir: out,
        encoding: 'utf-8',
        paths: [join(SHIFT_JIS, 'tickets.csv')],
        mapping: japaneseMapping(),
      }),
    ).rejects.toThrow(/tickets\.csv: is not valid UTF-8 text \(line 1\); name its encoding/);
    expect(ticketFilesOf(out)).toEqual({});
  });

  it('reads JSON Lines in Shift_JIS too', async () => {
    const directory = temporaryDirectory();
    const file = join(directory, 'tickets.jsonl');
    // {"id":"FS-9","title":"表示","fix":"再起動"} in CP932.
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from('{"id":"FS-9","title":"'),
        Buffer.from([0x95, 0x5c, 0x8e, 0xa6]),
        Buffer.from('","fix":"'),
        Buffer.from([0x8d, 0xc4, 0x8b, 0x4e, 0x93, 0xae]),
        Buffer.from('"}\r\n'),
      ]),
    );
    const report = await runImport({
      source: 'jsonl',
      dryRun: true,
      paths: [file],
      mapping: tabularMappingSchema.parse({
        number: 'id',
        subject: 'title',
        inquiry: 'title',
        resolution: 'fix',
      }),
    });
    expect(report.tickets.new).toBe(1);
    expect(encodingOfTextFile(file, undefined)).toBe('shift_jis');
  });
});

describe('detection across the 1 MB reads', () => {
  it('finds UTF-8 valid when a character straddles a read, and invalid when a byte is cut off', () => {
    const directory = temporaryDirectory();
    const chunk = 1024 * 1024;
    for (const offset of [1, 2, 3]) {
      // "あ" (E3 81 82) and "😀" (F0 9F 98 80) starting `offset` bytes before a read's end.
      for (const character of ['あ', '😀']) {
        const file = join(directory, `straddle-${offset}-${character.length}.csv`);
        const text = `${'a'.repeat(chunk - offset)}${character}\n`;
        writeFileSync(file, text);
        expect(encodingOfTextFile(file, undefined)).toBe('utf-8');
        // The same bytes with the character's last byte missing are not UTF-8 (whether they
        // happen to be Shift_JIS or nothing).
        writeFileSync(file, Buffer.from(text).subarray(0, -2));
        let detected: string;
        try {
          detected = encodingOfTextFile(file, undefined);
        } catch (error) {
          detected = (error as Error).message;
        }
        expect(detected).not.toBe('utf-8');
      }
    }
  });
});

describe('a file in neither encoding', () => {
  it('is refused naming both encodings, having written nothing', async () => {
    const directory = temporaryDirectory();
    const file = join(directory, 'tickets.csv');
    // 0x82 is a UTF-8 continuation byte with no lead, and a Shift_JIS lead byte that a line
    // feed cannot follow.
    writeFileSync(file, Buffer.from('Ticket ID,Title\r\nHD-1,\x82\n', 'latin1'));
    const out = ticketFolder();
    const attempt = runImport({
      source: 'csv',
      outDir: out,
      paths: [file],
      mapping: readTabularMapping(join(FIXTURES, 'csv', 'mapping.json')),
    });
    await expect(attempt).rejects.toThrow(ExportFileError);
    await expect(attempt).rejects.toThrow(
      /tickets\.csv: is neither UTF-8 nor Shift_JIS text; save it as "CSV UTF-8" or name its encoding with --encoding/,
    );
    expect(ticketFilesOf(out)).toEqual({});
  });

  it('named with --encoding is refused at the line of its first invalid byte', async () => {
    const directory = temporaryDirectory();
    const file = join(directory, 'late.csv');
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from('number,title\nA-1,ok\nA-2,ok\n'),
        Buffer.from([0x41, 0x2d, 0x33, 0x2c, 0xff, 0x0a]),
      ]),
    );
    const read = async () => {
      for await (const _record of readCsvRecords(file, 'utf-8')) {
        // reading is the test
      }
    };
    await expect(read()).rejects.toThrow('late.csv: is not valid UTF-8 text (line 4)');
  });
});

describe('byte-order marks', () => {
  const rows = 'number,title\r\nA-1,表示できない\r\n';

  it('decide the encoding, over --encoding as well (UTF-8, UTF-16LE, UTF-16BE)', async () => {
    const directory = temporaryDirectory();
    const utf8 = join(directory, 'utf8.csv');
    const utf16le = join(directory, 'utf16le.csv');
    const utf16be = join(directory, 'utf16be.csv');
    writeFileSync(utf8, `\uFEFF${rows}`);
    writeFileSync(utf16le, Buffer.from(`\uFEFF${rows}`, 'utf16le'));
    writeFileSync(utf16be, Buffer.from(`\uFEFF${rows}`, 'utf16le').swap16());
    expect(encodingOfTextFile(utf8, 'shift_jis')).toBe('utf-8');
    expect(encodingOfTextFile(utf16le, undefined)).toBe('utf-16le');
    expect(encodingOfTextFile(utf16be, 'utf-8')).toBe('utf-16be');
    for (const [file, encoding] of [
      [utf8, 'utf-8'],
      [utf16le, 'utf-16le'],
      [utf16be, 'utf-16be'],
    ] as const) {
      const records = [];
      for await (const record of readCsvRecords(file, encoding)) records.push(record);
      expect(records.map((record) => ('value' in record ? record.value : record))).toEqual([
        { number: 'A-1', title: '表示できない' },
      ]);
    }
  });
});

describe('JSON and settings files', () => {
  it('refuses a JSON page that is not UTF-8, naming the encoding', async () => {
    const directory = temporaryDirectory();
    mkdirSync(join(directory, 'jira'));
    const file = join(directory, 'jira', 'search.json');
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from('{"issues":[{"key":"HELP-1","fields":{"summary":"'),
        Buffer.from([0x95, 0x5c, 0x8e, 0xa6]),
        Buffer.from('"}}]}'),
      ]),
    );
    await expect(runImport({ source: 'jira', dryRun: true, paths: [file] })).rejects.toThrow(
      /search\.json: .*not UTF-8 text; a JSON export is UTF-8/,
    );
  });

  it('refuses --encoding for a JSON-only source', async () => {
    await expect(
      runImport({
        source: 'jira',
        dryRun: true,
        encoding: 'shift_jis',
        paths: [join(FIXTURES, 'jira')],
      }),
    ).rejects.toThrow('--encoding is for CSV and JSON Lines files');
  });

  it('refuses a mapping file that is not UTF-8 instead of reading garbled column names', () => {
    const directory = temporaryDirectory();
    const file = join(directory, 'mapping.json');
    // {"number":"番号"} with 番号 in CP932.
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from('{"number":"'),
        Buffer.from([0x94, 0xd4, 0x8d, 0x86]),
        Buffer.from('"}'),
      ]),
    );
    expect(() => readTabularMapping(file)).toThrow(/mapping .*mapping\.json: is not UTF-8 text/);
  });
});
