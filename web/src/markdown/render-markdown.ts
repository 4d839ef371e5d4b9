import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { renameEventHandlerAttributes } from './rename-event-handler-attributes.js';
import { type LinkMarks, markUnverifiedLinks } from './unverified-links.js';
import { markUnverifiedReferences } from './unverified-references.js';

/**
 * Model output is untrusted: it may echo ticket text or a prompt injection. Markdown is parsed
 * by marked (which passes raw HTML through) and then sanitised by DOMPurify with an allow-list.
 * Images and form controls are not allowed at all: an `<img>` pointing elsewhere can leak data
 * through its URL, and a text field inside an answer invites phishing.
 */
const ALLOWED_TAGS = [
  'p',
  'br',
  'strong',
  'em',
  'del',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'a',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
];
const ALLOWED_ATTR = ['href', 'title', 'start', 'align'];
/**
 * Links keep their href only for absolute http(s) and mailto URLs. Checked in a hook rather
 * than with ALLOWED_URI_REGEXP, which DOMPurify also applies to every other attribute value
 * (it would strip `<ol start="2">`).
 */
const SAFE_HREF = /^(?:https?:|mailto:)/i;

const marked = new Marked({ gfm: true, breaks: true, async: false });
let purifier: ReturnType<typeof DOMPurify> | undefined;

function getPurifier(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier;
  // An own instance, so these hooks never leak into other DOMPurify users on the page.
  purifier = DOMPurify(window);
  purifier.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName !== 'A') return;
    const href = node.getAttribute('href');
    if (href === null) return;
    if (!SAFE_HREF.test(href.trim())) {
      node.removeAttribute('href');
      return;
    }
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  });
  return purifier;
}

/** Ticket references to mark in the rendered text (see `unverified-references.ts`). */
export interface ReferenceMarks {
  /** Ticket numbers from `result.unverified_references`. */
  readonly unverified: readonly string[];
  /** The tooltip of each mark, in the page's language. */
  readonly title: string;
}

/**
 * Markdown → sanitised HTML for `dangerouslySetInnerHTML`. Never returns executable markup.
 * With `links`, links stay anchors only once the server has verified them (`unverified-links.ts`).
 * With `marks`, unverified ticket references are wrapped after sanitising, through DOM calls on
 * text nodes: the marks are ours, and model text can neither forge one (`span` and `class` are
 * not allowed through DOMPurify) nor smuggle markup in through one.
 *
 * @example
 * <div dangerouslySetInnerHTML={{ __html: renderMarkdown(block) }} />
 */
export function renderMarkdown(
  markdown: string,
  marks?: ReferenceMarks,
  links?: LinkMarks,
): string {
  // No parse in the page may meet an `on…` attribute, or the CSP reports it (see the module).
  const html = renameEventHandlerAttributes(marked.parse(markdown, { async: false }));
  const config = { ALLOWED_TAGS, ALLOWED_ATTR, ALLOW_DATA_ATTR: false };
  const markReferences = marks !== undefined && marks.unverified.length > 0;
  if (!markReferences && !links) return getPurifier().sanitize(html, config);
  const fragment = getPurifier().sanitize(html, { ...config, RETURN_DOM_FRAGMENT: true });
  // With `links`, only checked links stay anchors (`unverified-links.ts`).
  if (links) markUnverifiedLinks(fragment, markdown, links);
  if (markReferences) markUnverifiedReferences(fragment, marks.unverified, marks.title);
  const container = document.createElement('div');
  container.append(fragment);
  return container.innerHTML;
}
