import { memo, useMemo } from 'react';
import { type ReferenceMarks, renderMarkdown } from '../markdown/render-markdown.js';

/**
 * One markdown block, parsed and sanitised once per distinct text (and once more when the result
 * brings marks). Completed blocks never change, so `memo` makes them free on every later token.
 */
export const MarkdownBlock = memo(function MarkdownBlock({
  markdown,
  marks,
}: {
  markdown: string;
  /** Unverified ticket references to mark; keep the object stable, or every block re-renders. */
  marks?: ReferenceMarks;
}) {
  const html = useMemo(() => renderMarkdown(markdown, marks), [markdown, marks]);
  // Safe: renderMarkdown sanitises with DOMPurify (allow-list, no scripts, no handlers).
  // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised above
  return <div className="markdown-block" dangerouslySetInnerHTML={{ __html: html }} />;
});
