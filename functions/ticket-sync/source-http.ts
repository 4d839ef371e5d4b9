import type { SyncSystem } from './ticket-source.js';

/**
 * The one HTTP client of the sources: authentication, JSON, and the faults a ticket system's API
 * has — a 429 (or 503) waited out as its `Retry-After` says (or Jira's `X-RateLimit-Reset`,
 * Zendesk's `ratelimit-reset`), a 5xx or a network error retried with exponential backoff, then
 * a {@link SourceUnavailableError}; a 401 or 403 at once a {@link SourceAuthError} naming the
 * source and where its credentials come from. The caller has written nothing for the request
 * that failed, and its cursor stays where the last written page left it.
 */

export type SourceCredentials =
  | { readonly kind: 'basic'; readonly username: string; readonly password: string }
  | { readonly kind: 'bearer'; readonly token: string };

export interface SourceHttpOptions {
  readonly system: SyncSystem;
  /** `https://acme.service-now.com`. */
  readonly baseUrl: string;
  readonly credentials: SourceCredentials;
  /** Where the credentials come from, for the 401/403 message: variable names or the secret's name. */
  readonly credentialSource: string;
  readonly fetch: typeof fetch;
  /** Waits (injected: tests record the wait instead of spending it). */
  readonly sleep: (milliseconds: number, signal: AbortSignal) => Promise<void>;
  /** Attempts per request before giving up on a 5xx or network error. @default 5 */
  readonly maxAttempts?: number;
  /** The first backoff; doubled per attempt. @default 1000 */
  readonly backoffMilliseconds?: number;
  /** The longest rate-limit wait honoured before giving up on the run. @default 600000 */
  readonly maxWaitMilliseconds?: number;
  readonly now: () => number;
}

const SYSTEM_LABELS: Readonly<Record<SyncSystem, string>> = {
  servicenow: 'ServiceNow',
  jira: 'Jira',
  zendesk: 'Zendesk',
};

/** 401/403: the credentials are wrong or lack a right. Nothing was written. */
export class SourceAuthError extends Error {
  override readonly name = 'SourceAuthError';
}

/** A 5xx, a network error or a rate limit that did not clear within the attempts. */
export class SourceUnavailableError extends Error {
  override readonly name = 'SourceUnavailableError';
}

/** Any other 4xx: the request is wrong (a table that does not exist, a JQL the site refuses). */
export class SourceRequestError extends Error {
  override readonly name = 'SourceRequestError';
}

export interface SourceResponse {
  readonly body: unknown;
  readonly headers: Headers;
}

export class SourceHttp {
  readonly options: SourceHttpOptions;
  readonly label: string;
  readonly #authorization: string;

  constructor(options: SourceHttpOptions) {
    this.options = options;
    this.label = SYSTEM_LABELS[options.system];
    const { credentials } = options;
    this.#authorization =
      credentials.kind === 'basic'
        ? `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`
        : `Bearer ${credentials.token}`;
  }

