import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The two AWS calls the ticket-sync function makes besides S3 and DynamoDB, answered locally on
 * one port: Secrets Manager's `GetSecretValue` (the JSON protocol: a POST with
 * `X-Amz-Target: secretsmanager.GetSecretValue`, as functions/adapters/secrets/ sends it) and
 * Bedrock Agent's `StartIngestionJob` (`PUT /knowledgebases/{id}/datasources/{id}/ingestionjobs/`).
 * Each request is recorded with its `Authorization` header, so a test can see it was signed.
 */

export interface LocalSyncControlPlane {
  /** For `SECRETS_MANAGER_ENDPOINT` and `BEDROCK_AGENT_ENDPOINT`. */
  readonly endpoint: string;
  /** The secrets served, by name; change them to change what a read returns. */
  readonly secrets: Map<string, string>;
  readonly secretReads: { readonly secretId: string; readonly authorization: string }[];
  readonly ingestionJobs: { readonly knowledgeBaseId: string; readonly dataSourceId: string }[];
  close(): Promise<void>;
}

const INGESTION_JOBS_PATH = /^\/knowledgebases\/([^/]+)\/datasources\/([^/]+)\/ingestionjobs\/?$/;

export async function startLocalSyncControlPlane(
  secrets: Readonly<Record<string, string>>,
): Promise<LocalSyncControlPlane> {
  const served = new Map(Object.entries(secrets));
  const secretReads: LocalSyncControlPlane['secretReads'] = [];
  const ingestionJobs: LocalSyncControlPlane['ingestionJobs'] = [];
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const send = (status: number, json: unknown, contentType = 'application/json') => {
      response.writeHead(status, { 'content-type': contentType });
      response.end(JSON.stringify(json));
    };
    const target = request.headers['x-amz-target'];
    if (request.method === 'POST' && target === 'secretsmanager.GetSecretValue') {
      const { SecretId } = JSON.parse(body || '{}') as { SecretId?: string };
      secretReads.push({
        secretId: String(SecretId),
        authorization: String(request.headers.authorization ?? ''),
      });
      const value = SecretId === undefined ? undefined : served.get(SecretId);
      if (value === undefined) {
        return send(
          400,
          {
            __type: 'ResourceNotFoundException',
            message: "Secrets Manager can't find the specified secret.",
          },
          'application/x-amz-json-1.1',
        );
      }
      return send(
        200,
        {
          ARN: `arn:aws:secretsmanager:us-east-1:123456789012:secret:${SecretId}`,
          Name: SecretId,
          SecretString: value,
        },
        'application/x-amz-json-1.1',
      );
    }
    const job = INGESTION_JOBS_PATH.exec((request.url ?? '').split('?')[0] ?? '');
    if (request.method === 'PUT' && job) {
      const [, knowledgeBaseId = '', dataSourceId = ''] = job;
      ingestionJobs.push({ knowledgeBaseId, dataSourceId });
      return send(202, {
        ingestionJob: {
          ingestionJobId: `job-${ingestionJobs.length}`,
          knowledgeBaseId,
          dataSourceId,
          status: 'STARTING',
          startedAt: new Date().toISOString(),
          updatedAt: new Date().toISOString(),
        },
      });
    }
    send(404, { message: `not served here: ${request.method} ${request.url} ${target ?? ''}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    secrets: served,
    secretReads,
    ingestionJobs,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
