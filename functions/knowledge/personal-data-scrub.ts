import * as z from 'zod';
import type { Owner } from '../chat/ports.js';
import { detectLanguage, type Language } from '../contract/language.js';
import {
  findPersonalData,
  foldWidth,
  type Person,
  type ScrubPattern,
} from './personal-data-detectors.js';

/**
 * The personal-data scrub: replaces the personal data the detectors find
 * (personal-data-detectors.ts: e-mail addresses, phone numbers, credentials, My Numbers, card
 * numbers, the names and user ids of the record's people, dictionary names, configured patterns)
 * by typed placeholders in the text's language (`[氏名]`, `[メール]`, `[電話]`, `[秘密]`,
 * `[個人番号]`, `[カード番号]` / `[name]`, `[email]`, `[phone]`, `[secret]`, `[My Number]`,
 * `[card number]`), counts each kind, and reads the deployment's settings file. Shared by the importer
 * (functions/ticket-import) and knowledge capture (ticket-draft, publish-ticket), so both promise the same
 * thing. Pure: no AWS, no file system. Design and limits: docs/adr/0019-personal-data-scrub.md.
 */

// Callers of the scrub name the people and patterns it is given; they are the detectors' types.
export {
  OPTIONAL_SCRUB_PATTERNS,
  type Person,
  type PersonalDataKind,
  peopleNamedIn,
  ROLE_MAILBOXES,
  type ScrubPattern,
} from './personal-data-detectors.js';

/**
 * The conversation's owner as a person field. There is no display name (the owner is a Cognito
 * subject or a dev user id), so the user id stands for it, with its local part when it is an
 * address; `yamada.taro` / `taro_yamada` also yield their name parts (split at `.`/`_` only:
 * `local-user` is an id, not the names "local" and "user").
 */
export function ownerAsPerson(owner: Owner): Person {
  const { userId } = owner;
  return {
    names: [],
    userIds: [userId],
    ...(userId.includes('@') ? { emails: [userId] } : {}),
  };
}

/** The deployment's settings file: extra patterns, a dictionary of names found in no field, texts to keep. */
export interface ScrubSettings {
  readonly patterns?: readonly ScrubPattern[];
  /** Names that are in no person field (executives, frequent requesters…), scrubbed as `name`. */
  readonly dictionary?: readonly string[];
  /**
   * Exact texts never replaced, compared ignoring case and width: shared mailboxes and
   * switchboard numbers that are what a ticket is about (`sales-support@example.co.jp`).
   */
  readonly keep?: readonly string[];
  /**
   * Keep role mailboxes — `helpdesk@`, `support@`, `info@`… ({@link ROLE_MAILBOXES}): they name a
   * function, not a person, and a resolution that says "mail helpdesk@example.co.jp" needs them.
   * @default true
   */
  readonly keepRoleMailboxes?: boolean;
}

/** One scrub call: settings, the record's people and the placeholders' language. */
export interface ScrubOptions extends ScrubSettings {
  readonly people?: readonly Person[];
  readonly language: 'ja' | 'en';
}

/** The scrubbed text and how many spans of each kind were replaced (never the values). */
export interface ScrubResult {
  readonly text: string;
  readonly counts: Readonly<Record<string, number>>;
}

/** The built-in placeholders, per language. */
export const SCRUB_PLACEHOLDERS = {
  ja: {
    name: '[氏名]',
    email: '[メール]',
    phone: '[電話]',
    secret: '[秘密]',
    myNumber: '[個人番号]',
    card: '[カード番号]',
  },
  en: {
    name: '[name]',
    email: '[email]',
    phone: '[phone]',
    secret: '[secret]',
    myNumber: '[My Number]',
    card: '[card number]',
  },
} as const;

type BuiltInKind = keyof (typeof SCRUB_PLACEHOLDERS)['ja'];

function isBuiltInKind(kind: string): kind is BuiltInKind {
  return Object.hasOwn(SCRUB_PLACEHOLDERS.ja, kind);
}

/**
 * Replaces the personal data in `text` by placeholders and counts them per kind. The counts
 * always hold `name`, `email`, `phone`, `secret`, `myNumber`, `card` and every configured
 * pattern's kind (0 when none).
 *
 * @example
 * scrubPersonalData('山田さん（taro@example.co.jp, 090-1234-5678）', {
 *   language: 'ja', people: [{ names: ['山田 太郎'] }],
 * }).text; // '[氏名]さん（[メール], [電話]）'
 */