  /** GETs a path (or a full URL the API gave, on the same origin) and parses its JSON. */
  async getJson(pathOrUrl: string, signal: AbortSignal): Promise<SourceResponse> {
    const url = new URL(pathOrUrl, this.options.baseUrl);
    if (url.origin !== new URL(this.options.baseUrl).origin) {
      throw new SourceRequestError(`${this.label} gave a link to another site; not followed`);
    }
    const maxAttempts = this.options.maxAttempts ?? 5;
    const backoff = this.options.backoffMilliseconds ?? 1000;
    let lastProblem = '';
    for (let attempt = 1; ; attempt += 1) {
      signal.throwIfAborted();
      let response: Response;
      try {
        response = await this.options.fetch(url, {
          headers: { authorization: this.#authorization, accept: 'application/json' },
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw error;
        lastProblem = `network error (${(error as Error).name})`;
        if (attempt >= maxAttempts) break;
        await this.options.sleep(backoff * 2 ** (attempt - 1), signal);
        continue;
      }
      if (response.ok) {
        const text = await response.text();
        try {
          return { body: JSON.parse(text) as unknown, headers: response.headers };
        } catch {
          lastProblem = `a response that is not JSON (HTTP ${response.status})`;
          if (attempt >= maxAttempts) break;
          await this.options.sleep(backoff * 2 ** (attempt - 1), signal);
          continue;
        }
      }
      await response.body?.cancel();
      if (response.status === 401 || response.status === 403) {
        throw new SourceAuthError(
          `${this.label} refused the credentials (HTTP ${response.status}) at ${url.origin}: ` +
            `check ${this.options.credentialSource}${response.status === 403 ? ' and the account’s read rights' : ''}. Nothing was written.`,
        );
      }
      if (response.status === 429 || response.status === 503) {
        const wait = rateLimitWait(response.headers, this.options.now());
        lastProblem = `HTTP ${response.status}`;
        if (wait !== undefined) {
          if (wait > (this.options.maxWaitMilliseconds ?? 600_000)) break;
          // A rate limit is the API asking to wait, not a failure: it does not use up attempts.
          await this.options.sleep(wait, signal);
          continue;
        }
        if (attempt >= maxAttempts) break;
        await this.options.sleep(backoff * 2 ** (attempt - 1), signal);
        continue;
      }
      if (response.status >= 500) {
        lastProblem = `HTTP ${response.status}`;
        if (attempt >= maxAttempts) break;
        await this.options.sleep(backoff * 2 ** (attempt - 1), signal);
        continue;
      }
      throw new SourceRequestError(
        `${this.label} answered HTTP ${response.status} to ${url.pathname}`,
      );
    }
    throw new SourceUnavailableError(
      `${this.label} at ${url.origin} is unavailable (${lastProblem} after ${maxAttempts} attempt(s)); the cursor stays where it was`,
    );
  }
}

/**
 * How long a 429 or 503 asks to wait, in milliseconds: `Retry-After` (seconds or an HTTP date),
 * else Jira's `X-RateLimit-Reset` (an ISO instant), else `ratelimit-reset` (seconds, Zendesk).
 */
export function rateLimitWait(headers: Headers, now: number): number | undefined {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.ceil(Number(retryAfter) * 1000);
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  const reset = headers.get('x-ratelimit-reset')?.trim();
  if (reset) {
    const at = Date.parse(reset);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  const seconds = headers.get('ratelimit-reset')?.trim();
  if (seconds && /^\d+$/.test(seconds)) return Number(seconds) * 1000;
  return undefined;
}

/** The credentials of a system from environment variables, or a message naming the variables. */
export const CREDENTIAL_VARIABLES: Readonly<
  Record<SyncSystem, { readonly user: string; readonly secret: string; readonly token: string }>
> = {
  servicenow: {
    user: 'SERVICENOW_USERNAME',
    secret: 'SERVICENOW_PASSWORD',
    token: 'SERVICENOW_TOKEN',
  },
  jira: { user: 'JIRA_EMAIL', secret: 'JIRA_API_TOKEN', token: 'JIRA_TOKEN' },
  zendesk: { user: 'ZENDESK_EMAIL', secret: 'ZENDESK_API_TOKEN', token: 'ZENDESK_TOKEN' },
};

export function describeCredentialVariables(system: SyncSystem): string {
  const names = CREDENTIAL_VARIABLES[system];
  return `${names.user}/${names.secret} or ${names.token}`;
}

/**
 * Reads a system's credentials from `env`: the bearer token when set, else the user and secret
 * (Zendesk's API token is used as `email/token`), else undefined.
 */
export function credentialsFromEnvironment(
  system: SyncSystem,
  env: Readonly<Record<string, string | undefined>>,
): SourceCredentials | undefined {
  const names = CREDENTIAL_VARIABLES[system];
  const token = env[names.token]?.trim();
  if (token) return { kind: 'bearer', token };
  const user = env[names.user]?.trim();
  const secret = env[names.secret];
  if (!user || !secret) return undefined;
  return {
    kind: 'basic',
    username: system === 'zendesk' ? `${user}/token` : user,
    password: secret,
  };
}
