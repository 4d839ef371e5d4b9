/**
 * Ticket numbers: how they are written in free text and in a field, their one canonical form per
 * ticket, and how a card shows them (docs/adr/0020-source-ticket-numbers.md). One grammar for the
 * server, which reads staff's references in an inquiry and checks the model's citations in an
 * answer, the web app, which marks the citations the server could not verify and shows the card's
 * number, and the importer, which writes the canonical form into each sidecar's `issue_id`.
 *
 * The canonical forms, one per kind of source, never equal across kinds:
 *
 * | kind                               | canonical      | written as (examples)                             |
 * | ---------------------------------- | -------------- | ------------------------------------------------- |
 * | the app's own (samples, capture)   | `1001`         | `#1001`, `チケット１００１`, `ticket no. 1001`      |
 * | ServiceNow (letters + digits)      | `INC0012345`   | `INC0012345`, `inc0012345`, `ＲＩＴＭ００１２３４５`   |
 * | Jira (project key, hyphen, number) | `ITSD-123`     | `ITSD-123`, `ＩＴＳＤ－１２３`                       |
 * | Zendesk (numeric, source-qualified)| `ZD#35436`     | `#35436`, `ZD#35436`, `Zendesk #35436`            |
 *
 * ServiceNow numbers keep their digits as written (`INC0012345` and `INC12345` are different
 * records there; `INC0012345` and `RITM0012345` are two tickets); Jira numbers and numeric ids
 * lose leading zeros. A bare number (`#35436`) names the app's ticket 35436 or, where there is none,
 * Zendesk's ({@link issueIdLookupKeys}, {@link resolveIssueId}). A number without a prefix is not
 * a reference in free text: `内線1234` is a phone extension.
 */

// ---------------------------------------------------------------------------------------------
// Canonical forms

const NUMERIC_ID = /^[0-9]{1,12}$/;
const ZENDESK_ID = /^ZD#[1-9][0-9]{0,11}$/;
/** A Jira issue key: a project key (a letter, then letters, digits or `_`) and the issue number. */
const JIRA_ID = /^[A-Z][A-Z0-9_]{1,9}-[1-9][0-9]{0,11}$/;
/** A ServiceNow number: the table's prefix letters and the digits, zero-padded as the source pads them. */
const SERVICENOW_ID = /^[A-Z]{2,8}[0-9]{1,12}$/;

/** The form a Zendesk ticket's number takes here: `ZD#` and the number. */
const ZENDESK_PREFIX = 'ZD#';

/** Which system a canonical ticket number belongs to. */
export type IssueIdKind = 'app' | 'servicenow' | 'jira' | 'zendesk';

/**
 * The kind of a canonical issue id, or `undefined` when `issueId` is not in canonical form (pass
 * it through {@link canonicalIssueId} first).
 */
