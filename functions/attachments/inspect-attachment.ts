import {
  type AttachmentType,
  IMAGE_MEDIA_TYPES,
  MAX_ATTACHMENT_BYTES,
  MAX_TEXT_ATTACHMENT_BYTES,
  TEXT_FILE_EXTENSIONS,
  TEXT_MEDIA_TYPES,
  type TextEncoding,
} from '../contract/attachments.js';
import { AttachmentRefusedError } from './errors.js';
import { ascii, inspectImage, sniffImageType, startsWith } from './image-formats.js';

/**
 * What an uploaded file is, decided by its bytes (ADR 0030): an image of an accepted type whose
 * header, structure and (for PNG) compressed data check out, its metadata removed; or a text file
 * read as UTF-8 or Shift_JIS and kept as UTF-8. Everything else is refused with the contract's
 * code and a message that says why — before anything is stored. Pure: no I/O but zlib.
 */

/** An accepted file as it is stored. */
export interface InspectedAttachment {
  readonly type: AttachmentType;
  /** The bytes to store: metadata stripped, or the text as UTF-8. */
  readonly bytes: Buffer;
  readonly width?: number;
  readonly height?: number;
  readonly textEncoding?: TextEncoding;
}

type TextType = (typeof TEXT_MEDIA_TYPES)[number];

/**
 * Inspects an upload: `declaredType` is its `content-type` (without parameters, lower case;
 * empty or `application/octet-stream` declare nothing), `name` its file name if any.
 *
 * @example
 * const { type, bytes, width, height } = await inspectAttachment(body, 'image/png');
 */
export async function inspectAttachment(
  body: Buffer,
  declaredType: string,
  name?: string,
): Promise<InspectedAttachment> {
  if (body.length > MAX_ATTACHMENT_BYTES) {
    throw new AttachmentRefusedError(
      'attachment_too_large',
      `The file is ${body.length} bytes; at most ${MAX_ATTACHMENT_BYTES} are accepted`,
    );
  }
  if (body.length === 0) {
    throw new AttachmentRefusedError('attachment_type_refused', 'The file is empty');
  }
  const refused = refusedKind(body);
  if (refused !== undefined) {
    throw new AttachmentRefusedError(
      'attachment_type_refused',
      `${refused} files cannot be attached; attach an image (PNG, JPEG, WebP, GIF) or a text file`,
    );
  }
  const declared = normalizeDeclaredType(declaredType);
  const imageType = sniffImageType(body);
  if (imageType !== undefined) {
    if (declared !== undefined && declared !== imageType) {
      throw new AttachmentRefusedError(
        'attachment_type_refused',
        `The bytes are ${imageType} but the file was declared ${declared}`,
      );
    }
    return inspectImage(imageType, body);
  }
  if (declared !== undefined && !(TEXT_MEDIA_TYPES as readonly string[]).includes(declared)) {
    throw new AttachmentRefusedError(
      'attachment_type_refused',
      (IMAGE_MEDIA_TYPES as readonly string[]).includes(declared)
        ? `The file was declared ${declared} but its bytes are not that image type`
        : `${declared} files cannot be attached; attach an image (PNG, JPEG, WebP, GIF) or a text file`,
    );
  }
  return inspectText(body, (declared as TextType | undefined) ?? textTypeFromName(name));
}

/** The declared media type, or undefined when the upload declared none. */
function normalizeDeclaredType(header: string): string | undefined {
  const type = header.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === '' || type === 'application/octet-stream') return undefined;
  if (type === 'image/jpg' || type === 'image/pjpeg') return 'image/jpeg';
  return type;
}

function textTypeFromName(name: string | undefined): TextType {
  const ending = name?.toLowerCase().match(/\.[a-z0-9]+$/)?.[0];
  return (
    (ending && TEXT_FILE_EXTENSIONS[ending as keyof typeof TEXT_FILE_EXTENSIONS]) || 'text/plain'
  );
}

