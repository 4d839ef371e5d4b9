/**
 * Ticket text as staff should read it: HTML (Zendesk `html_body`, ServiceNow HTML fields) as
 * plain text, Atlassian Document Format (Jira Cloud v3) and Jira wiki markup (v2, Data Center)
 * as Markdown, and comment threads without the quoted e-mail replies and signatures that mail
 * clients append. Pure functions over strings; the sources call them per field.
 */

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  laquo: '«',
  raquo: '»',
  yen: '¥',
};

/** Decodes HTML character references (`&amp;`, `&#12354;`, `&#x3042;`). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X'
          ? Number.parseInt(name.slice(2), 16)
          : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff
        ? String.fromCodePoint(code)
        : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/**
 * HTML as plain text: block elements end lines, list items start with "- ", `<br>` breaks a
 * line, scripts, styles and comments disappear, entities are decoded, runs of blank lines fold
 * into one. Mail quotes (`<blockquote>`) and Gmail's quote container are dropped, as the
 * plain-text trim drops `>` lines.
 */
export function htmlToText(html: string): string {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<blockquote\b[\s\S]*?<\/blockquote\s*>/gi, '\n')
    .replace(/<div\s+class="?gmail_quote[\s\S]*$/i, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<\/li\s*>/gi, '')
    .replace(/<\/(p|div|tr|h[1-6]|ul|ol|table|pre|section|article)\s*>/gi, '\n')
    .replace(/<(p|div|tr|h[1-6]|ul|ol|table|pre)\b[^>]*>/gi, '\n')
    .replace(/<\/t[dh]\s*>/gi, ' ')
    .replace(/<[^>]+>/g, '');
  return tidy(decodeEntities(text));
}

/** Trims trailing spaces, folds 3+ line breaks into one blank line, trims the ends. */
function tidy(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\u00a0]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

// Where a reply's quoted original starts: "On … wrote:", Outlook's "-----Original Message-----"
// or "From: … Sent:" header, Japanese mailers' "2024年1月9日(火) 10:00 山田 <…>:" and
// "…さんは書きました:". Everything from there on is the earlier mail, already in the thread.
const QUOTE_HEADERS: readonly RegExp[] = [
  /^On .+wrote:\s*$/m,
  /^-{2,}\s*Original Message\s*-{2,}/im,
  /^-{2,}\s*元のメッセージ\s*-{2,}/m,
  /^From: .+\n(?:.*\n)?(?:Sent|Date): /m,
  /^差出人: .+\n(?:.*\n)?(?:送信日時|日付): /m,
  /^\d{4}年\d{1,2}月\d{1,2}日.*[:：]\s*$/m,
  /^.+(?:さんは書きました|のメッセージ)[:：]\s*$/m,
];
// Where a signature starts: the "-- " delimiter (RFC 3676), mobile footers, a line of dashes
// or equals signs as Japanese business signatures draw them.
const SIGNATURE_STARTS: readonly RegExp[] = [
  /^-- ?$/m,
  /^(?:Sent from my .+|iPhoneから送信|Get Outlook for .+)$/m,
  /^[-=_＝─━*]{8,}\s*$/m,
];

/**
 * One comment as its author wrote it: without the quoted mail it replies to (quote headers
 * and `>` lines) and without the signature.
 */
export function trimReply(text: string): string {
  let cut = text.length;
  for (const pattern of [...QUOTE_HEADERS, ...SIGNATURE_STARTS]) {
    const match = pattern.exec(text);
    if (match && match.index < cut) cut = match.index;
  }
  const kept = withoutSalutation(withoutSignOff(text.slice(0, cut)))
    .split('\n')
    .filter((line) => !/^\s*>/.test(line))
    .join('\n');
  return tidy(kept);
}

// A sign-off line ("Best regards," / "Thanks," / 「よろしくお願いいたします。」) followed only by a
// few short lines (name, team, phone) is where a signature without a delimiter starts.
const SIGN_OFF =
  /^(?:(?:best|kind|warm)?\s*regards|thanks(?: and regards)?|thank you|cheers|sincerely|以上、?よろしくお願い(?:いた|致)?します|よろしくお願い(?:いた|致)?します)[,.!、。]?\s*$/i;
const MAX_SIGNATURE_LINES = 6;

// A greeting line that opens a reply ("Hi Taro," / 「田中様」 / 「お世話になっております。」): not a
// step of the resolution, and often the requester's name.
const SALUTATION =
  /^(?:(?:hi|hello|hey|dear|good (?:morning|afternoon|evening))\b[^\n.!?:]{0,60}[,!]?|[^\s、。]{1,20}(?:様|さん|殿)[、,]?|お世話になって(?:おり|い)ます。?|お疲れ様です。?)$/i;

