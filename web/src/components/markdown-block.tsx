import { memo, useMemo } from 'react';
import { renderMarkdown } from '../markdown/render-markdown.js';

/**
 * One markdown block, parsed and sanitised once per distinct text. Completed blocks never change,
 * so `memo` makes them free on every later token.
 */
export const MarkdownBlock = memo(function MarkdownBlock({ markdown }: { markdown: string }) {
  const html = useMemo(() => renderMarkdown(markdown), [markdown]);
  // Safe: renderMarkdown sanitises with DOMPurify (allow-list, no scripts, no handlers).
  // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised above
  return <div className="markdown-block" dangerouslySetInnerHTML={{ __html: html }} />;
});
