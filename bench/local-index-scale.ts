/**
 * Local Knowledge Base index at scale (issue 25, ADR 0021): 1,000 / 10,000 / 100,000 ticket
 * documents — variants of data/tickets with other numbers, ids and perturbed text, written to a
 * temporary folder as document + `.metadata.json` sidecar, as `npm run import` writes them — and,
 * for the minisearch index (`old`) and the inverted index (`new`) side by side: start-up (scan
 * the folder and build the index, as the local endpoint does), heap after a full GC and peak
 * RSS, and Retrieve latency p50/p95 over the evaluation queries as the product sends them
 * (glossary expansion, `restricted` filter, 8 results) plus ticket fetches by issue id; and
 * whether both answer every query identically.
 *
 * Each index is built in a child process of its own: heap and RSS figures of two indexes in one
 * process would be each other's. Prints figures beside the targets (100k: start-up ≤ 30 s,
 * p95 ≤ 50 ms); never fails.
 *
 *   npm run bench:index                      # 1k and 10k (old and new), 100k new only
 *   npm run bench:index -- --sizes 1000,10000,100000 --old-up-to 100000
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const TARGET_STARTUP_S = 30;
const TARGET_P95_MS = 50;
const RESULTS_PER_QUERY = 8;
const NOT_RESTRICTED = { notEquals: { key: 'restricted', value: true } } as const;

/** `restart`: the new index started again by a process of its own, from the caches `new` left. */
type Implementation = 'old' | 'new' | 'restart';

interface Measurement {
  readonly implementation: Implementation;
  readonly documents: number;
  readonly chunks: number;
  readonly startupSeconds: number;
  /** A second start over the same folder (the new index's cache, when it has one). */
  readonly restartSeconds: number | null;
  readonly heapMb: number;
  readonly peakRssMb: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  /** CPU time per query, p50 / p95: what the index costs, without the waits of a shared machine. */
  readonly cpuP50Ms: number;
  readonly cpuP95Ms: number;
  readonly fetchP95Ms: number;
  readonly fetchCpuP95Ms: number;
  /** CPU seconds of the start-up (all threads of the process: file reads included). */
  readonly startupCpuSeconds: number;
  /**
   * When the caches for the next start were on disk, from the start (they are written after
   * ready, as `npm start` does), and the CPU seconds until then; null for the old index.
   */
  readonly cachesWrittenSeconds: number | null;
  readonly cachesWrittenCpuSeconds: number | null;
  readonly resultsHash: string;
  /** The machine's 1-minute load average when the child finished. */
  readonly loadAverage: number;
}

/** A deterministic PRNG (mulberry32), so every run writes the same corpus. */
function randomFrom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const HOST_WORDS = ['PC', 'NB', 'WS', 'VDI', 'MBP', 'SRV'];

/**
 * Variant `serial` of a sample ticket: a new issue id, every other number replaced, one body line
 * dropped, and a line naming a device and an error code of its own — so the vocabulary grows with
 * the corpus as a real desk's does (host names, codes), instead of 171 texts repeated.
 */
