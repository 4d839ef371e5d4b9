import type { Person } from '../../knowledge/personal-data-scrub.js';
import { type ByteMeter, listExportFiles, readJsonPageRecords } from '../export-files.js';
import {
  dayOf,
  type ImportedRecord,
  MalformedRecordError,
  personOf,
  type SourceItem,
} from '../imported-ticket.js';
import { adfToMarkdown, isAdfDocument, trimReply, wikiToMarkdown } from '../staff-text.js';
import type { SourceOptions } from './source-options.js';

/**
 * Jira Cloud and Jira Service Management: pages of `GET /rest/api/3/search/jql` (or the older
 * `/rest/api/3/search`), `{"issues":[{key, fields}]}`, whose `description` and comment bodies are
 * Atlassian Document Format, and pages of `/rest/api/2/search` (Cloud or Data Center), whose
 * bodies are wiki markup. Request `fields=*all` or at least summary, description, status,
 * resolution, resolutiondate, created, labels, components, reporter, assignee, comment. An
 * issue is resolved when its status category is `done`; the resolution is the comments of
 * everyone but the reporter (public ones unless `--comments all`).
 */

interface JiraUser {
  readonly displayName?: string;
  readonly emailAddress?: string;
  readonly accountId?: string;
  readonly name?: string;
  readonly key?: string;
}

interface JiraComment {
  readonly author?: JiraUser;
  readonly body?: unknown;
  readonly created?: string;
  /** Jira Service Management: false for internal comments. */
  readonly jsdPublic?: boolean;
}

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const asString = (value: unknown): string => (typeof value === 'string' ? value : '');

function personOfUser(user: JiraUser | undefined): Person | undefined {
  if (!user) return undefined;
  return personOf({
    names: [user.displayName],
    emails: [user.emailAddress],
    userIds: [user.accountId, user.name, user.key],
  });
}

/** A body in either format as Markdown; mentions go into `mentions`. */
function bodyText(body: unknown, mentions: string[]): string {
  if (isAdfDocument(body)) return adfToMarkdown(body, mentions);
  if (typeof body === 'string') return wikiToMarkdown(body, mentions);
  if (body === undefined || body === null) return '';
  throw new MalformedRecordError('has a body that is neither ADF nor text');
}

/** Normalizes one issue of a search page. */
export function normalizeJiraIssue(
  issue: unknown,
  options: Pick<SourceOptions, 'comments'>,
): ImportedRecord {
  const { key, fields: rawFields } = asObject(issue);
  if (typeof key !== 'string' || key.trim() === '') throw new MalformedRecordError('has no key');
  if (typeof rawFields !== 'object' || rawFields === null) {
    throw new MalformedRecordError(`${key} has no fields (search with fields=*all)`);
  }
  const fields = rawFields as Record<string, unknown>;
  const mentions: string[] = [];
  const reporter = asObject(fields.reporter) as JiraUser;
  const assignee = asObject(fields.assignee) as JiraUser;
  const comments = (asObject(fields.comment).comments ?? []) as JiraComment[];
  if (!Array.isArray(comments))
    throw new MalformedRecordError(`${key}: comment.comments is not a list`);

  const people: Person[] = [];
  for (const user of [
    reporter,
    assignee,
    asObject(fields.creator) as JiraUser,
    ...comments.map((c) => c.author),
  ]) {
    const person = personOfUser(user);
    if (person) people.push(person);
  }
  const isReporter = (author?: JiraUser) =>
    !!author &&
    ((!!author.accountId && author.accountId === reporter.accountId) ||
      (!!author.name && author.name === reporter.name) ||
      (!!author.displayName && author.displayName === reporter.displayName));
  const resolution = comments
    .filter(
      (comment) =>
        options.comments === 'all' ||
        (options.comments === 'public' && comment.jsdPublic !== false),
    )
    .filter((comment) => !isReporter(comment.author))
    .map((comment) => trimReply(bodyText(comment.body, mentions)))
    .filter((text) => text !== '');

  const status = asObject(fields.status);
  const statusCategory = asString(asObject(status.statusCategory).key);
  const resolutionName = asString(asObject(fields.resolution).name);
  const labels = (Array.isArray(fields.labels) ? fields.labels : []).map(String);
  const components = (Array.isArray(fields.components) ? fields.components : [])
    .map((component) => asString(asObject(component).name))
    .filter(Boolean);
  const issueType = asString(asObject(fields.issuetype).name);
  const subject = asString(fields.summary).trim();
  const inquiry = bodyText(fields.description, mentions);
  for (const name of mentions) {
    const person = personOf({ names: [name] });
    if (person) people.push(person);
  }
  return {
    number: key.trim(),
    subject: subject || key,
    inquiry: inquiry || subject,
    resolution,
    category: components[0] ?? (issueType || 'uncategorized'),
    resolved: statusCategory === 'done' || (!statusCategory && !!fields.resolutiondate),
    duplicate: /duplicate|重複/i.test(resolutionName),
    openedOn: dayOf(fields.created),
    resolvedOn: dayOf(fields.resolutiondate),
    people,
    fields: {
      labels,
      components,
      status: [asString(status.name)],
      resolution: [resolutionName],
      issuetype: [issueType],
      project: [asString(asObject(fields.project).key)],
      priority: [asString(asObject(fields.priority).name)],
      category: [components[0] ?? issueType],
    },
  };
}

/** Reads Jira search pages (`.json` files with an `issues` list). */
export async function* readJiraExport(
  paths: readonly string[],
  options: SourceOptions,
  meter?: ByteMeter,
): AsyncGenerator<SourceItem> {
  for (const file of listExportFiles(paths, ['.json'])) {
    for await (const item of readJsonPageRecords(file, ['issues'], meter)) {
      try {
        yield { ...item, record: normalizeJiraIssue(item.value, options) };
      } catch (error) {
        if (!(error instanceof MalformedRecordError)) throw error;
        yield { file: item.file, recordNumber: item.recordNumber, malformed: error.message };
      }
    }
  }
}
