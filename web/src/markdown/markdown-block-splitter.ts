/**
 * Splits streaming markdown into completed blocks plus one open tail, incrementally.
 *
 * A block completes at a blank line outside a fenced code block. Completed blocks never change
 * afterwards, so each is rendered once and memoised; only the tail is re-rendered per token.
 * Each `update` scans only the characters added since the last call, so the cost per token
 * does not grow with the answer. Concatenating `blocks` and `tail` always gives the input.
 *
 * @example
 * const splitter = createMarkdownBlockSplitter();
 * const { blocks, tail } = splitter.update(textSoFar);
 */
export interface MarkdownSplit {
  /** Completed blocks. The same array instance is returned until a new block completes. */
  readonly blocks: readonly string[];
  /** The open block still receiving text. */
  readonly tail: string;
}

export interface MarkdownBlockSplitter {
  update(text: string): MarkdownSplit;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function createMarkdownBlockSplitter(): MarkdownBlockSplitter {
  let text = '';
  let blocks: readonly string[] = [];
  let blockStart = 0; // where the open block begins
  let lineStart = 0; // first character of the line not yet classified
  let fence: string | undefined; // the opening fence while inside a code block
  let hasContent = false; // the open block has a non-blank line (blank-only blocks never close)

  function reset(): void {
    text = '';
    blocks = [];
    blockStart = 0;
    lineStart = 0;
    fence = undefined;
    hasContent = false;
  }

  return {
    update(next) {
      // Streams only append; anything else (a replaced answer) starts over.
      if (!next.startsWith(text)) reset();
      text = next;
      const added: string[] = [];
      let newline = text.indexOf('\n', lineStart);
      while (newline !== -1) {
        const line = text.slice(lineStart, newline);
        const marker = FENCE.exec(line)?.[1];
        if (fence !== undefined) {
          if (
            marker &&
            marker[0] === fence[0] &&
            marker.length >= fence.length &&
            line.trim() === marker
          ) {
            fence = undefined; // a closing fence carries no info string
          }
        } else if (marker !== undefined) {
          fence = marker;
          hasContent = true;
        } else if (line.trim() === '') {
          if (hasContent) {
            added.push(text.slice(blockStart, newline + 1));
            blockStart = newline + 1;
            hasContent = false;
          }
        } else {
          hasContent = true;
        }
        lineStart = newline + 1;
        newline = text.indexOf('\n', lineStart);
      }
      if (added.length > 0) blocks = [...blocks, ...added];
      return { blocks, tail: text.slice(blockStart) };
    },
  };
}
