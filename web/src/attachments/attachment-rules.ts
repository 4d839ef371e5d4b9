import {
  DOWNSCALE_LONG_EDGE_PIXELS,
  IMAGE_MEDIA_TYPES,
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENTS_PER_MESSAGE,
  MAX_TEXT_ATTACHMENT_BYTES,
  TEXT_FILE_EXTENSIONS,
} from '../../../functions/contract/attachments.js';

/**
 * What the composer accepts before anything is read or sent: which files, how many, how large,
 * and the size an image is downscaled to. The server decides again from the bytes (magic
 * numbers) — these rules only spare staff an upload that would be refused, and say why at once.
 */

/**
 * An image is downscaled before it is sent, so the file picked may be larger than what the
 * server accepts ({@link MAX_ATTACHMENT_BYTES}) — but not without end: a file this large is
 * refused before it is read.
 */
export const MAX_IMAGE_FILE_BYTES = 40 * 1024 * 1024;

/** Image types by the name's extension too: a picked or dropped file may come without a type. */
const IMAGE_EXTENSIONS = {
  'image/png': ['.png'],
  'image/jpeg': ['.jpg', '.jpeg'],
  'image/webp': ['.webp'],
  'image/gif': ['.gif'],
} as const satisfies Record<ImageType, readonly string[]>;
export type ImageType = (typeof IMAGE_MEDIA_TYPES)[number];
export type TextType = (typeof TEXT_FILE_EXTENSIONS)[keyof typeof TEXT_FILE_EXTENSIONS];

/** What the file input's `accept` offers: the same types and extensions. */
export const ACCEPTED_FILES = [
  ...IMAGE_MEDIA_TYPES,
  ...Object.values(IMAGE_EXTENSIONS).flat(),
  ...Object.keys(TEXT_FILE_EXTENSIONS),
].join(',');

/** The facts of a `File` the rules look at (a `File` is one). */
export interface FileFacts {
  readonly name: string;
  readonly type: string;
  readonly size: number;
}

export type AttachmentKind =
  | { readonly kind: 'image'; readonly type: ImageType }
  | { readonly kind: 'text'; readonly type: TextType };

/** Why a file was not attached; `limit` is the number the message names. */
export type AttachmentProblem =
  | { readonly code: 'wrong_type' }
  | { readonly code: 'empty' }
  | { readonly code: 'too_large'; readonly limit: number }
  | { readonly code: 'too_many'; readonly limit: number };

export interface RefusedFile {
  readonly name: string;
  readonly problem: AttachmentProblem;
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot).toLowerCase();
}

/**
 * The kind of file this is by its type or name, or why it cannot be attached.
 *
 * @example
 * classifyFile({ name: 'error.log', type: '', size: 1200 }) // { kind: 'text', type: 'text/plain' }
 */
export function classifyFile(file: FileFacts): AttachmentKind | AttachmentProblem {
  const extension = extensionOf(file.name);
  const imageType = IMAGE_MEDIA_TYPES.find(
    (type) =>
      file.type === type ||
      (file.type === '' && (IMAGE_EXTENSIONS[type] as readonly string[]).includes(extension)),
  );
  const textType = Object.hasOwn(TEXT_FILE_EXTENSIONS, extension)
    ? TEXT_FILE_EXTENSIONS[extension as keyof typeof TEXT_FILE_EXTENSIONS]
    : undefined;
  // A name says text while the type says image (or the reverse): the type decides, as the
  // browser derived it from the bytes' source (the clipboard) or the name.
  const kind: AttachmentKind | undefined = imageType
    ? { kind: 'image', type: imageType }
    : textType && !file.type.startsWith('image/')
      ? { kind: 'text', type: textType }
      : undefined;
  if (!kind) return { code: 'wrong_type' };
  if (file.size === 0) return { code: 'empty' };
  const limit = kind.kind === 'image' ? MAX_IMAGE_FILE_BYTES : MAX_TEXT_ATTACHMENT_BYTES;
  if (file.size > limit) return { code: 'too_large', limit };
  return kind;
}

/**
 * Splits files offered at once (a paste, a drop, a pick) into those attached — in order, up to
 * the message's limit counting those `alreadyAttached` — and those refused, each with its reason.
 */
export function admitFiles<F extends FileFacts>(
  files: readonly F[],
  alreadyAttached: number,
): {
  readonly admitted: readonly { readonly file: F; readonly kind: AttachmentKind }[];
  readonly refused: readonly RefusedFile[];
} {
  const admitted: { file: F; kind: AttachmentKind }[] = [];
  const refused: RefusedFile[] = [];
  for (const file of files) {
    const kind = classifyFile(file);
    if ('code' in kind) {
      refused.push({ name: file.name, problem: kind });
    } else if (alreadyAttached + admitted.length >= MAX_ATTACHMENTS_PER_MESSAGE) {
      refused.push({
        name: file.name,
        problem: { code: 'too_many', limit: MAX_ATTACHMENTS_PER_MESSAGE },
      });
    } else {
      admitted.push({ file, kind });
    }
  }
  return { admitted, refused };
}

/**
 * The size an image is drawn at: its long edge at most `maxEdge`, its aspect ratio kept, never
 * enlarged, never below one pixel.
 *
 * @example
 * fitWithin({ width: 4000, height: 3000 }) // { width: 1568, height: 1176 }
 */
export function fitWithin(
  size: { readonly width: number; readonly height: number },
  maxEdge: number = DOWNSCALE_LONG_EDGE_PIXELS,
): { readonly width: number; readonly height: number } {
  const longEdge = Math.max(size.width, size.height);
  if (longEdge <= maxEdge) return { width: size.width, height: size.height };
  const scale = maxEdge / longEdge;
  // The long edge is exactly maxEdge (no rounding drift past it); the other keeps the ratio.
  return size.width >= size.height
    ? { width: maxEdge, height: Math.max(1, Math.round(size.height * scale)) }
    : { width: Math.max(1, Math.round(size.width * scale)), height: maxEdge };
}

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
