import { useMemo, useRef } from 'react';
import { createMarkdownBlockSplitter } from '../markdown/markdown-block-splitter.js';
import type { ReferenceMarks } from '../markdown/render-markdown.js';
import type { LinkMarks } from '../markdown/unverified-links.js';
import { CompletedBlocks } from './completed-blocks.js';
import { MarkdownBlock } from './markdown-block.js';

/**
 * Advice markdown that may still be growing. Only the open last block is parsed again per
 * token; earlier blocks were rendered once (see docs/adr/0006-streaming-markdown-rendering.md).
 */
export function StreamingMarkdown({
  text,
  marks,
  links,
}: {
  text: string;
  marks?: ReferenceMarks;
  links?: LinkMarks;
}) {
  const splitter = useRef<ReturnType<typeof createMarkdownBlockSplitter>>(undefined);
  splitter.current ??= createMarkdownBlockSplitter();
  const current = splitter.current;
  const { blocks, tail } = useMemo(() => current.update(text), [current, text]);
  return (
    <div className="markdown">
      <CompletedBlocks blocks={blocks} marks={marks} links={links} />
      {tail.trim() !== '' && <MarkdownBlock markdown={tail} marks={marks} links={links} />}
    </div>
  );
}
