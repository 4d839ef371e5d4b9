import DOMPurify from 'dompurify';
import { Marked } from 'marked';

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

/**
 * Markdown → sanitised HTML for `dangerouslySetInnerHTML`. Never returns executable markup.
 *
 * @example
 * <div dangerouslySetInnerHTML={{ __html: renderMarkdown(block) }} />
 */
export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown, { async: false });
  return getPurifier().sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
  });
}
