/**
 * The files a paste attaches: those on the clipboard when it holds no text. A screenshot tool
 * puts an image alone; Office copies cells as text *and* as a picture of them, and staff pasting
 * cells mean the text — which the textarea then receives as usual.
 *
 * @example
 * const files = filesToAttachOnPaste({ files: [...e.clipboardData.files], text: e.clipboardData.getData('text/plain') });
 * if (files.length > 0) { e.preventDefault(); attach(files); }
 */
export function filesToAttachOnPaste<F>(clipboard: {
  readonly files: readonly F[];
  readonly text: string;
}): readonly F[] {
  return clipboard.text === '' ? clipboard.files : [];
}
