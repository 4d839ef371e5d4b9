import { memo, useMemo } from 'react';
import { type ReferenceMarks, renderMarkdown } from '../markdown/render-markdown.js';
import type { LinkMarks } from '../markdown/unverified-links.js';

/**
 * One markdown block, parsed and sanitised once per distinct text (and once more when the result
 * brings marks). Completed blocks never change, so `memo` makes them free on every later token.
 */
export const MarkdownBlock = memo(function MarkdownBlock({
  markdown,
  marks,
  links,
}: {
  markdown: string;
  /** Unverified ticket references to mark; keep the object stable, or every block re-renders. */
  marks?: ReferenceMarks;
  /** The server's verdict on links (stable as `marks`); absent: links render as anchors. */
  links?: LinkMarks;
}) {
  const html = useMemo(() => renderMarkdown(markdown, marks, links), [markdown, marks, links]);
  // Safe: renderMarkdown sanitises with DOMPurify (allow-list, no scripts, no handlers).
  // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised above
  return <div className="markdown-block" dangerouslySetInnerHTML={{ __html: html }} />;
});
