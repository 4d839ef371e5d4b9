import { describe, expect, it } from 'vitest';
import {
  readSecretString,
  SecretReadError,
} from '../../../functions/adapters/secrets/secrets-manager-secret.js';

/** A fetch that records the request and answers with `status` and `body`. */
function answering(status: number, body: unknown) {
  const requests: { url: string; headers: Headers; body: string }[] = [];
  const fetch = (async (url: URL, init: RequestInit) => {
    requests.push({
      url: String(url),
      headers: new Headers(init.headers as Record<string, string>),
      body: String(init.body),
    });
    return new Response(JSON.stringify(body), { status });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, requests };
}

const options = {
  region: 'ap-northeast-1',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' },
};

describe('readSecretString', () => {
  it('signs one GetSecretValue call to the region’s endpoint and returns the text', async () => {
    const { fetch, requests } = answering(200, {
      Name: 'sd/jira',
      SecretString: '{"JIRA_TOKEN":"t"}',
    });
    expect(await readSecretString({ ...options, fetch }, 'sd/jira')).toBe('{"JIRA_TOKEN":"t"}');
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request?.url).toBe('https://secretsmanager.ap-northeast-1.amazonaws.com/');
    expect(request?.body).toBe('{"SecretId":"sd/jira"}');
    expect(request?.headers.get('x-amz-target')).toBe('secretsmanager.GetSecretValue');
    expect(request?.headers.get('content-type')).toBe('application/x-amz-json-1.1');
    expect(request?.headers.get('x-amz-security-token')).toBe('token');
    expect(request?.headers.get('authorization')).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/ap-northeast-1\/secretsmanager\/aws4_request, SignedHeaders=[^,]*x-amz-target[^,]*, Signature=[0-9a-f]{64}$/,
    );
  });

  it('names the secret and what to check when it is missing, not allowed, or binary', async () => {
    const read = (status: number, body: unknown) =>
      readSecretString({ ...options, fetch: answering(status, body).fetch }, 'sd/servicenow');
    await expect(
      read(400, { __type: 'ResourceNotFoundException', message: 'not found' }),
    ).rejects.toThrow(/sd\/servicenow \(ResourceNotFoundException\): it does not exist/);
    await expect(
      read(400, { __type: 'com.amazon.coral.service#AccessDeniedException' }),
    ).rejects.toThrow(/sd\/servicenow \(AccessDeniedException\): the function may not read it/);
    await expect(read(200, { Name: 'sd/servicenow', SecretBinary: 'AAAA' })).rejects.toBeInstanceOf(
      SecretReadError,
    );
  });
});
