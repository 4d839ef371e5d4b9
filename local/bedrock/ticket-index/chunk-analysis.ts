import { availableParallelism } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { tokenizeForSearch } from './tokenize-for-search.js';

/**
 * The analysed form of one chunk: per field (subject, text) its distinct terms with their
 * frequencies, packed as `termId * 256 + frequency` in the order the terms first occur.
 */
export interface ChunkAnalysis {
  readonly fields: readonly Uint32Array[];
  /** The term of a term id used in `fields`. */
  readonly termOf: (termId: number) => string;
}

/**
 * A term's frequency in one field is stored in a byte. Only a term repeated more than 255 times
 * within one 1,500-character chunk is capped, where BM25's saturation makes the difference
 * below 0.1%.
 */
const MAX_TERM_FREQUENCY = 255;

/**
 * Analyses chunks into one growing vocabulary: term ids given in order of first occurrence,
 * frequencies counted in a scratch array by term id (a map per field cost a fifth of a build).
 */
export class ChunkAnalyser {
  readonly terms: string[] = [];
  /** Term → id; a `Map` iterates in insertion order, which is the ids' order. */
  readonly ids = new Map<string, number>();
  private counts = new Int32Array(1 << 16);

  idOf(term: string): number {
    let termId = this.ids.get(term);
    if (termId === undefined) {
      termId = this.terms.length;
      this.ids.set(term, termId);
      this.terms.push(term);
    }
    return termId;
  }

  /** The packed fields of a chunk (see `ChunkAnalysis.fields`). */
  analyse(subject: string, text: string): Uint32Array[] {
    return [subject, text].map((field) => {
      const order: number[] = [];
      for (const term of tokenizeForSearch(field)) {
        const termId = this.idOf(term);
        if (termId >= this.counts.length) this.grow();
        const count = this.counts[termId] as number;
        if (count === 0) order.push(termId);
        this.counts[termId] = count + 1;
      }
      const packed = new Uint32Array(order.length);
      order.forEach((termId, entry) => {
        packed[entry] = termId * 256 + Math.min(this.counts[termId] as number, MAX_TERM_FREQUENCY);
        this.counts[termId] = 0;
      });
      return packed;
    });
  }

  private grow(): void {
    const grown = new Int32Array(this.counts.length * 2);
    grown.set(this.counts);
    this.counts = grown;
  }
}

/** Fewer chunks than this are analysed on the calling thread: a worker takes ~¼ s to start. */
export const PARALLEL_ANALYSIS_THRESHOLD = 4_000;
/** Chunks a worker is given at a time, at most: few enough to balance the workers. */
const BATCH_CHUNKS = 500;
const WORKER_ROLE = 'ticket-index-chunk-analysis';

interface Batch {
  readonly subjects: readonly string[];
  readonly texts: readonly string[];
}
interface BatchResult {
  /** The terms the worker met for the first time in this batch, in term-id order. */
  readonly newTerms: readonly string[];
  /** Per chunk, its subject's then its text's entry count. */
  readonly counts: Uint32Array;
  readonly entries: Uint32Array;
}

/**
 * Analyses chunks in worker threads, one per core (`Intl.Segmenter` is ~¾ of a first start, and
 * a chunk's analysis depends on nothing else). Each worker keeps a vocabulary of its own, so
 * an analysis comes back with its worker's `termOf`; the index maps those ids into its own in
 * chunk order, so the built index is the one a single thread builds (tested).
 *
 * Workers load this module through tsx (the local stack runs from its TypeScript sources).
 */
export async function analyseInWorkers(
  chunks: readonly { readonly subject: string; readonly text: string }[],
  workerCount = availableParallelism(),
): Promise<ChunkAnalysis[]> {
  const analyses = new Array<ChunkAnalysis>(chunks.length);
  let nextChunk = 0;
  // A few batches per worker at least, so a small set is shared out too.
  const batchChunks = Math.max(
    1,
    Math.min(BATCH_CHUNKS, Math.ceil(chunks.length / workerCount / 4)),
  );
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); });`;
  const runWorker = (workers: Worker[]) =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(bootstrap, { eval: true, workerData: { role: WORKER_ROLE } });
      workers.push(worker);
      const terms: string[] = [];
      const termOf = (termId: number) => {
        const term = terms[termId];
        if (term === undefined) throw new Error(`analysis worker: no term ${termId}`);
        return term;
      };
      let batchStart = 0;
      const sendNext = () => {
        batchStart = nextChunk;
        const batchEnd = Math.min(chunks.length, batchStart + batchChunks);
        nextChunk = batchEnd;
        if (batchStart === batchEnd) {
          resolve();
          return;
        }
        const batch = chunks.slice(batchStart, batchEnd);
        worker.postMessage({
          subjects: batch.map((chunk) => chunk.subject),
          texts: batch.map((chunk) => chunk.text),
        } satisfies Batch);
      };
      worker.on('message', (message: 'ready' | BatchResult) => {
        if (message !== 'ready') {
          terms.push(...message.newTerms);
          let entry = 0;
          for (let chunk = 0; chunk * 2 < message.counts.length; chunk += 1) {
            const subjectEnd = entry + (message.counts[chunk * 2] as number);
            const textEnd = subjectEnd + (message.counts[chunk * 2 + 1] as number);
            analyses[batchStart + chunk] = {
              fields: [
                message.entries.subarray(entry, subjectEnd),
                message.entries.subarray(subjectEnd, textEnd),
              ],
              termOf,
            };
            entry = textEnd;
          }
        }
        sendNext();
      });
      worker.on('error', reject);
      worker.on('exit', (code) => {
        if (code !== 0) reject(new Error(`analysis worker exited with code ${code}`));
      });
    });
  const workers: Worker[] = [];
  try {
    await Promise.all(Array.from({ length: Math.max(1, workerCount) }, () => runWorker(workers)));
  } finally {
    // After a failure the others would go on analysing for nothing.
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return analyses;
}

/** In a worker: analyse each batch posted, answering with its entries and the new terms. */
function serveAnalysis(): void {
  const port = parentPort;
  if (port === null) return;
  const analyser = new ChunkAnalyser();
  port.on('message', ({ subjects, texts }: Batch) => {
    const termsBefore = analyser.terms.length;
    const fields = subjects.flatMap((subject, chunk) =>
      analyser.analyse(subject, texts[chunk] as string),
    );
    const entries = new Uint32Array(
      new ArrayBuffer(4 * fields.reduce((total, field) => total + field.length, 0)),
    );
    let offset = 0;
    for (const field of fields) {
      entries.set(field, offset);
      offset += field.length;
    }
    const counts = new Uint32Array(new ArrayBuffer(fields.length * 4));
    fields.forEach((field, entry) => {
      counts[entry] = field.length;
    });
    const result: BatchResult = { newTerms: analyser.terms.slice(termsBefore), counts, entries };
    port.postMessage(result, [counts.buffer, entries.buffer]);
  });
  port.postMessage('ready');
}

if (!isMainThread && (workerData as { role?: unknown } | null)?.role === WORKER_ROLE) {
  serveAnalysis();
}
