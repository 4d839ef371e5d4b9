import { type AwsCredentials, signedAwsFetch } from '../aws/signed-aws-fetch.js';

/**
 * Secrets Manager's `GetSecretValue`, signed with SigV4 and sent with `fetch`: the one call the
 * ticket sync makes to Secrets Manager, without a client package of its own (the JSON protocol
 * is a POST with an `X-Amz-Target` header). Errors name the secret and what to check; the
 * secret's value never appears in one.
 */

export interface SecretReaderOptions {
  readonly region: string;
  /** The function role's session (the runtime's `AWS_ACCESS_KEY_ID`, … variables). */
  readonly credentials: AwsCredentials;
  /** A local endpoint (tests); unset in AWS. */
  readonly endpoint?: string;
  readonly fetch: typeof fetch;
}

/** The secret could not be read: missing, not allowed, or not a string secret. */
export class SecretReadError extends Error {
  override readonly name = 'SecretReadError';
}

/** Reads `secretId` (a name or ARN) and returns its `SecretString`. */
export async function readSecretString(
  options: SecretReaderOptions,
  secretId: string,
  signal?: AbortSignal,
): Promise<string> {
  const url = new URL(
    options.endpoint ?? `https://secretsmanager.${options.region}.amazonaws.com/`,
  );
  const body = JSON.stringify({ SecretId: secretId });
  const response = await signedAwsFetch({
    service: 'secretsmanager',
    region: options.region,
    credentials: options.credentials,
    url,
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'secretsmanager.GetSecretValue',
    },
    body,
    fetch: options.fetch,
    ...(signal && { signal }),
  });
  const text = await response.text();
  let json: { SecretString?: unknown; __type?: unknown; message?: unknown; Message?: unknown };
  try {
    json = JSON.parse(text);
  } catch {
    throw new SecretReadError(
      `Secrets Manager answered HTTP ${response.status} without JSON for the secret ${secretId}`,
    );
  }
  if (!response.ok) {
    const type = String(json.__type ?? `HTTP ${response.status}`)
      .split('#')
      .pop();
    const hint =
      type === 'ResourceNotFoundException'
        ? 'it does not exist in this account and region'
        : type === 'AccessDeniedException'
          ? 'the function may not read it (its name or ARN in ticketSync, or a customer-managed key whose policy does not let the function decrypt)'
          : String(json.message ?? json.Message ?? 'see the function log');
    throw new SecretReadError(`cannot read the secret ${secretId} (${type}): ${hint}`);
  }
  if (typeof json.SecretString !== 'string') {
    throw new SecretReadError(
      `the secret ${secretId} holds no text (SecretString): store the credentials as JSON text`,
    );
  }
  return json.SecretString;
}
