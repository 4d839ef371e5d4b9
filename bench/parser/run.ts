import { pathToFileURL } from 'node:url';
import { competitors, concatThenParse, readEveryCharacter } from './competitors.js';
import { makeAnswerPayload, seededFragments } from './make-answer-payload.js';
import { measurePromptness } from './measure-promptness.js';
import { measureSseOverhead } from './measure-sse-overhead.js';
import { measureThroughput } from './measure-throughput.js';

const SIZES = [
  ['4 KB', 4 * 1024],
  ['64 KB', 64 * 1024],
  ['1 MB', 1024 * 1024],
] as const;
/** A quadratic re-parser is skipped when its estimated run exceeds this. */
const QUADRATIC_LIMIT_S = 60;
/** Token events are batched to at least this many characters in the batched SSE figure. */
const BATCH_CHARS = 80;

const mbps = (bytes: number, ms: number) => {
  const value = bytes / 1e6 / (ms / 1e3);
  return value < 1 ? value.toPrecision(2) : value.toFixed(1);
};
const pad = (text: string, width: number) => text.padEnd(width);

/**
 * Side-by-side benchmark of incremental tool-input parsing. Prints throughput (MB/s of UTF-8
 * input), promptness and SSE overhead with each target beside its figure. Never fails: targets
 * are reported, not asserted.
 */
export async function main(): Promise<void> {
  console.log(`# Tool-input parser benchmark (node ${process.version}, fragments of 1–24 chars)\n`);
  const lastMs = new Map<string, { ms: number; length: number }>();
  for (const [label, size] of SIZES) {
    const payload = makeAnswerPayload(size);
    const fragments = seededFragments(payload.text);
    const bytes = Buffer.byteLength(payload.text);
    console.log(`## ${label}: ${bytes} bytes, ${fragments.length} fragments`);
    const ceilingMs = await measureThroughput(() => concatThenParse(fragments), {
      budgetMs: 1500,
      minRuns: 10,
    });
    const floorMs = await measureThroughput(
      () => {
        readEveryCharacter(fragments);
      },
      { budgetMs: 1500, minRuns: 10 },
    );
    const figures = new Map<string, number>();
    console.log(`  ${pad('concat + JSON.parse (ceiling)', 38)} ${mbps(bytes, ceilingMs)} MB/s`);
    for (const competitor of competitors) {
      const previous = lastMs.get(competitor.name);
      const estimateS = previous
        ? (previous.ms * (payload.text.length / previous.length) ** 2) / 1e3
        : 0;
      if (competitor.quadratic && estimateS > QUADRATIC_LIMIT_S) {
        console.log(
          `  ${pad(competitor.name, 38)} skipped (quadratic: est. ${estimateS.toFixed(0)} s)`,
        );
        continue;
      }
      // A quadratic re-parser runs once, cold: warming it up would take as long as the run.
      const ms = await measureThroughput(
        () => competitor.run(fragments),
        competitor.quadratic
          ? { budgetMs: 0, minRuns: 1, warmUpMs: 0 }
          : { budgetMs: 1500, minRuns: 10 },
      );
      lastMs.set(competitor.name, { ms, length: payload.text.length });
      figures.set(competitor.name, ms);
      console.log(`  ${pad(competitor.name, 38)} ${mbps(bytes, ms)} MB/s`);
    }
    const oursMs = figures.get('this parser') ?? Number.NaN;
    const streamMs = figures.get('@streamparser/json') ?? Number.NaN;
    console.log(
      `  ${pad('(floor: a JS loop reading each char)', 38)} ${mbps(bytes, floorMs)} MB/s`,
    );
    console.log(`  → this parser ÷ ceiling: ${(ceilingMs / oursMs).toFixed(2)}× (target ≥ 0.5×)`);
    console.log(
      `  → this parser ÷ @streamparser/json: ${(streamMs / oursMs).toFixed(1)}× (target ≥ 10×)\n`,
    );
  }

  const payload = makeAnswerPayload(4 * 1024);
  const fragments = seededFragments(payload.text);
  console.log('## Promptness and surrogate safety, 4 KB answer (target: all zero)');
  console.log(
    '  late/early/wrong = fragments after which the shown advice lagged / ran ahead / was not a prefix',
  );
  for (const competitor of competitors) {
    const p = measurePromptness(payload, fragments, await competitor.observe(fragments));
    console.log(
      `  ${pad(competitor.name, 38)} late ${p.lateFragments}, early ${p.earlyFragments}, wrong ${p.wrongFragments}, split-pair pieces ${p.splitPairPieces}, late elements ${p.lateElements}/${payload.elementCloses.length}`,
    );
  }
  const sse = measureSseOverhead(fragments, BATCH_CHARS);
  console.log(
    `\n## SSE bytes on the wire ÷ advice bytes, 4 KB answer (${sse.adviceBytes} advice bytes)`,
  );
  console.log(
    `  one token event per fragment (${sse.events} events): ${sse.perFragment.toFixed(2)} (target ≤ 1.5)`,
  );
  console.log(
    `  token events of ≥ ${BATCH_CHARS} characters (${sse.batchedEvents} events): ${sse.batched.toFixed(2)} (target ≤ 1.5)`,
  );
  console.log(`  one token event per character: ${sse.perCharacter.toFixed(2)}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
