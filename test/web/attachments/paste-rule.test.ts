import { describe, expect, it } from 'vitest';
import { filesToAttachOnPaste } from '../../../web/src/attachments/attachment-rules.js';

describe('filesToAttachOnPaste', () => {
  it('attaches an image pasted alone (a screenshot)', () => {
    expect(filesToAttachOnPaste({ files: ['image.png'], text: '' })).toEqual(['image.png']);
  });

  it('leaves cells copied from Office (text and a picture of it) to the text box', () => {
    expect(filesToAttachOnPaste({ files: ['image.png'], text: 'A1\tB1\n' })).toEqual([]);
  });

  it('attaches nothing when only text is pasted', () => {
    expect(filesToAttachOnPaste({ files: [], text: 'エラーです' })).toEqual([]);
  });
});
