import { memo } from 'react';
import type { ReferenceMarks } from '../markdown/render-markdown.js';
import type { LinkMarks } from '../markdown/unverified-links.js';
import { MarkdownBlock } from './markdown-block.js';

/**
 * The completed blocks of a streaming answer. The splitter hands out the same array until a
 * block completes, so this whole list is skipped on the tokens in between.
 */
export const CompletedBlocks = memo(function CompletedBlocks({
  blocks,
  marks,
  links,
}: {
  blocks: readonly string[];
  marks?: ReferenceMarks;
  links?: LinkMarks;
}) {
  return (
    <>
      {blocks.map((block, index) => (
        // Index keys are stable here: blocks are append-only and never reorder.
        // biome-ignore lint/suspicious/noArrayIndexKey: append-only list
        <MarkdownBlock key={index} markdown={block} marks={marks} links={links} />
      ))}
    </>
  );
});
