import type { ModelScript } from '../../local/bedrock/model-script.js';

/**
 * Matches one fragment marker, `⟦s12f34⟧` = stream 12, fragment 34. The parser emits at most
 * one text delta per upstream fragment, so one marker per fragment maps 1:1 to a `token` event
 * (and stays whole even if `token` events are ever batched).
 */
export const MARKER_PATTERN = /⟦s\d+f\d+⟧/g;

const PREFIX = '{"response_type":"results","general_advice":"';
const SUFFIX = '","results":[],"todo_actions":["確認する"]}';
const TEXTS = [
  'パスワードの有効期限を確認します。',
  'Clear the browser cache. ',
  '再起動後に再度サインインしてください。\\n',
];

export interface MarkedAnswerOptions {
  /** Unique across the whole run, so markers never repeat. */
  readonly stream: number;
  /** Advice fragments, each with its marker; one unmarked closing fragment follows. */
  readonly fragments: number;
  readonly delayMs: number;
}

/**
 * A scripted forced-tool answer whose advice arrives in `fragments` pieces of ~25 characters,
 * each starting with its own marker. The first piece already carries advice text, so the first
 * `contentBlockDelta` becomes the first `token` event.
 */
export function markedAnswerScript(options: MarkedAnswerOptions): ModelScript {
  const fragments: string[] = [];
  for (let index = 0; index < options.fragments; index++) {
    const text = `⟦s${options.stream}f${index}⟧ ${TEXTS[index % TEXTS.length]}`;
    fragments.push(index === 0 ? PREFIX + text : text);
  }
  fragments.push(SUFFIX);
  return { kind: 'stream', fragments, delayMs: options.delayMs, initialDelayMs: 0 };
}

/** The first marker in `text`, if any. */
export function firstMarker(text: string): string | undefined {
  return text.match(new RegExp(MARKER_PATTERN.source))?.[0];
}
