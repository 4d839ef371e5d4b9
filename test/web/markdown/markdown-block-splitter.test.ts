import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMarkdownBlockSplitter } from '../../../web/src/markdown/markdown-block-splitter.js';

/** Feeds `text` in pieces of the given sizes and returns every intermediate split. */
function feed(text: string, sizes: readonly number[]) {
  const splitter = createMarkdownBlockSplitter();
  const splits = [];
  let end = 0;
  for (const size of [...sizes, text.length]) {
    end = Math.min(text.length, end + size);
    splits.push(splitter.update(text.slice(0, end)));
    if (end === text.length) break;
  }
  return splits;
}

const markdownPiece = fc.constantFrom(
  'テキスト',
  'word ',
  '\n',
  '\n\n',
  '- item\n',
  '1. step\n',
  '```\n',
  '```js\n',
  '~~~\n',
  '   \n',
  '# 見出し\n',
  '> quote\n',
  '**bold**',
  '`code`',
  '|a|b|\n|-|-|\n',
);
const markdownText = fc.array(markdownPiece, { maxLength: 60 }).map((pieces) => pieces.join(''));

describe('createMarkdownBlockSplitter', () => {
  it('closes a block at a blank line and keeps the rest open', () => {
    const split = createMarkdownBlockSplitter().update('# 手順\n\n1. 再起動\n2. 確認');
    expect(split.blocks).toEqual(['# 手順\n\n']);
    expect(split.tail).toBe('1. 再起動\n2. 確認');
  });

  it('does not split inside a fenced code block', () => {
    const text = '```\na\n\nb\n```\n\nafter';
    expect(createMarkdownBlockSplitter().update(text)).toEqual({
      blocks: ['```\na\n\nb\n```\n\n'],
      tail: 'after',
    });
  });

  it('does not close a fence on a line with an info string', () => {
    const split = createMarkdownBlockSplitter().update('```\n```js\n\nstill code');
    expect(split.blocks).toEqual([]);
  });

  it('returns the same blocks array until a new block completes', () => {
    const splitter = createMarkdownBlockSplitter();
    const first = splitter.update('a\n\nb');
    expect(splitter.update('a\n\nbc').blocks).toBe(first.blocks);
    expect(splitter.update('a\n\nbc\n\n').blocks).not.toBe(first.blocks);
  });

  it('starts over when the text is replaced rather than appended', () => {
    const splitter = createMarkdownBlockSplitter();
    splitter.update('old\n\nblock');
    expect(splitter.update('new')).toEqual({ blocks: [], tail: 'new' });
  });

  it('always concatenates back to the input, whatever the chunking', () => {
    fc.assert(
      fc.property(markdownText, fc.array(fc.integer({ min: 1, max: 12 })), (text, sizes) => {
        const splits = feed(text, sizes);
        const last = splits.at(-1);
        expect(last && last.blocks.join('') + last.tail).toBe(text);
      }),
    );
  });

  it('never changes a completed block as text is appended', () => {
    fc.assert(
      fc.property(markdownText, fc.array(fc.integer({ min: 1, max: 12 })), (text, sizes) => {
        const splits = feed(text, sizes);
        for (let i = 1; i < splits.length; i += 1) {
          const before = splits[i - 1]?.blocks ?? [];
          expect(splits[i]?.blocks.slice(0, before.length)).toEqual(before);
        }
      }),
    );
  });

  it('splits the same way whether the text arrives at once or in pieces', () => {
    fc.assert(
      fc.property(markdownText, fc.array(fc.integer({ min: 1, max: 12 })), (text, sizes) => {
        const whole = createMarkdownBlockSplitter().update(text);
        expect(feed(text, sizes).at(-1)).toEqual(whole);
      }),
    );
  });
});