function withoutSalutation(text: string): string {
  const lines = text.split('\n');
  let start = 0;
  while (start < lines.length) {
    const line = (lines[start] ?? '').trim();
    if (line !== '' && !SALUTATION.test(line)) break;
    start += 1;
  }
  return lines.slice(start).join('\n');
}

function withoutSignOff(text: string): string {
  const lines = text.split('\n');
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    if (!SIGN_OFF.test((lines[index] ?? '').trim())) continue;
    const after = lines.slice(index + 1).filter((line) => line.trim() !== '');
    const shortLines = after.every((line) => line.trim().length <= 60);
    if (after.length <= MAX_SIGNATURE_LINES && shortLines) return lines.slice(0, index).join('\n');
    break;
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// Atlassian Document Format → Markdown (https://developer.atlassian.com/cloud/jira/platform/apis/document/structure/)

interface AdfNode {
  readonly type?: string;
  readonly text?: string;
  readonly content?: readonly AdfNode[];
  readonly attrs?: Readonly<Record<string, unknown>>;
  readonly marks?: readonly { readonly type?: string; readonly attrs?: Record<string, unknown> }[];
}

/** Whether a value is an ADF document (`{type: "doc", content: […]}`) rather than a string. */
export function isAdfDocument(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as AdfNode).type === 'doc';
}

/**
 * An ADF document as Markdown: paragraphs, headings, bullet and ordered lists (nested),
 * code blocks, quotes, tables as pipe rows, marks (strong, em, code, strike, link), mentions
 * as `@name`, emoji by short name, cards by URL; media become "[attachment]".
 * `mentions` collects the names mentioned (they are people of the record for the scrub).
 */
export function adfToMarkdown(document: unknown, mentions: string[] = []): string {
  return tidy(blocks((document as AdfNode)?.content ?? [], mentions).join('\n\n'));
}

function blocks(nodes: readonly AdfNode[], mentions: string[]): string[] {
  return nodes.map((node) => block(node, mentions)).filter((text) => text !== '');
}

function block(node: AdfNode, mentions: string[]): string {
  const children = node.content ?? [];
  switch (node.type) {
    case 'paragraph':
      return inline(children, mentions);
    case 'heading': {
      const level = Math.min(6, Math.max(1, Number(node.attrs?.level ?? 1)));
      return `${'#'.repeat(level)} ${inline(children, mentions)}`;
    }
    case 'bulletList':
    case 'orderedList':
      return children
        .map((item, index) => {
          const marker = node.type === 'orderedList' ? `${index + 1}. ` : '- ';
          const [first = '', ...rest] = blocks(item.content ?? [], mentions)
            .join('\n')
            .split('\n');
          return [marker + first, ...rest.map((line) => ' '.repeat(marker.length) + line)].join(
            '\n',
          );
        })
        .join('\n');
    case 'codeBlock':
      return `\`\`\`${String(node.attrs?.language ?? '')}\n${children.map((child) => child.text ?? '').join('')}\n\`\`\``;
    case 'blockquote':
      return blocks(children, mentions)
        .join('\n\n')
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n');
    case 'rule':
      return '---';
    case 'table':
      return children
        .map(
          (row) =>
            `| ${(row.content ?? [])
              .map((cell) =>
                blocks(cell.content ?? [], mentions)
                  .join(' ')
                  .replace(/\n/g, ' '),
              )
              .join(' | ')} |`,
        )
        .join('\n');
    case 'mediaSingle':
    case 'mediaGroup':
    case 'media':
      return '[attachment]';
    case 'panel':
    case 'expand':
    case 'nestedExpand':
    case 'layoutSection':
    case 'layoutColumn':
      return blocks(children, mentions).join('\n\n');
    default:
      return children.length > 0 ? inline(children, mentions) : inlineNode(node, mentions);
  }
}

function inline(nodes: readonly AdfNode[], mentions: string[]): string {
  return nodes.map((node) => inlineNode(node, mentions)).join('');
}

function inlineNode(node: AdfNode, mentions: string[]): string {
  switch (node.type) {
    case 'text':
      return applyMarks(node.text ?? '', node.marks ?? []);
    case 'hardBreak':
      return '\n';
    case 'mention': {
      const name = String(node.attrs?.text ?? '').replace(/^@/, '');
      if (name) mentions.push(name);
      return `@${name}`;
    }
    case 'emoji':
      return String(node.attrs?.text ?? node.attrs?.shortName ?? '');
    case 'inlineCard':
    case 'blockCard':
      return String(node.attrs?.url ?? '');
    case 'date': {
      const timestamp = Number(node.attrs?.timestamp);
      return Number.isFinite(timestamp) ? new Date(timestamp).toISOString().slice(0, 10) : '';
    }
    case 'status':
      return `[${String(node.attrs?.text ?? '')}]`;
    default:
      return node.content ? inline(node.content, mentions) : (node.text ?? '');
  }
}

