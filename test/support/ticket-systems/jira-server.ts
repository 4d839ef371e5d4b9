import {
  type LocalApiServer,
  type LocalCredentials,
  startLocalApiServer,
} from './local-api-server.js';

/**
 * A local Jira: Cloud's `GET /rest/api/3/search/jql` (`nextPageToken`, `isLast`) and Data
 * Center's `GET /rest/api/2/search` (`startAt`, `total`) over the JQL the sync sends
 * (`updated >= "yyyy/MM/dd HH:mm" ORDER BY updated ASC, key ASC`, `ORDER BY key ASC`), and
 * `GET /rest/api/{3|2}/issue/{key}/comment` (`startAt`, `maxResults`, `total`). A search returns
 * at most `commentsInSearch` comments per issue with the real `total`, as Jira truncates them.
 * Issues are kept as the search returns them (test/fixtures/import/jira, from Atlassian's
 * documented responses; andygrunwald/go-jira and atlassian-python-api fixtures have the same shape).
 */

export type JiraIssue = { key: string; id?: string; fields?: Record<string, unknown> };

export interface LocalJira extends LocalApiServer {
  readonly issues: JiraIssue[];
}

export async function startJiraServer(options: {
  readonly credentials: LocalCredentials;
  readonly issues: readonly JiraIssue[];
  readonly commentsInSearch?: number;
}): Promise<LocalJira> {
  const issues = [...options.issues];
  const commentsInSearch = options.commentsInSearch ?? 2;
  const server = await startLocalApiServer(options.credentials, (url) => {
    const comment = /^\/rest\/api\/[23]\/issue\/([^/]+)\/comment$/.exec(url.pathname);
    if (comment) {
      const issue = issues.find(
        (candidate) => candidate.key === decodeURIComponent(comment[1] as string),
      );
      if (!issue) return { status: 404, body: { errorMessages: ['Issue does not exist'] } };
      const all = ((issue.fields?.comment as { comments?: unknown[] } | undefined)?.comments ??
        []) as unknown[];
      const startAt = Number(url.searchParams.get('startAt') ?? '0');
      const maxResults = Number(url.searchParams.get('maxResults') ?? '50');
      return {
        body: {
          startAt,
          maxResults,
          total: all.length,
          comments: all.slice(startAt, startAt + maxResults),
        },
      };
    }
    const cloud = url.pathname === '/rest/api/3/search/jql';
    if (!cloud && url.pathname !== '/rest/api/2/search')
      return { status: 404, body: { errorMessages: ['Not found'] } };
    const jql = url.searchParams.get('jql') ?? '';
    if (cloud && /^\s*ORDER BY/i.test(jql)) {
      // Cloud's search/jql refuses a query without a restriction.
      return {
        status: 400,
        body: {
          errorMessages: [
            'Unbounded JQL queries are not allowed here. Please add a search restriction to your query.',
          ],
        },
      };
    }
    const since = /updated >= "(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2})"/.exec(jql);
    const from = since
      ? Date.parse(`${since[1]}-${since[2]}-${since[3]}T${since[4]}:${since[5]}:00Z`)
      : 0;
    const byUpdated = /ORDER BY updated/.test(jql);
    const matching = issues
      .filter((issue) => !since || Date.parse(String(issue.fields?.updated ?? '')) >= from)
      .sort((a, b) => {
        if (byUpdated) {
          const x = Date.parse(String(a.fields?.updated ?? ''));
          const y = Date.parse(String(b.fields?.updated ?? ''));
          if (x !== y) return x - y;
        }
        return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
      });
    const maxResults = Number(url.searchParams.get('maxResults') ?? '50');
    const startAt = cloud
      ? Number(
          Buffer.from(url.searchParams.get('nextPageToken') ?? '', 'base64url').toString() || '0',
        )
      : Number(url.searchParams.get('startAt') ?? '0');
    const onlyKeys = url.searchParams.get('fields') === 'key';
    const page = matching.slice(startAt, startAt + maxResults).map((issue) => {
      if (onlyKeys) return { id: issue.id, key: issue.key };
      const fields = issue.fields;
      const thread = fields?.comment as { comments?: unknown[] } | undefined;
      if (!fields || !thread?.comments) return issue;
      return {
        ...issue,
        fields: {
          ...fields,
          comment: {
            comments: thread.comments.slice(0, commentsInSearch),
            maxResults: commentsInSearch,
            total: thread.comments.length,
            startAt: 0,
          },
        },
      };
    });
    const next = startAt + maxResults;
    if (cloud) {
      return {
        body: {
          issues: page,
          ...(next < matching.length
            ? { nextPageToken: Buffer.from(String(next)).toString('base64url') }
            : {}),
          isLast: next >= matching.length,
        },
      };
    }
    return { body: { startAt, maxResults, total: matching.length, issues: page } };
  });
  return { ...server, issues };
}
