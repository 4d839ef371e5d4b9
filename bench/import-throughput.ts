/**
 * Import throughput (issue 25): generates a ServiceNow Table API export of N incidents (default
 * 100,000, ≈ 7.5 KB each: ≈ 750 MB in 10 page files, `sysparm_display_value=all`, journals and
 * personal data in every record) in a temporary folder, then measures side by side, each in a
 * fresh child process so its peak RSS is its own:
 *
 *   - `npm run import` (runImport: read, normalize, scrub, render, hash, stage, rename)
 *   - the streaming parse alone (`readJsonPageRecords` over the same pages: the reader's floor)
 *   - `JSON.parse` of whole page files (the naive peer: fast, but memory grows with the page)
 *   - writing the files the import wrote, with their sizes, and nothing else (`write-files`: the
 *     kernel's floor on this machine — the import's system CPU was 8–11 s one day and 42–54 s the
 *     next, so its rate is read against what creating the same files costs that day)
 *
 * and prints tickets/s and peak RSS beside the targets (≥ 2,000 tickets/s, ≤ 512 MB at 100k).
 * Prints figures; never fails. `npx tsx bench/import-throughput.ts [tickets]`
 */
import { execFile } from 'node:child_process';
import {
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const PAGES = 10;
const TARGET_RATE = 2000;
const TARGET_RSS_MB = 512;

/** One incident in `sysparm_display_value=all` form, ≈ 5 KB, with people and contact data. */
export function incident(index: number): object {
  const number = `INC${String(index).padStart(7, '0')}`;
  const both = (value: string, display = value) => ({ display_value: display, value });
  const sysId = index.toString(16).padStart(32, '0');
  const caller = `山田 太郎${index % 97}`;
  const agent = `Hanako Sato${index % 13}`;
  const paragraph =
    'VPNクライアントが「認証に失敗しました」と表示して接続できません。在宅勤務中で、昨日までは問題なく使えていました。' +
    'The client log shows certificate validation errors against the gateway; Windows 11, GlobalProtect 6.1. ';
  return {
    sys_id: both(sysId),
    number: both(number),
    short_description: both(`VPNに接続できない (${index})`),
    description: both(
      `${paragraph.repeat(6)}連絡先は yamada.taro${index}@example.co.jp / 090-${String(1000 + (index % 9000))}-5678 です。`,
    ),
    state: both(index % 10 === 0 ? '2' : '7', index % 10 === 0 ? 'In Progress' : 'Closed'),
    incident_state: both(index % 10 === 0 ? '2' : '7'),
    close_code: both('Solution provided'),
    close_notes: both(
      `VPN証明書の有効期限切れが原因でした。\n\n証明書を再発行し、山田さんに再インストールしてもらい接続を確認しました。${paragraph.repeat(3)}`,
    ),
    category: both('network', 'Network'),
    subcategory: both('vpn', 'VPN'),
    opened_at: both('2024-01-09 09:58:02'),
    resolved_at: both('2024-01-09 11:30:00'),
    caller_id: {
      display_value: caller,
      link: `https://x.service-now.com/api/now/table/sys_user/${sysId}`,
      value: sysId,
    },
    assigned_to: {
      display_value: agent,
      link: 'https://x.service-now.com/api/now/table/sys_user/1',
      value: '1',
    },
    assignment_group: both('287ebd7da9fe198100f92cc8d1d2154e', 'Service Desk'),
    comments: both(
      '',
      `2024-01-09 11:25:10 - ${agent} (Additional comments)\n${caller}様、証明書を再発行しました。${paragraph}\n\n` +
        `2024-01-09 10:12:33 - ${caller} (Additional comments)\n昨日までは使えていました。内線は 03-1234-${String(index % 10000).padStart(4, '0')} です。\n\n`,
    ),
    work_notes: both(
      '',
      `2024-01-09 10:40:02 - ${agent} (Work notes)\n証明書の期限切れを確認。${paragraph.repeat(2)}\n\n`,
    ),
  };
}

export async function generateExport(directory: string, tickets: number): Promise<number> {
  const perPage = Math.ceil(tickets / PAGES);
  for (let page = 0; page < PAGES; page += 1) {
    const stream = createWriteStream(join(directory, `incident-page-${page + 1}.json`));
    const write = (text: string) =>
      stream.write(text)
        ? Promise.resolve()
        : new Promise<void>((resolve) => stream.once('drain', resolve));
    await write('{"result":[');
    const first = page * perPage;
    const last = Math.min(tickets, first + perPage);
    for (let index = first; index < last; index += 1) {
      await write(`${index > first ? ',' : ''}${JSON.stringify(incident(index + 1))}`);
    }
    await write(']}');
    await new Promise((resolve) => stream.end(resolve));
  }
  return readdirSync(directory).reduce(
    (sum, name) => sum + statSync(join(directory, name)).size,
    0,
  );
}

interface Measurement {
  readonly records: number;
  readonly tickets: number;
  readonly seconds: number;
  /** CPU seconds (user + system): the figure to read on a shared, loaded machine. */
  readonly cpuSeconds: number;
  /**
   * The system part of {@link cpuSeconds}: mostly creating files, which on a loaded machine
   * costs the kernel several times what it costs on an idle one (bench/README.md).
   */
  readonly systemSeconds: number;
  readonly peakRssMb: number;
}

/** In the child: one measurement, printed as JSON on the last line. */
async function measure(mode: string, exportDirectory: string, out: string): Promise<Measurement> {
  const startedAt = performance.now();
  const cpuAtStart = process.cpuUsage();
  let records = 0;
  let tickets = 0;
  if (mode === 'import') {
    const { runImport } = await import('../functions/ticket-import/run-import.js');
    // IMPORT_NAME_ANALYZER=off measures the import as `--no-name-analyzer` runs it (ADR 0019).
    const report = await runImport({
      source: 'servicenow',
      paths: [exportDirectory],
      outDir: out,
      nameAnalyzer: process.env.IMPORT_NAME_ANALYZER !== 'off',
    });
    records = report.records;
    tickets = report.tickets.new + report.tickets.changed + report.tickets.unchanged;
  } else if (mode === 'stream-parse') {
    const { readJsonPageRecords } = await import('../functions/ticket-import/export-files.js');
    for (const name of readdirSync(exportDirectory).sort()) {
      for await (const _record of readJsonPageRecords(join(exportDirectory, name), ['result']))
        records += 1;
    }
  } else if (mode === 'write-files') {
    // `exportDirectory` is the import's output here: the same names' count and sizes again.
    const sizes = readdirSync(exportDirectory).map(
      (name) => statSync(join(exportDirectory, name)).size,
    );
    mkdirSync(out);
    const filler = Buffer.alloc(
      sizes.reduce((largest, size) => Math.max(largest, size), 0),
      'a',
    );
    sizes.forEach((size, index) => {
      writeFileSync(join(out, `file-${index}`), filler.subarray(0, size));
    });
    tickets = Math.floor(sizes.length / 2);
    records = tickets;
  } else {
    for (const name of readdirSync(exportDirectory).sort()) {
      const page = JSON.parse(readFileSync(join(exportDirectory, name), 'utf8')) as {
        result: unknown[];
      };
      records += page.result.length;
    }
  }
  const seconds = (performance.now() - startedAt) / 1000;
  // maxRSS is in kilobytes (getrusage).
  const cpu = process.cpuUsage(cpuAtStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return {
    records,
    tickets,
    seconds,
    cpuSeconds,
    systemSeconds: cpu.system / 1e6,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

async function inChild(mode: string, exportDirectory: string, out: string): Promise<Measurement> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', mode, exportDirectory, out],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Measurement;
}

export async function main(
  tickets = Number(process.env.IMPORT_BENCH_TICKETS ?? 100_000),
): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'import-bench-'));
  try {
    const exportDirectory = join(root, 'export');
    await import('node:fs').then(({ mkdirSync }) => mkdirSync(exportDirectory));
    console.log(`Generating a ServiceNow export of ${tickets.toLocaleString('en-US')} incidents…`);
    const bytes = await generateExport(exportDirectory, tickets);
    console.log(`  ${(bytes / 1024 / 1024).toFixed(0)} MB in ${PAGES} page files\n`);

    const rows: [string, Measurement][] = [];
    for (const mode of ['import', 'stream-parse', 'json-parse', 'write-files']) {
      // The file-writing floor mirrors what the import wrote (its records count tickets).
      const source = mode === 'write-files' ? join(root, 'out-import') : exportDirectory;
      try {
        rows.push([mode, await inChild(mode, source, join(root, `out-${mode}`))]);
      } catch (error) {
        console.log(`  ${mode}: failed (${(error as Error).message.split('\n')[0]})`);
      }
    }
    const importRow = rows.find(([mode]) => mode === 'import')?.[1];
    console.log(
      '| run | records/s (wall) | records per CPU-second | per user CPU-second | tickets written | wall s | CPU s (system) | peak RSS |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const [mode, row] of rows) {
      console.log(
        `| ${mode} | ${Math.round(row.records / row.seconds).toLocaleString('en-US')} | ${Math.round(row.records / row.cpuSeconds).toLocaleString('en-US')} | ${Math.round(row.records / (row.cpuSeconds - row.systemSeconds)).toLocaleString('en-US')} | ${row.tickets.toLocaleString('en-US')} | ${row.seconds.toFixed(1)} | ${row.cpuSeconds.toFixed(1)} (${row.systemSeconds.toFixed(1)}) | ${row.peakRssMb.toFixed(0)} MB |`,
      );
    }
    if (importRow) {
      const rate = importRow.records / importRow.seconds;
      const cpuRate = importRow.records / importRow.cpuSeconds;
      console.log(
        `\nimport: ${Math.round(rate).toLocaleString('en-US')} records/s wall, ${Math.round(cpuRate).toLocaleString('en-US')} per CPU-second (target ≥ ${TARGET_RATE.toLocaleString('en-US')}: wall ${rate >= TARGET_RATE ? '✓' : '✗'}, CPU ${cpuRate >= TARGET_RATE ? '✓' : '✗'}), load average ${loadavg()[0]?.toFixed(1)}, ` +
          `peak RSS ${importRow.peakRssMb.toFixed(0)} MB (target ≤ ${TARGET_RSS_MB}: ${importRow.peakRssMb <= TARGET_RSS_MB ? '✓' : '✗'})`,
      );
      for (const [mode, row] of rows) {
        if (mode === 'import') continue;
        console.log(
          `  import ÷ ${mode}: time ${(importRow.seconds / row.seconds).toFixed(2)}×, peak RSS ${(importRow.peakRssMb / row.peakRssMb).toFixed(2)}×` +
            (mode === 'write-files'
              ? `, system CPU ${importRow.systemSeconds.toFixed(1)} vs ${row.systemSeconds.toFixed(1)} s (the files alone)`
              : ''),
        );
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const [, , flag, mode, exportDirectory, out] = process.argv;
if (flag === '--child' && mode && exportDirectory && out) {
  console.log(JSON.stringify(await measure(mode, exportDirectory, out)));
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main(flag ? Number(flag) : undefined);
}
