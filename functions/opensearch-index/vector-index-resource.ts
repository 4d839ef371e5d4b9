import { createHash } from 'node:crypto';
import { type AwsCredentials, signedAwsFetch } from '../adapters/aws/signed-aws-fetch.js';

/**
 * The `Custom::OpenSearchVectorIndex` resource (ADR 0014): creates the Knowledge Base's vector
 * index in an OpenSearch Serverless collection with signed `aoss` calls, and returns only once
 * the index answers, so the Knowledge Base created after it never meets "no such index".
 *
 * - Create (and Update, which CloudFormation sends when the collection endpoint changes; a
 *   changed definition changes the index name and so arrives as a replacement): `PUT /<index>`
 *   with the definition. 403 is retried with backoff — a new data-access policy takes up to a
 *   minute to apply — as are 429 and 5xx. An index that exists already is success when its
 *   mapping matches (a retried create, or a rollback to it); a different mapping is an error.
 *   Then the readiness probe: `GET /<index>/_mapping` and a `_search` must both answer 200,
 *   `requiredSuccesses` times in a row, before CloudFormation hears SUCCESS.
 * - Delete: `DELETE /<index>`; an index (or collection) that is already gone is success.
 * - Everything answers CloudFormation's pre-signed URL before `deadline`, with the last error as
 *   the reason: a stack never waits an hour for a resource that gave up.
 */

/** The properties the construct (lib/constructs/opensearch-vector-store.ts) passes. */
export interface VectorIndexProperties {
  /** `https://<id>.<region>.aoss.amazonaws.com`. */
  readonly CollectionEndpoint: string;
  readonly IndexName: string;
  /** JSON of `{ settings, mappings }`, the body of `PUT /<index>`. */
  readonly IndexDefinition: string;
  /** The vector field, whose dimension is compared when the index exists. */
  readonly VectorField: string;
}

/** The CloudFormation custom-resource request fields this handler reads. */
export interface CustomResourceEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly ResponseURL: string;
  readonly StackId: string;
  readonly RequestId: string;
  readonly LogicalResourceId: string;
  readonly PhysicalResourceId?: string;
  readonly ResourceProperties: VectorIndexProperties & { readonly ServiceToken?: string };
}

/** A signed HTTP call to the collection: method, path and JSON body in, status and body out. */
export type CollectionRequest = (request: {
  readonly endpoint: string;
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  readonly path: string;
  readonly body?: string;
}) => Promise<{ readonly status: number; readonly body: string }>;

export interface VectorIndexResourceOptions {
  readonly request: CollectionRequest;
  /** Milliseconds the handler may still use (Lambda: `context.getRemainingTimeInMillis`). */
  readonly remainingMs: () => number;
  /** Kept back from the remaining time to answer CloudFormation. @default 15_000 */
  readonly reserveMs?: number;
  /** First retry delay, doubled up to `maxDelayMs`. @default 2_000 */
  readonly initialDelayMs?: number;
  /** @default 20_000 */
  readonly maxDelayMs?: number;
  /** Consecutive successful probes before the index counts as ready. @default 3 */
  readonly requiredSuccesses?: number;
  /** Delay between probes. @default 5_000 */
  readonly probeIntervalMs?: number;
  /** One line per attempt, for the provider's log group (the handler's Powertools Logger). */
  readonly log: (message: string) => void;
}

/** Raised when the collection answers with something retrying will not fix. */
export class VectorIndexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VectorIndexError';
  }
}

