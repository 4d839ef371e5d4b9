/**
 * The markup that gives a prompt its structure (ADR 0015): XML-like elements the code writes,
 * around text the code does not control (ticket documents, earlier answers, what staff typed).
 *
 * Text is escaped as it is written — `&` `<` `>` become `&amp;` `&lt;` `&gt;`, and in an
 * attribute value `"` becomes `&quot;` — so no text, whatever it holds, contains a `<`: every tag
 * in a prompt was written by the code, and text can neither open nor close an element. Markdown
 * headings, setext underlines, fake tags, fake labels or odd line separators inside a ticket are
 * characters of its text, not structure. The escaping is a pure function of the text, so an
 * identical input gives identical bytes (prompt caching, ADR 0009, needs that).
 *
 * Part of the contract: the product writes every prompt with it, and the local offline responder
 * reads requests back with {@link parsePromptMarkup}, by the element names of `prompt-data.ts`.
 *
 * The layout is fixed, so {@link parsePromptMarkup} gives back exactly the nodes that
 * {@link renderPromptMarkup} wrote, each text to the character:
 *
 * ```
 * <inquiry>            an opening tag, then a line break
 * text                 a text node
 * </inquiry>           a line break, then the closing tag
 *                      a blank line between siblings
 * <knowledge_base>
 * <ticket issue_id="1234">
 * …
 * </ticket>
 * </knowledge_base>
 * ```
 */

import { ANSWER_LANGUAGE_ELEMENT } from './prompt-data.js';

/** A node of a prompt: text (unescaped) or an element. */
export type PromptNode = string | PromptElement;

/** An element: a name, attributes in the order written, and child nodes. */
export interface PromptElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly PromptNode[];
}

/** Markup that does not follow the layout `renderPromptMarkup` writes. */
export class PromptMarkupError extends Error {
  override readonly name = 'PromptMarkupError';
}

const NAME = /^[a-z][a-z_]*$/;

/**
 * An element node; attributes whose value is `undefined` are left out, so optional fields read
 * as absent rather than empty.
 * @example promptElement('ticket', { issue_id: '1234', score: undefined }, ['text'])
 */
export function promptElement(
  name: string,
  attributes: Readonly<Record<string, string | undefined>> = {},
  children: readonly PromptNode[] = [],
): PromptElement {
  const defined = Object.entries(attributes).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  );
  for (const key of [name, ...defined.map(([key]) => key)]) {
    if (!NAME.test(key)) throw new PromptMarkupError(`Not a markup name: ${JSON.stringify(key)}`);
  }
  return { name, attributes: Object.fromEntries(defined), children };
}

/**
 * The answer language as data (`<answer_language>ja</answer_language>`), first in the user message
 * of every model prompt: the system prompt asks for the language in words, this element carries it
 * for a reader that does not read prose (the local offline responder).
 */
export function answerLanguageElement(language: 'ja' | 'en'): PromptElement {
  return promptElement(ANSWER_LANGUAGE_ELEMENT, {}, [language]);
}

/**
 * Writes nodes as markup: text escaped, elements in the fixed layout. Empty texts are left out
 * and neighbouring texts joined, so what is written is what `parsePromptMarkup` reads back.
 */
export function renderPromptMarkup(nodes: readonly PromptNode[]): string {
  return renderNodes(normalizeNodes(nodes), 'start', 'end');
}

/**
 * Reads markup written by `renderPromptMarkup` back into its nodes (text unescaped).
 * @throws PromptMarkupError on anything else: a `<`, `>` or `&` that is not markup or an
 *   entity, tags that do not nest, or line breaks other than the layout's
 */
export function parsePromptMarkup(markup: string): PromptNode[] {
  const root: { children: PromptNode[] } = { children: [] };
  const open: { name: string; attributes: Record<string, string>; children: PromptNode[] }[] = [];
  let previous: Boundary = 'start';
  let position = 0;
  TAG.lastIndex = 0;
  for (let tag = TAG.exec(markup); tag !== null; tag = TAG.exec(markup)) {
    const [written, slash, name = '', attributeText = ''] = tag;
    const next: Boundary = slash ? 'close' : 'open';
    const parent = open.at(-1) ?? root;
    const text = readSegment(markup.slice(position, tag.index), previous, next);
    if (text !== undefined) parent.children.push(text);
    if (next === 'open') {
      const element = { name, attributes: readAttributes(attributeText), children: [] };
      parent.children.push(element);
      open.push(element);
    } else {
      if (attributeText !== '')
        throw new PromptMarkupError(`A closing tag has attributes: ${written}`);
      const closed = open.pop();
      if (closed?.name !== name) throw new PromptMarkupError(`Unexpected closing tag </${name}>`);
    }
    previous = next;
    position = tag.index + written.length;
  }
  if (open.length > 0) throw new PromptMarkupError(`Unclosed element <${open.at(-1)?.name}>`);
  const text = readSegment(markup.slice(position), previous, 'end');
  if (text !== undefined) root.children.push(text);
  return root.children;
}