/**
 * Kinds refused whatever they are declared as: markup a browser would render or run, programs,
 * archives (which could carry either), and PDF (not accepted). Markup is looked for where a
 * browser's sniffer looks: at the start, after a BOM and white space.
 */
function refusedKind(body: Buffer): string | undefined {
  if (startsWith(body, [0x4d, 0x5a])) return 'Executable (Windows)';
  if (startsWith(body, [0x7f, 0x45, 0x4c, 0x46])) return 'Executable (ELF)';
  const magic = body.length >= 4 ? body.readUInt32BE(0) : 0;
  if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(magic)) {
    return 'Executable (Mach-O or Java)';
  }
  if (startsWith(body, [0x23, 0x21])) return 'Script';
  if (startsWith(body, [0x50, 0x4b, 0x03, 0x04]) || startsWith(body, [0x50, 0x4b, 0x05, 0x06])) {
    return 'Archive (ZIP, Office)';
  }
  if (startsWith(body, [0x1f, 0x8b])) return 'Archive (gzip)';
  if (ascii(body, 0, 4) === 'Rar!') return 'Archive (RAR)';
  if (startsWith(body, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return 'Archive (7z)';
  if (ascii(body, 0, 3) === 'BZh') return 'Archive (bzip2)';
  if (startsWith(body, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) return 'Archive (xz)';
  if (startsWith(body, [0x28, 0xb5, 0x2f, 0xfd])) return 'Archive (zstd)';
  if (ascii(body, 257, 5) === 'ustar') return 'Archive (tar)';
  if (startsWith(body, [0xd0, 0xcf, 0x11, 0xe0])) return 'Office (OLE)';
  if (ascii(body, 0, 5) === '%PDF-') return 'PDF';
  const head = body
    .subarray(0, 512)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (/^<svg[\s>]/.test(head) || (/^<\?xml/.test(head) && head.includes('<svg'))) return 'SVG';
  if (
    /^<(!doctype\s+html|html|head|body|script|iframe|style|title|a|b|br|div|font|h1|p|table|img|meta|!--)[\s>/]/.test(
      head,
    )
  ) {
    return 'HTML';
  }
  if (/^<\?xml/.test(head)) return 'XML';
  return undefined;
}

/**
 * A text file: at most {@link MAX_TEXT_ATTACHMENT_BYTES}, no NUL (a binary file), UTF-8 (a BOM
 * dropped) or else Shift_JIS — what Japanese Windows tools write — decoded and kept as UTF-8.
 */
function inspectText(body: Buffer, type: TextType): InspectedAttachment {
  if (body.length > MAX_TEXT_ATTACHMENT_BYTES) {
    throw new AttachmentRefusedError(
      'attachment_too_large',
      `The text file is ${body.length} bytes; at most ${MAX_TEXT_ATTACHMENT_BYTES} are accepted`,
    );
  }
  if (body.includes(0)) {
    throw new AttachmentRefusedError(
      'attachment_type_refused',
      'The file is not text (it holds NUL bytes) nor an accepted image type',
    );
  }
  const utf8 = decodeStrict(body, 'utf-8');
  if (utf8 !== undefined) {
    return { type, bytes: Buffer.from(utf8, 'utf8'), textEncoding: 'utf-8' };
  }
  const shiftJis = decodeStrict(body, 'shift_jis');
  if (shiftJis !== undefined) {
    return { type, bytes: Buffer.from(shiftJis, 'utf8'), textEncoding: 'shift_jis' };
  }
  throw new AttachmentRefusedError(
    'text_not_decodable',
    'The text file is neither UTF-8 nor Shift_JIS; save it as UTF-8 and attach it again',
  );
}

function decodeStrict(body: Buffer, encoding: 'utf-8' | 'shift_jis'): string | undefined {
  try {
    // `ignoreBOM: false` drops a leading BOM.
    return new TextDecoder(encoding, { fatal: true }).decode(body);
  } catch {
    return undefined;
  }
}