/** The handler of the custom resource, with its HTTP calls and clock passed in. */
export function createVectorIndexResourceHandler(options: VectorIndexResourceOptions) {
  const { log } = options;
  const reserveMs = options.reserveMs ?? 15_000;
  const timeLeft = () => options.remainingMs() - reserveMs;

  /** Calls `attempt` until it returns a value, waiting longer each time, within the deadline. */
  const retry = async <T>(what: string, attempt: () => Promise<Attempt<T>>): Promise<T> => {
    let backoff = options.initialDelayMs ?? 2_000;
    for (let attemptNumber = 1; ; attemptNumber++) {
      const outcome = await attempt();
      if (outcome.done) return outcome.value;
      log(`${what}: attempt ${attemptNumber} not yet (${outcome.reason})`);
      // A probe that succeeded waits its interval; a failure backs off.
      const delay = outcome.nextDelayMs ?? backoff;
      if (timeLeft() < delay) {
        throw new VectorIndexError(
          `${what} gave up after ${attemptNumber} attempts; last answer: ${outcome.reason}`,
        );
      }
      await sleep(delay);
      if (outcome.nextDelayMs === undefined) {
        backoff = Math.min(backoff * 2, options.maxDelayMs ?? 20_000);
      }
    }
  };

  const call = async (
    properties: VectorIndexProperties,
    method: 'GET' | 'PUT' | 'POST' | 'DELETE',
    path: string,
    body?: string,
  ) => {
    try {
      return await options.request({ endpoint: properties.CollectionEndpoint, method, path, body });
    } catch (error) {
      // DNS or connection failure: the collection endpoint is not reachable (yet, or any more).
      return { status: 0, body: error instanceof Error ? error.message : String(error) };
    }
  };

  const ensureIndex = async (properties: VectorIndexProperties) => {
    const index = `/${encodeURIComponent(properties.IndexName)}`;
    await retry<string>(`create ${properties.IndexName}`, async () => {
      const created = await call(properties, 'PUT', index, properties.IndexDefinition);
      if (created.status === 200) return { done: true, value: 'created' };
      if (isAlreadyExists(created)) {
        await checkExistingMapping(properties);
        return { done: true, value: 'exists' };
      }
      if (isRetryable(created.status)) return { done: false, reason: describe(created) };
      throw new VectorIndexError(`PUT ${index} failed: ${describe(created)}`);
    });
    let successes = 0;
    const required = options.requiredSuccesses ?? 3;
    await retry<void>(`probe ${properties.IndexName}`, async () => {
      const mapping = await call(properties, 'GET', `${index}/_mapping`);
      const search =
        mapping.status === 200
          ? await call(properties, 'POST', `${index}/_search`, '{"size":0}')
          : mapping;
      if (mapping.status === 200 && search.status === 200) {
        successes += 1;
        if (successes >= required) return { done: true, value: undefined };
        return {
          done: false,
          reason: `answered ${successes} of ${required} times in a row`,
          nextDelayMs: options.probeIntervalMs ?? 5_000,
        };
      }
      successes = 0;
      if (isRetryable(search.status) || search.status === 404) {
        return { done: false, reason: describe(search) };
      }
      throw new VectorIndexError(`the index does not answer: ${describe(search)}`);
    });
  };

  const checkExistingMapping = async (properties: VectorIndexProperties) => {
    const index = `/${encodeURIComponent(properties.IndexName)}`;
    const existing = await call(properties, 'GET', `${index}/_mapping`);
    if (existing.status !== 200) return; // the probe that follows waits for it
    const wanted = JSON.parse(properties.IndexDefinition) as IndexDefinition;
    const actual = (JSON.parse(existing.body) as Record<string, { mappings?: Mappings }>)[
      properties.IndexName
    ]?.mappings;
    const field = properties.VectorField;
    const wantedDimension = wanted.mappings?.properties?.[field]?.dimension;
    const actualDimension = actual?.properties?.[field]?.dimension;
    if (actualDimension !== wantedDimension) {
      throw new VectorIndexError(
        `${properties.IndexName} exists with another definition (${field} dimension ` +
          `${String(actualDimension)}, wanted ${String(wantedDimension)}); delete it or change the definition`,
      );
    }
  };

  const deleteIndex = async (properties: VectorIndexProperties) => {
    const index = `/${encodeURIComponent(properties.IndexName)}`;
    await retry<void>(`delete ${properties.IndexName}`, async () => {
      const deleted = await call(properties, 'DELETE', index);
      if (deleted.status === 200 || deleted.status === 404) return { done: true, value: undefined };
      // No address: the collection (and every index in it) is gone already.
      if (deleted.status === 0 && /ENOTFOUND|EAI_AGAIN|getaddrinfo/.test(deleted.body)) {
        return { done: true, value: undefined };
      }
      if (isRetryable(deleted.status)) return { done: false, reason: describe(deleted) };
      throw new VectorIndexError(`DELETE ${index} failed: ${describe(deleted)}`);
    });
  };

  /** Handles one CloudFormation request and answers its response URL; never throws. */
  return async function handleVectorIndexEvent(event: CustomResourceEvent): Promise<void> {
    const properties = event.ResourceProperties;
    let status: 'SUCCESS' | 'FAILED' = 'SUCCESS';
    let reason = '';
    try {
      if (event.RequestType === 'Delete') {
        // A Create that failed before naming the resource has nothing to delete.
        if (event.PhysicalResourceId === properties.IndexName) await deleteIndex(properties);
      } else {
        await ensureIndex(properties);
        reason = `${properties.IndexName} answers`;
      }
    } catch (error) {
      status = 'FAILED';
      reason = error instanceof Error ? error.message : String(error);
      log(`FAILED: ${reason}`);
    }
    const response = JSON.stringify({
      Status: status,
      Reason: reason.slice(0, 1000),
      // The index name: a new definition is a new name, which CloudFormation treats as a
      // replacement and so deletes the old index after the new one answers.
      PhysicalResourceId:
        event.RequestType === 'Create' && status === 'FAILED'
          ? `failed-${event.RequestId}`
          : event.RequestType === 'Delete'
            ? (event.PhysicalResourceId ?? properties.IndexName)
            : properties.IndexName,
      StackId: event.StackId,
      RequestId: event.RequestId,
      LogicalResourceId: event.LogicalResourceId,
    });
    await fetch(event.ResponseURL, {
      method: 'PUT',
      // The pre-signed URL was signed without a content type.
      headers: { 'content-type': '' },
      body: response,
    });
  };
}

type Attempt<T> =
  | { readonly done: true; readonly value: T }
  | { readonly done: false; readonly reason: string; readonly nextDelayMs?: number };

interface Mappings {
  readonly properties?: Record<string, { readonly dimension?: number }>;
}
interface IndexDefinition {
  readonly mappings?: Mappings;
}

const isRetryable = (status: number) =>
  status === 0 || status === 403 || status === 429 || status >= 500;

const isAlreadyExists = (response: { status: number; body: string }) =>
  response.status === 400 && response.body.includes('resource_already_exists_exception');

const describe = (response: { status: number; body: string }) =>
  `${response.status === 0 ? 'no connection' : `HTTP ${response.status}`} ${response.body.slice(0, 300)}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A {@link CollectionRequest} that signs each call for `aoss` (SigV4, with the payload hash
 * header OpenSearch Serverless requires) and sends it with `fetch`.
 */
export function createSignedCollectionRequest(settings: {
  readonly region: string;
  readonly credentials: AwsCredentials;
}): CollectionRequest {
  return async ({ endpoint, method, path, body }) => {
    const payload = body ?? '';
    const response = await signedAwsFetch({
      service: 'aoss',
      region: settings.region,
      credentials: settings.credentials,
      url: new URL(path, endpoint),
      method,
      headers: {
        'content-type': 'application/json',
        'x-amz-content-sha256': createHash('sha256').update(payload).digest('hex'),
      },
      body: payload,
      omitBody: method === 'GET' || method === 'DELETE',
    });
    return { status: response.status, body: await response.text() };
  };
}