/**
 * Escapes text for the inside of an element: it then holds no `<` or `>`, and every `&` starts
 * one of the entities `parsePromptMarkup` reads.
 */
function escapePromptText(text: string): string {
  return text.replace(/[&<>]/g, (character) => ENTITIES[character as '&' | '<' | '>']);
}

const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' } as const;
const CHARACTERS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(ENTITIES).map(([character, entity]) => [entity, character]),
);

const escapeAttribute = (value: string) =>
  value.replace(/[&<>"]/g, (character) => ENTITIES[character as keyof typeof ENTITIES]);

function unescapeText(text: string): string {
  if (/[<>]/.test(text)) throw new PromptMarkupError('A "<" or ">" outside a tag');
  return text.replace(/&[a-z]*;?/g, (entity) => {
    const character = CHARACTERS[entity];
    if (character === undefined) throw new PromptMarkupError(`Unknown entity ${entity}`);
    return character;
  });
}

// A tag: `<name>`, `<name key="value" …>` or `</name>`. Names are lower case words with `_`.
const TAG = /<(\/?)([a-z][a-z_]*)((?: [a-z][a-z_]*="[^"<>]*")*)>/g;
const ATTRIBUTE = / ([a-z][a-z_]*)="([^"<>]*)"/g;

function readAttributes(text: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [, key = '', value = ''] of text.matchAll(ATTRIBUTE)) {
    if (key in attributes) throw new PromptMarkupError(`Attribute ${key} given twice`);
    attributes[key] = unescapeText(value);
  }
  return attributes;
}

// What comes before and after a stretch of text or a line-break run: the layout's line breaks
// depend on the neighbours (see the module comment).
type Boundary = 'start' | 'end' | 'open' | 'close' | 'text';

function lineBreaks(before: Boundary, after: Boundary): string {
  if (before === 'start' || after === 'end') return '';
  if (before === 'open' || after === 'close') return '\n';
  return '\n\n'; // between siblings
}

/** The text between two tags, or `undefined` when it is only the layout's line breaks. */
function readSegment(segment: string, before: Boundary, after: Boundary): string | undefined {
  if (segment === lineBreaks(before, after)) return undefined;
  const prefix = lineBreaks(before, 'text');
  const suffix = lineBreaks('text', after);
  const text = segment.slice(prefix.length, segment.length - suffix.length);
  if (
    !segment.startsWith(prefix) ||
    !segment.endsWith(suffix) ||
    segment.length < prefix.length + suffix.length + 1
  ) {
    throw new PromptMarkupError('Line breaks between tags do not follow the layout');
  }
  return unescapeText(text);
}

function renderNodes(nodes: readonly PromptNode[], before: Boundary, after: Boundary): string {
  if (nodes.length === 0) return lineBreaks(before, after);
  let markup = '';
  let previous = before;
  for (const node of nodes) {
    const kind: Boundary = typeof node === 'string' ? 'text' : 'open';
    markup += lineBreaks(previous, kind);
    if (typeof node === 'string') {
      markup += escapePromptText(node);
      previous = 'text';
    } else {
      const attributes = Object.entries(node.attributes)
        .map(([key, value]) => ` ${key}="${escapeAttribute(value)}"`)
        .join('');
      markup += `<${node.name}${attributes}>${renderNodes(node.children, 'open', 'close')}</${node.name}>`;
      previous = 'close';
    }
  }
  return markup + lineBreaks(previous, after);
}

function normalizeNodes(nodes: readonly PromptNode[]): PromptNode[] {
  const normalized: PromptNode[] = [];
  for (const node of nodes) {
    if (typeof node === 'string') {
      if (node === '') continue;
      const last = normalized.at(-1);
      if (typeof last === 'string') normalized[normalized.length - 1] = last + node;
      else normalized.push(node);
    } else {
      promptElement(node.name, node.attributes); // validates the names
      normalized.push({ ...node, children: normalizeNodes(node.children) });
    }
  }
  return normalized;
}