export function issueIdKind(issueId: string): IssueIdKind | undefined {
  if (NUMERIC_ID.test(issueId)) return String(Number(issueId)) === issueId ? 'app' : undefined;
  if (ZENDESK_ID.test(issueId)) return 'zendesk';
  if (JIRA_ID.test(issueId)) return 'jira';
  if (SERVICENOW_ID.test(issueId)) return 'servicenow';
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Free text

/** What may stand before the app's digits: `#`, `チケット番号：＃`, `Ticket No.` (after NFKC). */
const NUMERIC_PREFIX = String.raw`(?:#|チケット(?:番号)?\s*:?\s*#?|\bticket\s*(?:no\.?|number)?\s*[:#]?\s*)`;

/** `ZD#35436`, `Zendesk #35436`, `zendesk ticket 35436`. */
const ZENDESK_PREFIX_TEXT = String.raw`(?:\bzendesk\s*(?:ticket\s*)?#?\s*|\bzd\s*#\s*)`;

/**
 * The ServiceNow tables whose numbers are tickets (incident, requested item, request, catalog and
 * other tasks, change, problem, security incident). Free text knows only these: `KB5034441` is a
 * Windows update and `USB3000` a product, not records. A field (a card's `issue_id`) takes any prefix.
 */
const SERVICENOW_TICKET_PREFIXES = 'INC|RITM|REQ|SCTASK|TASK|CHG|CTASK|PRB|PTASK|SIR';

/**
 * Case-insensitive references (matched on the NFKC text): Zendesk first, so `ZD#1234` is
 * Zendesk's and not `#1234`; then the app's numbers (3–8 digits, so `#12` and years are none);
 * then ServiceNow numbers of the ticket tables.
 */
const CASELESS_REFERENCE = new RegExp(
  [
    `${ZENDESK_PREFIX_TEXT}(?<zendesk>[0-9]{1,12})(?![0-9])`,
    `${NUMERIC_PREFIX}(?<app>[0-9]{3,8})(?![0-9])`,
    `(?<![A-Za-z0-9_])(?<servicenow>(?:${SERVICENOW_TICKET_PREFIXES})[0-9]{4,10})(?![0-9A-Za-z_])`,
  ].join('|'),
  'giu',
);

/**
 * Case-sensitive references: Jira keys as Jira writes them (upper case), and ServiceNow numbers
 * with another prefix in their default width (2–6 capitals, seven digits, zero-padded:
 * `HRC0001234`). A Jira key ends at its number: not before `.digit` (`TLS-1.2`, a version) nor
 * `-digit` (`FAX-03-1234-5678`, a phone number), and Jira numbers never start with 0.
 */
const CASED_REFERENCE =
  /(?<![A-Za-z0-9_])(?:(?<jira>[A-Z][A-Z0-9_]{1,9}-[1-9][0-9]{0,6})(?![0-9A-Za-z_]|[.-][0-9])|(?<servicenow>[A-Z]{2,6}0[0-9]{6})(?![0-9A-Za-z_]))/gu;

/**
 * Upper-case words that take a hyphen and a number in IT text without being Jira projects:
 * algorithms, encodings, standards, protocols (`SHA-256`, `UTF-8`, `ISO-27001`, `COVID-19`). Free
 * text never reads them as a Jira key; a field (a card's `issue_id`) still does.
 */
export const NOT_JIRA_PROJECT_KEYS: ReadonlySet<string> = new Set(
  (
    'AES BS CP CRC CVE COVID DDR DES DSA ECC ECMA ES EUC GPT HMAC HTTP IE IEC IEEE IPV ISO JDK ' +
    'JIS LTE MD MP MPEG PCI PS RFC RSA SHA SMB SSL TLS USB UTF WPA'
  ).split(' '),
);

/** One reference as written: where it is in the original text and the ticket it names. */
export interface TicketReference {
  /** UTF-16 offset of the reference (prefix included) in the text as given. */
  readonly start: number;
  /** UTF-16 offset just after its last digit. */
  readonly end: number;
  /** The ticket number in canonical form (`#0042` → `42`, `inc0012345` → `INC0012345`). */
  readonly issueId: string;
}

/**
 * Every ticket reference in `text`, in order, with offsets into `text` itself. Matching runs on
 * the NFKC form of each character (so `＃１２３４`, `ﾁｹｯﾄ1234` and `ＩＮＣ００１２３４５` count) while
 * the offsets stay those of the original, so a caller can wrap exactly what was written.
 *
 * @example
 * findTicketReferences('see #1001, INC0012345 and ITSD-12');
 * // [{ start: 4, end: 9, issueId: '1001' }, { start: 11, end: 21, issueId: 'INC0012345' },
 * //  { start: 26, end: 33, issueId: 'ITSD-12' }]
 */
export function findTicketReferences(text: string): TicketReference[] {
  const { normalized, offsets } = normalizeWithOffsets(text);
  const found: { start: number; end: number; issueId: string }[] = [];
  for (const match of normalized.matchAll(CASELESS_REFERENCE)) {
    const { zendesk, app, servicenow } = match.groups ?? {};
    const issueId =
      zendesk !== undefined
        ? zendeskIssueId(zendesk)
        : app !== undefined
          ? String(Number(app))
          : servicenow?.toUpperCase();
    if (issueId !== undefined) found.push(at(match, issueId));
  }
  for (const match of normalized.matchAll(CASED_REFERENCE)) {
    const { jira, servicenow } = match.groups ?? {};
    if (servicenow !== undefined) found.push(at(match, servicenow));
    else if (jira !== undefined && !NOT_JIRA_PROJECT_KEYS.has(jira.slice(0, jira.indexOf('-')))) {
      found.push(at(match, jira));
    }
  }
  // The two passes may find the same ServiceNow number, or overlapping text: keep the first
  // (then longest) match at each place and drop whatever overlaps it.
  found.sort((left, right) => left.start - right.start || right.end - left.end);
  const references: TicketReference[] = [];
  let covered = 0;
  for (const reference of found) {
    if (reference.start < covered) continue;
    covered = reference.end;
    references.push({
      start: offsets[reference.start] ?? 0,
      end: offsets[reference.end] ?? text.length,
      issueId: reference.issueId,
    });
  }
  return references;
}

function at(match: RegExpMatchArray, issueId: string) {
  const start = match.index ?? 0;
  return { start, end: start + match[0].length, issueId };
}

function zendeskIssueId(digits: string): string | undefined {
  const number = Number(digits);
  return number > 0 ? `${ZENDESK_PREFIX}${number}` : undefined;
}

/**
 * NFKC per code point, with `offsets[i]` = where the character at `normalized[i]` came from
 * (and `offsets[normalized.length]` = `text.length`). Per code point rather than for the whole
 * string, so every offset maps back; the difference (combining sequences) never touches the
 * characters a reference or a link (`links.ts`) is made of.
 */
export function normalizeWithOffsets(text: string): { normalized: string; offsets: number[] } {
  let normalized = '';
  const offsets: number[] = [];
  let index = 0;
  for (const character of text) {
    const mapped = character.normalize('NFKC');
    for (let unit = 0; unit < mapped.length; unit++) offsets.push(index);
    normalized += mapped;
    index += character.length;
  }
  offsets.push(text.length);
  return { normalized, offsets };
}

// ---------------------------------------------------------------------------------------------
// A field that holds one id

/**
 * A field that holds nothing but an issue id: the id alone or one reference, nothing else around
 * it. The field says it is an id, so the prefix is optional, 1–12 digits count and a ServiceNow
 * number may have any prefix.
 */
const WHOLE_NUMERIC_ID = new RegExp(`^${NUMERIC_PREFIX}?([0-9]{1,12})$`, 'iu');
const WHOLE_ZENDESK_ID = new RegExp(`^${ZENDESK_PREFIX_TEXT}([0-9]{1,12})$`, 'iu');
const WHOLE_JIRA_ID = new RegExp(
  String.raw`^${NUMERIC_PREFIX}?([A-Z][A-Z0-9_]{1,9})\s*-\s*([0-9]{1,12})$`,
  'iu',
);
const WHOLE_SERVICENOW_ID = new RegExp(`^${NUMERIC_PREFIX}?([A-Z]{2,8})([0-9]{1,12})$`, 'iu');

/**
 * The canonical form of a value that is meant to be one issue id, as a model writes it in a
 * ticket card's `issue_id` or a sidecar holds it: `1234`, `#1234`, ` 1234 `, `チケット1234`, a JSON
 * number (`1234`, as the seed's own payload writes it), `inc0012345`, `ＩＴＳＤ－１２３`, `ZD#35436`.
 * Anything that does not name exactly one ticket unambiguously — two numbers, a fraction, a
 * negative or unsafe number, words around the id — is `undefined`: better no card than the wrong one.
 *
 * @example
 * canonicalIssueId(12345); // '12345'
 * canonicalIssueId(' ＃０１２３４５ '); // '12345'
 * canonicalIssueId('inc0012345'); // 'INC0012345'
 * canonicalIssueId('12345, 12346'); // undefined
 */
export function canonicalIssueId(value: unknown): string | undefined {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0 ? String(value) : undefined;
  }
  if (typeof value !== 'string') return undefined;
  // The form the tool schema asks for, and nearly every card: skip NFKC and the grammar.
  if (NUMERIC_ID.test(value)) return String(Number(value));
  if (ZENDESK_ID.test(value) || JIRA_ID.test(value) || SERVICENOW_ID.test(value)) return value;
  const written = value.normalize('NFKC').trim();
  const zendesk = WHOLE_ZENDESK_ID.exec(written)?.[1];
  if (zendesk !== undefined) return zendeskIssueId(zendesk);
  const numeric = WHOLE_NUMERIC_ID.exec(written)?.[1];
  if (numeric !== undefined) return String(Number(numeric));
  const jira = WHOLE_JIRA_ID.exec(written);
  if (jira?.[1] !== undefined && jira[2] !== undefined && Number(jira[2]) > 0) {
    return `${jira[1].toUpperCase()}-${Number(jira[2])}`;
  }
  const servicenow = WHOLE_SERVICENOW_ID.exec(written);
  if (servicenow?.[1] !== undefined && servicenow[2] !== undefined) {
    return `${servicenow[1].toUpperCase()}${servicenow[2]}`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Sources, lookup and display

/** The systems `npm run import` reads. */
export type TicketSource = 'servicenow' | 'jira' | 'zendesk' | 'csv';

/**
 * The canonical `issue_id` of an imported ticket, from the number as its source stores it:
 * ServiceNow's `number` (`INC0012345`), Jira's `key` (`ITSD-123`), Zendesk's numeric `id`
 * (`35436` → `ZD#35436`, so it never collides with the app's own numbers), a CSV's mapped number
 * column (any form {@link canonicalIssueId} reads; a bare number joins the app's numbers). What
 * the importer writes into each sidecar, so retrieval filters and grounding compare equal strings.
 *
 * @throws Error naming the value when it is not a ticket number of that source.
 * @example
 * sourceTicketId('zendesk', 35436); // 'ZD#35436'
 * sourceTicketId('servicenow', 'INC0012345'); // 'INC0012345'
 */
export function sourceTicketId(source: TicketSource, rawNumber: string | number): string {
  const written = String(rawNumber).normalize('NFKC').trim();
  const fail = (expected: string) =>
    new Error(`${source} ticket number ${JSON.stringify(String(rawNumber))}: expected ${expected}`);
  switch (source) {
    case 'zendesk': {
      const digits = /^#?([0-9]{1,12})$/.exec(written)?.[1];
      const issueId = digits === undefined ? undefined : zendeskIssueId(digits);
      if (issueId === undefined) throw fail('a positive number such as 35436');
      return issueId;
    }
    case 'servicenow': {
      const issueId = canonicalIssueId(written);
      if (issueId === undefined || issueIdKind(issueId) !== 'servicenow') {
        throw fail('letters then digits, such as INC0012345');
      }
      return issueId;
    }
    case 'jira': {
      const issueId = canonicalIssueId(written);
      if (issueId === undefined || issueIdKind(issueId) !== 'jira') {
        throw fail('a project key, a hyphen and a number, such as ITSD-123');
      }
      return issueId;
    }
    case 'csv': {
      const issueId = canonicalIssueId(written);
      if (issueId === undefined) {
        throw fail('a number (1001), a ServiceNow number (INC0012345) or a Jira key (ITSD-123)');
      }
      return issueId;
    }
  }
}

/**
 * The `issue_id` values a reference may name in the Knowledge Base: a bare number is the app's
 * ticket or Zendesk's (`35436` → `35436`, `ZD#35436`); any other id only itself. Fetching a
 * referenced ticket filters on all of them.
 */
export function issueIdLookupKeys(issueId: string): string[] {
  return issueIdKind(issueId) === 'app' && issueId !== '0'
    ? [issueId, `${ZENDESK_PREFIX}${issueId}`]
    : [issueId];
}

/**
 * The ticket among `available` (canonical ids) that `issueId` (canonical) names: itself, else for a
 * bare number the Zendesk ticket with that number (staff and models write Zendesk's `#35436`).
 * `undefined` when none is available.
 */
export function resolveIssueId(
  issueId: string,
  available: ReadonlySet<string>,
): string | undefined {
  return issueIdLookupKeys(issueId).find((key) => available.has(key));
}

/**
 * How a card, a list or a sentence shows a canonical ticket number: the app's and Zendesk's
 * numbers as staff write them (`#1001`, `#35436`), ServiceNow numbers and Jira keys as they are.
 *
 * @example
 * formatIssueId('1001'); // '#1001'
 * formatIssueId('ZD#35436'); // '#35436'
 * formatIssueId('INC0012345'); // 'INC0012345'
 */
export function formatIssueId(issueId: string): string {
  if (issueId.startsWith(ZENDESK_PREFIX)) return `#${issueId.slice(ZENDESK_PREFIX.length)}`;
  return NUMERIC_ID.test(issueId) ? `#${issueId}` : issueId;
}
