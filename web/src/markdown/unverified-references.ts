import { findTicketReferences } from '../../../functions/contract/ticket-references.js';

/**
 * Marking the ticket numbers the server could not verify (`result.unverified_references`: cited in
 * the advice or the mail draft but not among the inquiry's retrieved tickets). References are
 * found with the server's own grammar, so the web app marks what the server counted. Marks are
 * built from text and elements only, never from HTML, so model text cannot forge or hide one.
 */

/** The class of a marked reference (styled in app.css, queried by the browser tests). */
export const UNVERIFIED_REFERENCE_CLASS = 'unverified-reference';

/** A run of text, marked when it is an unverified ticket reference. */
export interface TextSegment {
  readonly text: string;
  readonly unverified: boolean;
}

/**
 * Cuts `text` into runs so each reference to a ticket in `unverified` is a run of its own.
 * Concatenating the runs always gives `text` back.
 *
 * @example
 * splitUnverifiedReferences('see #4242 and #1001', ['4242']);
 * // [{ text: 'see ', unverified: false }, { text: '#4242', unverified: true },
 * //  { text: ' and #1001', unverified: false }]
 */
export function splitUnverifiedReferences(
  text: string,
  unverified: readonly string[],
): TextSegment[] {
  if (unverified.length === 0 || text === '') return [{ text, unverified: false }];
  const ids = new Set(unverified);
  const segments: TextSegment[] = [];
  let position = 0;
  for (const reference of findTicketReferences(text)) {
    if (!ids.has(reference.issueId)) continue;
    if (reference.start > position) {
      segments.push({ text: text.slice(position, reference.start), unverified: false });
    }
    segments.push({ text: text.slice(reference.start, reference.end), unverified: true });
    position = reference.end;
  }
  if (position < text.length || segments.length === 0) {
    segments.push({ text: text.slice(position), unverified: false });
  }
  return segments;
}

/**
 * Wraps every unverified reference in the text under `root` (sanitised markdown) in
 * `<span class="unverified-reference" title="…">`. Works on text nodes with DOM calls, so
 * nothing is parsed as HTML; a reference split by markup (`チケット**4242**`) stays unmarked.
 */
export function markUnverifiedReferences(
  root: Node,
  unverified: readonly string[],
  title: string,
): void {
  if (unverified.length === 0) return;
  const document = root.ownerDocument ?? (root as Document);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const textNodes: Text[] = [];
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    textNodes.push(node as Text);
  }
  for (const node of textNodes) {
    const segments = splitUnverifiedReferences(node.data, unverified);
    if (!segments.some((segment) => segment.unverified)) continue;
    const replacement = document.createDocumentFragment();
    for (const segment of segments) {
      if (!segment.unverified) {
        replacement.append(segment.text);
        continue;
      }
      const mark = document.createElement('span');
      mark.className = UNVERIFIED_REFERENCE_CLASS;
      mark.title = title;
      mark.textContent = segment.text;
      replacement.append(mark);
    }
    node.replaceWith(replacement);
  }
}