function variantOf(
  ticket: { text: string; metadata: Record<string, unknown> },
  serial: number,
  issueId: string,
): { text: string; sidecar: string } {
  const random = randomFrom(serial);
  const originalId = String(ticket.metadata.issue_id);
  const renumber = (text: string) =>
    text
      .replaceAll(originalId, issueId)
      .replace(/\d+/g, (digits) =>
        digits === issueId ? digits : String(Math.floor(random() * 10 ** digits.length)),
      );
  const lines = renumber(ticket.text).split('\n');
  const bodyLines = lines.flatMap((line, index) => (/^[^#\-\s]/.test(line) ? [index] : []));
  const dropped = bodyLines[Math.floor(random() * bodyLines.length)];
  const host = `${HOST_WORDS[serial % HOST_WORDS.length]}-${Math.floor(random() * 1e6)}`;
  const code = `0x${Math.floor(random() * 0xffffff).toString(16)}`;
  const kept = lines.filter((_, index) => index !== dropped);
  kept.push('', `端末 ${host} / error ${code}`);
  const subject = renumber(String(ticket.metadata.subject ?? ''));
  const metadata = { ...ticket.metadata, issue_id: issueId, subject };
  return { text: kept.join('\n'), sidecar: JSON.stringify({ metadataAttributes: metadata }) };
}

/** Writes `count` variants of the sample tickets into `directory`, 64 files at a time. */
export async function writeCorpus(directory: string, count: number): Promise<void> {
  const names = (await readdir('data/tickets')).filter((name) => name.endsWith('.md')).sort();
  const samples = await Promise.all(
    names.map(async (name) => ({
      text: await readFile(join('data/tickets', name), 'utf8'),
      metadata: JSON.parse(await readFile(join('data/tickets', `${name}.metadata.json`), 'utf8'))
        .metadataAttributes as Record<string, unknown>,
    })),
  );
  await mkdir(directory, { recursive: true });
  const batch: Promise<void>[] = [];
  for (let serial = 0; serial < count; serial += 1) {
    const issueId = String(200_000 + serial);
    const { text, sidecar } = variantOf(
      samples[serial % samples.length] as (typeof samples)[number],
      serial,
      issueId,
    );
    batch.push(
      writeFile(join(directory, `${issueId}.md`), text),
      writeFile(join(directory, `${issueId}.md.metadata.json`), sidecar),
    );
    if (batch.length >= 64) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
}

const percentile = (sorted: readonly number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;

/** In the child: start one index over the folder, measure it, print the measurement as JSON. */
async function measureInChild(
  implementation: Implementation,
  directory: string,
  cacheDirectory: string,
): Promise<void> {
  const { loadEvalQueries } = await import('../eval/retrieval-evaluation.js');
  const { toRetrievalQuery } = await import('../functions/chat/retrieval.js');
  const { openKnowledgeBaseDataSource, loadTicketDocuments } = await import(
    '../local/bedrock/knowledge-base-data-source.js'
  );
  const { createMinisearchTicketIndex } = await import(
    '../local/bedrock/ticket-index/minisearch-ticket-index.js'
  );
  const folder = { directory, uriPrefix: 's3://local-tickets/' };
  const start = async () => {
    const startedAt = performance.now();
    const cpuBefore = process.cpuUsage();
    const secondsSince = () => (performance.now() - startedAt) / 1e3;
    const cpuSecondsSince = () => {
      const cpu = process.cpuUsage(cpuBefore);
      return (cpu.user + cpu.system) / 1e6;
    };
    if (implementation === 'old') {
      const index = createMinisearchTicketIndex(await loadTicketDocuments(directory));
      const [seconds, cpuSeconds] = [secondsSince(), cpuSecondsSince()];
      return { index, seconds, cpuSeconds, cachesWritten: null, cachesWrittenCpu: null };
    }
    // As `npm start` opens it: ready to answer first, the caches written after.
    const source = await openKnowledgeBaseDataSource([folder], {
      indexCacheDirectory: cacheDirectory,
      writeCachesAfterReady: true,
    });
    const [seconds, cpuSeconds] = [secondsSince(), cpuSecondsSince()];
    await source.cachesWritten();
    return {
      index: source.index,
      seconds,
      cpuSeconds,
      cachesWritten: secondsSince(),
      cachesWrittenCpu: cpuSecondsSince(),
    };
  };
  // The queries run once the caches are written: the steady state of a serving index.
  const {
    index,
    seconds: startupSeconds,
    cpuSeconds: startupCpuSeconds,
    cachesWritten: cachesWrittenSeconds,
    cachesWrittenCpu: cachesWrittenCpuSeconds,
  } = await start();
  const documents = (await readdir(directory)).filter((name) => name.endsWith('.md')).length;

  const queries = await loadEvalQueries('data/eval/retrieval-queries.jsonl');
  const searches = queries.map(({ query }) => ({
    text: toRetrievalQuery(query, { expand: true }),
    numberOfResults: RESULTS_PER_QUERY,
    filter: NOT_RESTRICTED,
  }));
  // Ticket fetches as the retriever's fetchByIssueIds sends them, for ids across the corpus.
  const fetches = Array.from({ length: 20 }, (_, serial) => {
    const issueIds = [String(200_000 + Math.floor((serial * documents) / 20))];
    return {
      text: issueIds.map((issueId) => `#${issueId}`).join(' '),
      numberOfResults: RESULTS_PER_QUERY,
      filter: { andAll: [{ in: { key: 'issue_id', value: issueIds } }, NOT_RESTRICTED] },
    };
  });
  const hash = createHash('sha256');
  const cpuTimes: number[] = [];
  const timeEach = (list: readonly (typeof searches)[number][] | typeof fetches) =>
    list
      .map((search) => {
        const startedAt = performance.now();
        const cpuBefore = process.cpuUsage();
        // The handler's work: search, then the response body.
        const payload = JSON.stringify({ retrievalResults: index.search(search) });
        const cpu = process.cpuUsage(cpuBefore);
        const elapsed = performance.now() - startedAt;
        cpuTimes.push((cpu.user + cpu.system) / 1e3);
        hash.update(payload);
        return elapsed;
      })
      .sort((a, b) => a - b);
  const latencies = timeEach(searches);
  const searchCpuTimes = cpuTimes.splice(0).sort((a, b) => a - b);
  const fetchLatencies = timeEach(fetches);
  const fetchCpuTimes = cpuTimes.splice(0).sort((a, b) => a - b);
  globalThis.gc?.();
  const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
  // Keep the index alive until the heap is measured.
  const chunks = index.chunkCount;
  const restartSeconds = implementation === 'new' ? (await start()).seconds : null;
  const [load] = loadavg();
  const measurement: Measurement = {
    implementation,
    documents,
    chunks,
    startupSeconds,
    startupCpuSeconds,
    cachesWrittenSeconds,
    cachesWrittenCpuSeconds,
    restartSeconds,
    heapMb,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    p50Ms: percentile(latencies, 0.5),
    p95Ms: percentile(latencies, 0.95),
    cpuP50Ms: percentile(searchCpuTimes, 0.5),
    cpuP95Ms: percentile(searchCpuTimes, 0.95),
    fetchP95Ms: percentile(fetchLatencies, 0.95),
    fetchCpuP95Ms: percentile(fetchCpuTimes, 0.95),
    resultsHash: hash.digest('hex').slice(0, 12),
    loadAverage: load ?? 0,
  };
  console.log(JSON.stringify(measurement));
}

function runChild(
  implementation: Implementation,
  directory: string,
  cacheDirectory: string,
): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--expose-gc',
        '--max-old-space-size=4096',
        '--import',
        'tsx',
        fileURLToPath(import.meta.url),
        '--child',
        implementation,
        '--dir',
        directory,
        '--cache',
        cacheDirectory,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout.on('data', (data: Buffer) => {
      output += data.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = output.trim().split('\n').at(-1) ?? '';
      if (code === 0) resolve(JSON.parse(line) as Measurement);
      else reject(new Error(`${implementation} index child exited ${code}: ${output}`));
    });
  });
}

const format = (value: number | null, digits = 1) =>
  value === null || Number.isNaN(value) ? '—' : value.toFixed(digits);

export async function main(
  sizes: readonly number[] = [1_000, 10_000, 100_000],
  oldUpTo = 10_000,
): Promise<Measurement[]> {
  const root = await mkdtemp(join(tmpdir(), 'local-index-scale-'));
  const measurements: Measurement[] = [];
  try {
    console.log(`node ${process.version}, ${execFileSync('nproc').toString().trim()} cores`);
    console.log(
      '| documents | index | start-up s (CPU s) | caches written s (CPU s) | restart in process s | heap MB | peak RSS MB | Retrieve p50 / p95 ms | CPU p50 / p95 ms | fetch by id p95 ms (CPU) | results | load |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const size of sizes) {
      const directory = join(root, `tickets-${size}`);
      await writeCorpus(directory, size);
      const implementations: Implementation[] =
        size <= oldUpTo ? ['old', 'new', 'restart'] : ['new', 'restart'];
      const measured: Measurement[] = [];
      for (const implementation of implementations) {
        const cacheDirectory = join(root, `cache-${size}`);
        const measurement = await runChild(implementation, directory, cacheDirectory);
        measured.push(measurement);
        measurements.push(measurement);
      }
      const old = measured.find((measurement) => measurement.implementation === 'old');
      for (const measurement of measured) {
        const same =
          old === undefined ? '—' : old.resultsHash === measurement.resultsHash ? 'same' : 'DIFFER';
        console.log(
          `| ${size.toLocaleString('en')} | ${measurement.implementation} | ${format(measurement.startupSeconds)} (${format(measurement.startupCpuSeconds)}) | ${format(measurement.cachesWrittenSeconds)} (${format(measurement.cachesWrittenCpuSeconds)}) | ${format(measurement.restartSeconds)} | ${format(measurement.heapMb, 0)} | ${format(measurement.peakRssMb, 0)} | ${format(measurement.p50Ms, 2)} / ${format(measurement.p95Ms, 2)} | ${format(measurement.cpuP50Ms, 2)} / ${format(measurement.cpuP95Ms, 2)} | ${format(measurement.fetchP95Ms, 2)} (${format(measurement.fetchCpuP95Ms, 2)}) | ${same} | ${format(measurement.loadAverage)} |`,
        );
      }
      const fresh = measured.find((measurement) => measurement.implementation === 'new');
      const restarted = measured.find((measurement) => measurement.implementation === 'restart');
      if (fresh && restarted && fresh.resultsHash !== restarted.resultsHash) {
        console.log(
          `| ${size.toLocaleString('en')} | restart answers DIFFER from new | | | | | | | | | | |`,
        );
      }
      if (old && fresh) {
        console.log(
          `|   | old ÷ new | ${format(old.startupCpuSeconds / fresh.startupCpuSeconds)}× CPU | | | ${format(old.heapMb / fresh.heapMb)}× | ${format(old.peakRssMb / fresh.peakRssMb)}× | ${format(old.p50Ms / fresh.p50Ms)}× / ${format(old.p95Ms / fresh.p95Ms)}× | ${format(old.cpuP50Ms / fresh.cpuP50Ms)}× / ${format(old.cpuP95Ms / fresh.cpuP95Ms)}× | ${format(old.fetchP95Ms / fresh.fetchP95Ms)}× | |`,
        );
      }
      await rm(directory, { recursive: true, force: true });
    }
    const largest = measurements.filter((m) => m.implementation === 'new').at(-1);
    const largestRestart = measurements.filter((m) => m.implementation === 'restart').at(-1);
    if (largest && largestRestart) {
      const mark = (ok: boolean) => (ok ? '✓' : '✗');
      console.log(
        `\nat ${largest.documents.toLocaleString('en')} documents: start-up (ready to answer) ${format(largest.startupSeconds)} s (target ≤ ${TARGET_STARTUP_S} s ${mark(largest.startupSeconds <= TARGET_STARTUP_S)}; caches written at ${format(largest.cachesWrittenSeconds)} s), restart ${format(largestRestart.startupSeconds)} s (CPU ${format(largestRestart.startupCpuSeconds)} s) ${mark(largestRestart.startupSeconds <= TARGET_STARTUP_S)}, Retrieve p95 ${format(largest.p95Ms, 2)} ms (target ≤ ${TARGET_P95_MS} ms ${mark(largest.p95Ms <= TARGET_P95_MS)}; CPU p95 ${format(largest.cpuP95Ms, 2)} ms), from the restart ${format(largestRestart.p95Ms, 2)} ms`,
      );
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return measurements;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      child: { type: 'string' },
      dir: { type: 'string' },
      cache: { type: 'string' },
      sizes: { type: 'string', default: '1000,10000,100000' },
      'old-up-to': { type: 'string', default: '10000' },
    },
  });
  if (values.child !== undefined) {
    await measureInChild(
      values.child as Implementation,
      values.dir as string,
      values.cache as string,
    );
  } else {
    const sizes = values.sizes.split(',').map(Number);
    if (sizes.some((size) => !Number.isInteger(size) || size < 1)) {
      throw new Error(`--sizes must be positive integers separated by commas, not ${values.sizes}`);
    }
    await main(sizes, Number(values['old-up-to']));
  }
}
