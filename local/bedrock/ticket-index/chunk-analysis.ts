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
  // A few batches per worker at least, so a small set is shared out too.
  const batchChunks = Math.max(
    1,
    Math.min(BATCH_CHUNKS, Math.ceil(chunks.length / workerCount / 4)),
  );
  const pool = startAnalysisPool(
    workerCount,
    (first, batch) => {
      batch.forEach((analysis, offset) => {
        analyses[first + offset] = analysis;
      });
    },
    batchChunks,
  );
  for (const chunk of chunks) pool.add(chunk);
  await pool.finish();
  return analyses;
}

/** Worker threads analysing chunks as they are added (`startAnalysisPool`). */
export interface AnalysisPool {
  /** Queues the next chunk; a batch goes to an idle worker once enough are queued. */
  add(chunk: { readonly subject: string; readonly text: string }): void;
  /**
   * Sends what is still queued and settles once every chunk's analysis has been reported, the
   * workers stopped. Rejects when a worker failed (or the report threw): the others are stopped
   * at once, since they would go on analysing for nothing.
   */
  finish(): Promise<void>;
  /** Stops the workers; nothing more is reported. */
  stop(): Promise<void>;
}

/**
 * Starts `workerCount` analysis workers fed batches of at most `batchChunks` chunks as they are
 * added, so the analysis runs while the caller is still finding chunks (a scan reading files)
 * and laying out those analysed. `onAnalysed` receives each batch's analyses with the serial
 * number (order of `add`) of its first chunk, batches in any order.
 */
export function startAnalysisPool(
  workerCount: number,
  onAnalysed: (firstChunk: number, analyses: ChunkAnalysis[]) => void,
  batchChunks = BATCH_CHUNKS,
): AnalysisPool {
  const queue: { readonly subject: string; readonly text: string }[] = [];
  let queueHead = 0;
  /** Serial number of `queue[queueHead]`. */
  let nextSerial = 0;
  let finishing = false;
  let failure: unknown;
  let settle: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); });`;
  const workers = Array.from({ length: Math.max(1, workerCount) }, () => {
    const terms: string[] = [];
    return {
      worker: new Worker(bootstrap, { eval: true, workerData: { role: WORKER_ROLE } }),
      /** The serial number of its batch's first chunk; -1 when idle. */
      busyWith: 'starting' as number | 'starting',
      terms,
      termOf: (termId: number) => {
        const term = terms[termId];
        if (term === undefined) throw new Error(`analysis worker: no term ${termId}`);
        return term;
      },
    };
  });
  let stopping = false;
  const stopAll = () => {
    stopping = true;
    return Promise.all(workers.map(({ worker }) => worker.terminate())).then(() => {});
  };
  const fail = (error: unknown) => {
    if (failure !== undefined) return;
    failure = error;
    void stopAll();
    settle?.reject(error);
  };
  const queued = () => queue.length - queueHead;
  const dispatch = () => {
    for (const state of workers) {
      if (state.busyWith !== -1) continue;
      if (queued() === 0 || (!finishing && queued() < batchChunks)) break;
      const batch = queue.slice(queueHead, queueHead + batchChunks);
      queueHead += batch.length;
      state.busyWith = nextSerial;
      nextSerial += batch.length;
      state.worker.postMessage({
        subjects: batch.map((chunk) => chunk.subject),
        texts: batch.map((chunk) => chunk.text),
      } satisfies Batch);
    }
    // Sent chunks are forgotten: the queue does not hold every text to the end.
    if (queueHead > 4 * batchChunks && queueHead * 2 > queue.length) {
      queue.splice(0, queueHead);
      queueHead = 0;
    }
    if (finishing && queued() === 0 && workers.every((state) => state.busyWith === -1)) {
      void stopAll().then(() => settle?.resolve());
    }
  };
  for (const state of workers) {
    state.worker.on('message', (message: 'ready' | BatchResult) => {
      if (failure !== undefined) return;
      try {
        if (message !== 'ready') {
          const first = state.busyWith as number;
          state.terms.push(...message.newTerms);
          const analyses: ChunkAnalysis[] = [];
          let entry = 0;
          for (let chunk = 0; chunk * 2 < message.counts.length; chunk += 1) {
            const subjectEnd = entry + (message.counts[chunk * 2] as number);
            const textEnd = subjectEnd + (message.counts[chunk * 2 + 1] as number);
            analyses.push({
              fields: [
                message.entries.subarray(entry, subjectEnd),
                message.entries.subarray(subjectEnd, textEnd),
              ],
              termOf: state.termOf,
            });
            entry = textEnd;
          }
          onAnalysed(first, analyses);
        }
        state.busyWith = -1;
        dispatch();
      } catch (error) {
        fail(error);
      }
    });
    state.worker.on('error', fail);
    state.worker.on('exit', (code) => {
      if (!stopping) {
        fail(new Error(`analysis worker exited with code ${code}`));
      }
    });
  }
  return {
    add: (chunk) => {
      if (failure !== undefined) return;
      queue.push(chunk);
      dispatch();
    },
    finish: () =>
      new Promise<void>((resolve, reject) => {
        if (failure !== undefined) {
          reject(failure);
          return;
        }
        settle = { resolve, reject };
        finishing = true;
        dispatch();
      }),
    stop: () => {
      failure ??= new Error('analysis stopped');
      return stopAll();
    },
  };
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
