import type { CommentPolicy } from '../ticket-import/sources/source-options.js';
import { type SourceCredentials, SourceHttp, type SourceHttpOptions } from './source-http.js';
import { createJiraSource, type JiraDeployment } from './sources/jira-source.js';
import { createServiceNowSource, DEFAULT_SERVICENOW_TABLES } from './sources/servicenow-source.js';
import { createZendeskSource } from './sources/zendesk-source.js';
import type { SyncSystem, TicketSource } from './ticket-source.js';

/** One configured source (the command line's flags, or a `ticketSync` entry of the stack). */
export interface TicketSourceSettings {
  readonly system: SyncSystem;
  /** `https://acme.service-now.com`, `https://acme.atlassian.net`, `https://acme.zendesk.com`. */
  readonly url: string;
  readonly credentials: SourceCredentials;
  /** Where the credentials come from, named in a 401/403 message. */
  readonly credentialSource: string;
  readonly comments: CommentPolicy;
  /** ServiceNow tables. @default incident, sc_req_item */
  readonly tables?: readonly string[];
  /** Jira: `cloud` for `*.atlassian.net` unless told. */
  readonly jiraDeployment?: JiraDeployment;
  /** Jira: extra JQL. */
  readonly jql?: string;
  readonly pageSize?: number;
}

/** What the source's HTTP client is given by the boundary (the command line, the Lambda handler). */
export type SourceRuntime = Pick<
  SourceHttpOptions,
  'fetch' | 'sleep' | 'now' | 'maxAttempts' | 'backoffMilliseconds' | 'maxWaitMilliseconds'
>;

export function createTicketSource(
  settings: TicketSourceSettings,
  runtime: SourceRuntime,
): TicketSource {
  const url = new URL(settings.url);
  if (url.protocol !== 'https:' && !isLoopback(url.hostname)) {
    throw new Error(`--url ${url.origin}: use https (credentials are sent with every request)`);
  }
  const http = new SourceHttp({
    ...runtime,
    system: settings.system,
    baseUrl: url.origin,
    credentials: settings.credentials,
    credentialSource: settings.credentialSource,
  });
  const pageSize = settings.pageSize ? { pageSize: settings.pageSize } : {};
  switch (settings.system) {
    case 'servicenow':
      return createServiceNowSource({
        http,
        tables: settings.tables ?? DEFAULT_SERVICENOW_TABLES,
        comments: settings.comments,
        ...pageSize,
      });
    case 'jira':
      return createJiraSource({
        http,
        deployment:
          settings.jiraDeployment ??
          (url.hostname.endsWith('.atlassian.net') ? 'cloud' : 'datacenter'),
        comments: settings.comments,
        ...(settings.jql ? { jql: settings.jql } : {}),
        ...pageSize,
      });
    case 'zendesk':
      return createZendeskSource({ http, comments: settings.comments, ...pageSize });
  }
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
}

/** Waits, or rejects when the signal aborts (the boundary's `sleep`). */
export function abortableSleep(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