export function scrubPersonalData(text: string, options: ScrubOptions): ScrubResult {
  const placeholders = SCRUB_PLACEHOLDERS[options.language];
  const counts: Record<string, number> = {
    name: 0,
    email: 0,
    phone: 0,
    secret: 0,
    myNumber: 0,
    card: 0,
  };
  const patterns = options.patterns ?? [];
  for (const pattern of patterns) counts[pattern.kind] ??= 0;

  let spans = findPersonalData(text, options);
  if (options.keep !== undefined && options.keep.length > 0) {
    const kept = new Set(options.keep.map((entry) => foldWidth(entry).trim().toLowerCase()));
    const folded = foldWidth(text);
    spans = spans.filter((span) => !kept.has(folded.slice(span.start, span.end).toLowerCase()));
  }
  let result = '';
  let cursor = 0;
  for (const span of spans) {
    result += text.slice(cursor, span.start);
    result += placeholderFor(span.kind, placeholders, patterns, options.language);
    counts[span.kind] = (counts[span.kind] ?? 0) + 1;
    cursor = span.end;
  }
  result += text.slice(cursor);
  return { text: result, counts };
}

function placeholderFor(
  kind: string,
  builtIn: Readonly<Record<BuiltInKind, string>>,
  patterns: readonly ScrubPattern[],
  language: 'ja' | 'en',
): string {
  if (isBuiltInKind(kind)) return builtIn[kind];
  const pattern = patterns.find((candidate) => candidate.kind === kind);
  return pattern?.placeholder?.[language] ?? `[${kind}]`;
}

/**
 * The placeholders' language for a text: Japanese when it has any kana, or at least two CJK
 * ideographs — one stray kanji in an English ticket does not make its placeholders Japanese.
 */
export function languageOf(text: string): Language {
  return detectLanguage(text, { ideographsWithoutKana: 2 });
}

const ALLOWED_FLAGS = /^[imsu]*$/;

const scrubPatternSchema = z
  .object({
    kind: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_-]{0,39}$/, 'kind must be a word of 1-40 of A-Z a-z 0-9 _ -'),
    pattern: z.string().min(1, 'pattern must not be empty'),
    flags: z.string().regex(ALLOWED_FLAGS, 'flags may only hold i, m, s, u').optional(),
    placeholder: z
      .object({ ja: z.string().min(1), en: z.string().min(1) })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((value, context) => {
    let compiled: RegExp;
    try {
      compiled = new RegExp(value.pattern, `${value.flags ?? ''}g`);
    } catch (error) {
      context.addIssue({
        code: 'custom',
        path: ['pattern'],
        message: `not a valid regular expression: ${(error as Error).message}`,
      });
      return;
    }
    if (compiled.test('')) {
      context.addIssue({
        code: 'custom',
        path: ['pattern'],
        message: 'must not match the empty text (it would match everywhere)',
      });
    }
  });

const scrubSettingsSchema = z
  .object({
    patterns: z.array(scrubPatternSchema).optional(),
    dictionary: z
      .array(z.string().trim().min(1, 'a dictionary entry must not be empty'))
      .optional(),
    keep: z.array(z.string().trim().min(1, 'a keep entry must not be empty')).optional(),
    keepRoleMailboxes: z.boolean().optional(),
  })
  .strict();

/** A settings file that is not valid; the message names each offending field. */
export class ScrubSettingsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ScrubSettingsError';
  }
}

/**
 * Validates a parsed settings file (`{ "patterns": [...], "dictionary": [...] }`).
 *
 * @throws ScrubSettingsError naming the field, e.g. `patterns[1].pattern: not a valid regular expression`.
 */
export function parseScrubSettings(json: unknown): ScrubSettings {
  const parsed = scrubSettingsSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${formatPath(issue.path) || '(settings)'}: ${issue.message}`,
  );
  throw new ScrubSettingsError(`Invalid scrub settings: ${problems.join('; ')}`, {
    cause: parsed.error,
  });
}

function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    text += typeof key === 'number' ? `[${key}]` : text === '' ? String(key) : `.${String(key)}`;
  }
  return text;
}
