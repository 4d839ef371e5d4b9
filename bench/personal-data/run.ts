/**
 * Personal data in free text, measured (`npm run bench:personal-data`): recall per kind of
 * personal item and precision on technical terms, on the labelled set in
 * eval/personal-data/service-desk-texts.txt, for the pattern scrub alone (what every scrub does:
 * detectors and phrasing, personal-data-detectors.ts) and with the person-name analyzer
 * (person-name-analyzer.ts: kuromoji + compromise) added; and the analyzer's load time, memory and
 * cost per text. Figures go to bench/README.md and ADR 0019. Prints the misses, so a reader sees
 * what is still out of reach.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  loadPersonNameAnalyzer,
  type PersonNameAnalyzer,
  peopleFromNames,
} from '../../functions/knowledge/person-name-analyzer.js';
import {
  findPersonalData,
  type PersonalDataSpan,
  peopleNamedIn,
} from '../../functions/knowledge/personal-data-detectors.js';

/** One labelled item: its kind and its place in the plain text. */
export interface LabelledItem {
  readonly kind: string;
  readonly start: number;
  readonly end: number;
  readonly value: string;
}

export interface LabelledText {
  readonly text: string;
  readonly items: readonly LabelledItem[];
}

const MARK = /⟦([a-z]+):([^⟧]*)⟧/g;

/** A line of the set as its plain text and items (`\n` in a line is a line break). */
export function parseLabelledLine(line: string): LabelledText {
  const source = line.replace(/\\n/g, '\n');
  const items: LabelledItem[] = [];
  let text = '';
  let cursor = 0;
  for (const match of source.matchAll(MARK)) {
    text += source.slice(cursor, match.index);
    const kind = match[1] as string;
    const value = match[2] as string;
    items.push({ kind, start: text.length, end: text.length + value.length, value });
    text += value;
    cursor = match.index + match[0].length;
  }
  text += source.slice(cursor);
  return { text, items };
}

export function readLabelledSet(path: string): LabelledText[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(parseLabelledLine);
}

type Finder = (text: string) => PersonalDataSpan[];

interface Tally {
  found: number;
  total: number;
  readonly misses: string[];
}

export interface Scores {
  /** Per personal kind: items wholly inside a span, of all. */
  readonly recall: Record<string, Tally>;
  /** Terms no span touches, of all terms. */
  readonly terms: Tally;
}

export function score(set: readonly LabelledText[], find: Finder): Scores {
  const recall: Record<string, Tally> = {};
  const terms: Tally = { found: 0, total: 0, misses: [] };
  for (const { text, items } of set) {
    const spans = find(text);
    for (const item of items) {
      if (item.kind === 'term') {
        terms.total += 1;
        const touched = spans.some((span) => span.start < item.end && span.end > item.start);
        if (touched) terms.misses.push(item.value);
        else terms.found += 1;
        continue;
      }
      recall[item.kind] ??= { found: 0, total: 0, misses: [] };
      const tally = recall[item.kind] as Tally;
      tally.total += 1;
      let covered = true;
      for (let offset = item.start; offset < item.end && covered; offset += 1) {
        if (/\s/.test(text[offset] ?? '')) continue;
        covered = spans.some((span) => span.start <= offset && offset < span.end);
      }
      if (covered) tally.found += 1;
      else tally.misses.push(item.value);
    }
  }
  return { recall, terms };
}

function patternFinder(text: string): PersonalDataSpan[] {
  return findPersonalData(text, { people: peopleNamedIn(text) });
}

function analyzerFinder(analyzer: PersonNameAnalyzer): Finder {
  return (text) =>
    findPersonalData(text, {
      people: [...peopleNamedIn(text), ...peopleFromNames(analyzer.names(text))],
    });
}

const ratio = (tally: Tally) => (tally.total === 0 ? '—' : (tally.found / tally.total).toFixed(3));

/** The labelled files: the set the detectors were written against, and one written after them. */
const SETS = ['service-desk-texts.txt', 'untuned-texts.txt'] as const;

function printScores(label: string, size: number, patterns: Scores, withAnalyzer: Scores): void {
  const kinds = [
    ...new Set([...Object.keys(patterns.recall), ...Object.keys(withAnalyzer.recall)]),
  ];
  console.log(`\n${label}: ${size} texts`);
  console.log('kind        items  patterns  +analyzer');
  for (const kind of kinds.sort()) {
    const a = patterns.recall[kind] as Tally;
    const b = withAnalyzer.recall[kind] as Tally;
    console.log(
      `${kind.padEnd(10)} ${String(a.total).padStart(6)}  ${ratio(a).padStart(8)}  ${ratio(b).padStart(9)}`,
    );
  }
  console.log(
    `${'term kept'.padEnd(10)} ${String(patterns.terms.total).padStart(6)}  ${ratio(patterns.terms).padStart(8)}  ${ratio(withAnalyzer.terms).padStart(9)}`,
  );
  for (const kind of kinds) {
    const misses = withAnalyzer.recall[kind]?.misses ?? [];
    if (misses.length > 0) console.log(`  missed ${kind}: ${misses.join(' | ')}`);
  }
  if (withAnalyzer.terms.misses.length > 0)
    console.log(`  terms touched: ${withAnalyzer.terms.misses.join(' | ')}`);
}

export async function main(): Promise<void> {
  const rssBefore = process.memoryUsage().rss;
  const heapBefore = process.memoryUsage().heapUsed;
  const loadStart = performance.now();
  const analyzer = await loadPersonNameAnalyzer();
  const loadMs = performance.now() - loadStart;
  const rssAfter = process.memoryUsage().rss;
  const heapAfter = process.memoryUsage().heapUsed;
  console.log(
    `analyzer load ${loadMs.toFixed(0)} ms, RSS +${((rssAfter - rssBefore) / 2 ** 20).toFixed(0)} MB, heap +${((heapAfter - heapBefore) / 2 ** 20).toFixed(0)} MB`,
  );

  for (const name of SETS) {
    const path = fileURLToPath(new URL(`../../eval/personal-data/${name}`, import.meta.url));
    const set = readLabelledSet(path);
    printScores(name, set.length, score(set, patternFinder), score(set, analyzerFinder(analyzer)));
    const timed = performance.now();
    for (const { text } of set) analyzer.names(text);
    console.log(`  analyzer ${((performance.now() - timed) / set.length).toFixed(2)} ms per text`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
