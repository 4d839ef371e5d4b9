/**
 * Live sync at scale (issue 52): a local ServiceNow Table API serving N generated incidents
 * (default 100,000; bench/import-throughput.ts's records, ≈ 7.5 KB each with journals and
 * personal data, three changed per second so pages end inside a second) in one child process,
 * and the pull (`runSync` with the command line's file stores: HTTP, normalize, scrub, render,
 * hash, write page by page, save the cursor) in another, so the pull's peak RSS is its own.
 * Prints records/s and peak RSS beside the target (≤ 512 MB at 100k). Prints figures; never
 * fails. `npx tsx bench/servicenow-pull.ts [tickets] [page size]` (`PULL_NAME_ANALYZER=off`: without
 * the person-name analyzer). The pull runs with the V8 heap bound of `npm run import`
 * (package.json) and prints its progress and peak RSS every ten pages.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { incident } from './import-throughput.js';

const TARGET_RSS_MB = 512;
const BASE = Date.parse('2024-01-01T00:00:00Z');
const PER_SECOND = 3;

const serviceNowTime = (milliseconds: number) =>
  new Date(milliseconds).toISOString().slice(0, 19).replace('T', ' ');

/** The server: record i changed at BASE + floor(i / 3) s, listed in that order. */
function serve(tickets: number): void {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const query = url.searchParams.get('sysparm_query') ?? '';
    const since = /sys_updated_on>=(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})/.exec(query);
    const from = since ? Date.parse(`${since[1]?.replace(' ', 'T')}Z`) : BASE;
    const first = Math.max(0, Math.ceil(((from - BASE) / 1000) * PER_SECOND));
    const offset = Number(url.searchParams.get('sysparm_offset') ?? '0');
    const limit = Number(url.searchParams.get('sysparm_limit') ?? '1000');
    const start = url.pathname.endsWith('/incident') ? first + offset : tickets;
    const end = Math.min(tickets, start + limit);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"result":[');
    for (let index = start; index < end; index += 1) {
      const record = incident(index + 1) as Record<string, unknown>;
      const at = serviceNowTime(BASE + Math.floor(index / PER_SECOND) * 1000);
      record.sys_updated_on = { display_value: at, value: at };
      response.write(`${index > start ? ',' : ''}${JSON.stringify(record)}`);
    }
    response.end(']}');
  });
  server.listen(0, '127.0.0.1', () => {
    console.log((server.address() as AddressInfo).port);
  });
}

interface Measurement {
  readonly records: number;
  readonly added: number;
  readonly pages: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly peakRssMb: number;
}

async function pull(url: string, outDir: string, pageSize: number): Promise<Measurement> {
  const { createTicketSource } = await import('../functions/ticket-sync/create-ticket-source.js');
  const { runSync } = await import('../functions/ticket-sync/run-sync.js');
  const { FileCursorStore, FileTicketDocumentStore, cursorFileOf } = await import(
    '../functions/ticket-sync/file-stores.js'
  );
  const { initialCursor } = await import('../functions/ticket-sync/sync-cursor.js');
  const { loadPersonNameAnalyzer } = await import('../functions/knowledge/person-name-analyzer.js');
  // PULL_NAME_ANALYZER=off pulls as `--no-name-analyzer` does (ADR 0019): the analyzer's load
  // and its milliseconds per kilobyte of prose are most of the pull's CPU and memory.
  const analyzer =
    process.env.PULL_NAME_ANALYZER === 'off' ? undefined : await loadPersonNameAnalyzer();
  const startedAt = performance.now();
  const cpuBefore = process.cpuUsage();
  const report = await runSync({
    sourceKey: `servicenow ${url}`,
    source: createTicketSource(
      {
        system: 'servicenow',
        url,
        credentials: { kind: 'basic', username: 'bench', password: 'bench' },
        credentialSource: 'bench',
        comments: 'none',
        tables: ['incident'],
        pageSize,
      },
      { fetch, sleep: async () => {}, now: () => Date.now() },
    ),
    cursors: new FileCursorStore(cursorFileOf(outDir)),
    documents: new FileTicketDocumentStore(outDir, 'servicenow'),
    settings: { system: 'servicenow', rules: [], ...(analyzer ? { analyzer } : {}) },
    firstCursor: initialCursor({}),
    signal: new AbortController().signal,
    // A line every ten pages (stderr, shown as the run goes): a run stopped early still has figures.
    onPage: ({ pages, counts }) => {
      if (pages % 10 !== 0) return;
      const seconds = (performance.now() - startedAt) / 1000;
      console.error(
        `  ${counts.records.toLocaleString('en-US')} records, ${Math.round(counts.records / seconds)} records/s, ` +
          `RSS ${Math.round(process.memoryUsage().rss / 1048576)} MB, peak ${Math.round(process.resourceUsage().maxRSS / 1024)} MB, ` +
          `load average ${loadavg()[0]?.toFixed(1)}`,
      );
    },
  });
  const cpu = process.cpuUsage(cpuBefore);
  return {
    records: report.counts.records,
    added: report.counts.added,
    pages: report.pages,
    seconds: (performance.now() - startedAt) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

export async function main(
  tickets = Number(process.env.PULL_BENCH_TICKETS ?? 100_000),
  pageSize = 1000,
): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const server = spawn(process.execPath, ['--import', 'tsx', self, '--serve', String(tickets)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const root = mkdtempSync(join(tmpdir(), 'pull-bench-'));
  try {
    const port = await new Promise<string>((resolve) =>
      server.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())),
    );
    const url = `http://127.0.0.1:${port}`;
    console.log(
      `Pulling ${tickets.toLocaleString('en-US')} ServiceNow incidents, ${pageSize} a page…`,
    );
    const puller = spawn(
      process.execPath,
      [
        ...importCommandHeapFlags(),
        '--import',
        'tsx',
        self,
        '--pull',
        url,
        join(root, 'tickets'),
        String(pageSize),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let stdout = '';
    puller.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => puller.once('close', resolve));
    if (code !== 0) throw new Error(`the pull exited with ${code}`);
    const row = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Measurement;
    console.log(
      `pull: ${row.records.toLocaleString('en-US')} records in ${row.pages} pages, ${row.added.toLocaleString('en-US')} tickets written, ` +
        `${Math.round(row.records / row.seconds).toLocaleString('en-US')} records/s wall (${row.seconds.toFixed(1)} s), ` +
        `${Math.round(row.records / row.cpuSeconds).toLocaleString('en-US')} per CPU-second, load average ${loadavg()[0]?.toFixed(1)}, ` +
        `peak RSS ${row.peakRssMb.toFixed(0)} MB (target ≤ ${TARGET_RSS_MB}: ${row.peakRssMb <= TARGET_RSS_MB ? '✓' : '✗'})`,
    );
  } finally {
    server.kill();
    rmSync(root, { recursive: true, force: true });
  }
}

/** The V8 heap bound `npm run import` runs with (package.json): the pull is measured as it runs. */
function importCommandHeapFlags(): string[] {
  const packageJson = fileURLToPath(new URL('../package.json', import.meta.url));
  const { scripts } = JSON.parse(readFileSync(packageJson, 'utf8')) as {
    scripts: Record<string, string>;
  };
  return scripts.import?.match(/--max-old-space-size=\d+/g) ?? [];
}

const [, , flag, first, second, third] = process.argv;
if (flag === '--serve' && first) {
  serve(Number(first));
} else if (flag === '--pull' && first && second && third) {
  console.log(JSON.stringify(await pull(first, second, Number(third))));
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main(flag ? Number(flag) : undefined, first ? Number(first) : undefined);
}
