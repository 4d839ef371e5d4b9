import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';

/**
 * Stack traces of a bundled function in terms of its sources (`functions/chat/run-chat.ts:120:9`
 * instead of `index.mjs:39:32634`), with each bundle file's source map read the first time one of
 * its frames is printed rather than at module load (ADR 0034).
 *
 * Every bundle esbuild builds for the app injects this module (`inject`), so it runs before the
 * bundle's own code. Node's `--enable-source-maps` does the same mapping but reads and indexes
 * every loaded file's map during module init, on the cold start's path, for traces most execution
 * environments never print. Nothing is installed when Node already maps (`--enable-source-maps`).
 * Only bundles inject it: code run from its sources (the tests, under the test runner's own
 * mapping) never loads it.
 */

/** Per generated file (`file:///var/task/index.mjs`): its parsed map, or null when it has none. */
const mapsByFile = new Map<string, TraceMap | null>();

/** What V8 hands `prepareStackTrace`, one per frame. */
type CallSite = NodeJS.CallSite;

/**
 * Formats as Node does (`Error.prototype.toString`, then a line per frame), each frame of a file
 * with a source map written with its original position and, where the map names it, the
 * function's original name — the same form `--enable-source-maps` prints.
 */
function formatStackWithSources(error: Error, frames: CallSite[]): string {
  let header: string;
  try {
    header = Error.prototype.toString.call(error);
  } catch {
    header = '<error>';
  }
  if (frames.length === 0) return header;
  const lines = frames.map((_, index) => `    at ${describeFrame(frames, index)}`);
  return `${header}\n${lines.join('\n')}`;
}

function describeFrame(frames: CallSite[], index: number): string {
  const frame = frames[index] as CallSite;
  try {
    const file = frame.getFileName();
    const line = frame.getLineNumber();
    const column = frame.getColumnNumber();
    const map = file ? mapOf(file) : null;
    if (!map || line === null || column === null) return frame.toString();
    const original = originalPositionFor(map, { line, column: column - 1 });
    if (original.source === null || original.line === null) return frame.toString();
    const name = originalNameOf(map, frames, index) ?? generatedNameOf(frame);
    const where = `${readableSource(original.source)}:${original.line}:${original.column + 1}`;
    const prefix = `${frame.isAsync() ? 'async ' : ''}${frame.isConstructor() ? 'new ' : ''}`;
    return name ? `${prefix}${name} (${where})` : `${prefix}${where}`;
  } catch {
    // A trace must never fail to print: the generated frame is still a location.
    return frame.toString();
  }
}

/**
 * The enclosing function's name where the map records one (esbuild names the renamed ones), else
 * the name the caller's position records, as Node's own mapping does.
 */
function originalNameOf(map: TraceMap, frames: CallSite[], index: number): string | undefined {
  const frame = frames[index] as CallSite;
  const line = frame.getEnclosingLineNumber();
  const column = frame.getEnclosingColumnNumber();
  if (line && column) {
    const enclosing = originalPositionFor(map, { line, column: column - 1 });
    if (enclosing.name) return enclosing.name;
  }
  const caller = frames[index + 1];
  const callerLine = caller?.getLineNumber();
  const callerColumn = caller?.getColumnNumber();
  if (caller?.getFileName() === frame.getFileName() && callerLine && callerColumn) {
    return (
      originalPositionFor(map, { line: callerLine, column: callerColumn - 1 }).name ?? undefined
    );
  }
  return undefined;
}

function generatedNameOf(frame: CallSite): string | undefined {
  const name = frame.getFunctionName() ?? frame.getMethodName();
  const type = frame.getTypeName();
  const owner = type !== null && type !== 'global' && !frame.isConstructor() ? `${type}.` : '';
  return name ? `${owner}${name}` : undefined;
}

function mapOf(file: string): TraceMap | null {
  const known = mapsByFile.get(file);
  if (known !== undefined) return known;
  let map: TraceMap | null = null;
  if (file.startsWith('file://') || file.startsWith('/')) {
    const path = file.startsWith('file://') ? fileURLToPath(file) : file;
    try {
      map = new TraceMap(readFileSync(`${path}.map`, 'utf8'));
    } catch {
      // No map beside it (Node's own files, a file built without one): printed as generated.
    }
  }
  mapsByFile.set(file, map);
  return map;
}

/**
 * A source as the map records it, relative to the bundle's folder at build time
 * (`../../functions/chat/run-chat.ts`): without the climb out of that folder, which says where
 * the build ran and nothing about the code.
 */
function readableSource(source: string): string {
  return source.replace(/^(\.\.\/)+/, '');
}

// Last, so everything the formatter uses is initialised before the first trace it prints.
if (!process.sourceMapsEnabled) {
  Error.prepareStackTrace = formatStackWithSources;
}