function applyMarks(text: string, marks: AdfNode['marks'] & {}): string {
  let result = text;
  for (const mark of marks) {
    if (mark.type === 'strong') result = `**${result}**`;
    else if (mark.type === 'em') result = `*${result}*`;
    else if (mark.type === 'code') result = `\`${result}\``;
    else if (mark.type === 'strike') result = `~~${result}~~`;
    else if (mark.type === 'link' && typeof mark.attrs?.href === 'string') {
      result = result === mark.attrs.href ? result : `[${result}](${mark.attrs.href})`;
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Jira wiki markup → Markdown (https://jira.atlassian.com/secure/WikiRendererHelpAction.jspa)

/**
 * Jira wiki markup as Markdown: `h1.`–`h6.`, `*bold*`, `_emphasis_`, `-strike-`, `{{mono}}`,
 * `{code}`/`{noformat}` blocks, `{quote}` and `bq.`, `[text|url]` links, `*`/`#` lists (nested by
 * repetition), `||head||` and `|cell|` tables; `[~user]` mentions become `@user` and are
 * collected into `mentions`.
 */
export function wikiToMarkdown(wiki: string, mentions: string[] = []): string {
  const output: string[] = [];
  let inCode = false;
  let inQuote = false;
  for (const rawLine of wiki.replace(/\r\n?/g, '\n').split('\n')) {
    const codeFence = /^\s*\{(code|noformat)(?::([^}|]*))?[^}]*\}(.*)$/.exec(rawLine);
    if (codeFence) {
      if (inCode) {
        output.push('```');
        inCode = false;
      } else {
        output.push(`\`\`\`${(codeFence[2] ?? '').trim()}`);
        inCode = true;
        const rest = codeFence[3] ?? '';
        const closing = rest.search(/\{(code|noformat)\}/);
        if (closing >= 0) {
          output.push(rest.slice(0, closing), '```');
          inCode = false;
        } else if (rest) output.push(rest);
      }
      continue;
    }
    if (inCode) {
      const closing = rawLine.search(/\{(code|noformat)\}/);
      if (closing >= 0) {
        if (closing > 0) output.push(rawLine.slice(0, closing));
        output.push('```');
        inCode = false;
      } else output.push(rawLine);
      continue;
    }
    if (/^\s*\{quote\}\s*$/.test(rawLine)) {
      inQuote = !inQuote;
      continue;
    }
    let line = wikiLine(rawLine, mentions);
    if (inQuote) line = `> ${line}`;
    output.push(line);
  }
  if (inCode) output.push('```');
  return tidy(output.join('\n'));
}

function wikiLine(line: string, mentions: string[]): string {
  const heading = /^h([1-6])\.\s+(.*)$/.exec(line);
  if (heading) return `${'#'.repeat(Number(heading[1]))} ${wikiInline(heading[2] ?? '', mentions)}`;
  const quote = /^bq\.\s+(.*)$/.exec(line);
  if (quote) return `> ${wikiInline(quote[1] ?? '', mentions)}`;
  const list = /^([*#-]+)\s+(.*)$/.exec(line);
  if (list && !/^-+$/.test(list[1] ?? '')) {
    const markers = list[1] ?? '*';
    const indent = '  '.repeat(markers.length - 1);
    const marker = markers.endsWith('#') ? '1.' : '-';
    return `${indent}${marker} ${wikiInline(list[2] ?? '', mentions)}`;
  }
  // A rule ("----", or a longer run drawn under a signature) stays as written: Markdown reads it too.
  if (/^-{4,}\s*$/.test(line)) return line;
  if (/^\|\|/.test(line)) return wikiInline(line.replace(/\|\|/g, '|'), mentions);
  return wikiInline(line, mentions);
}

function wikiInline(text: string, mentions: string[]): string {
  return text
    .replace(/\[~(?:accountid:)?([^\]]+)\]/g, (_whole, name: string) => {
      mentions.push(name);
      return `@${name}`;
    })
    .replace(/\{\{([^}]+)\}\}/g, '`$1`')
    .replace(/\[([^|\]]+)\|([^\]]+)\]/g, '[$1]($2)')
    .replace(/(^|[\s(])\*(\S(?:.*?\S)?)\*(?=$|[\s).,!?:;])/g, '$1**$2**')
    .replace(/(^|[\s(])_(\S(?:.*?\S)?)_(?=$|[\s).,!?:;])/g, '$1*$2*')
    .replace(/(^|[\s(])-(\S(?:.*?\S)?)-(?=$|[\s).,!?:;])/g, '$1~~$2~~')
    .replace(/\{color(?::[^}]*)?\}/g, '');
}
