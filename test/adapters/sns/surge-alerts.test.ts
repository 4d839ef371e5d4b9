import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSurgeAlerts } from '../../../functions/adapters/sns/surge-alerts.js';
import { createObservability } from '../../../functions/observability/telemetry.js';
import type { SurgeAlert } from '../../../functions/surges/ports.js';
import { loggedLinesOf } from '../../support/logged-lines.js';
import { silentLog } from '../../support/silent-log.js';

/** The SNS Publish a surge's start sends, as an SNS endpoint receives it. */

interface Received {
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

const received: Received[] = [];
let status = 200;
const server = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => {
    body += chunk.toString();
  });
  request.on('end', () => {
    received.push({ headers: request.headers, body });
    response.writeHead(status, { 'content-type': 'text/xml' });
    response.end(
      status === 200 ? '<PublishResponse/>' : '<Error><Code>AuthorizationError</Code></Error>',
    );
  });
});
let endpoint = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const alert = {
  tenantId: 'acme',
  topic: 'Outlook',
  topicKey: '*|outlook',
  inquiries: 3,
  staff: 3,
  since: '2026-12-07T09:00:00.000Z',
} satisfies SurgeAlert;

const topicArn = 'arn:aws:sns:ap-northeast-1:123456789012:alarms';

describe('surge alerts on the alarm topic', () => {
  it('publishes one SigV4-signed Publish with the topic and counts, never who asked', async () => {
    received.length = 0;
    status = 200;
    const alerts = createSurgeAlerts({
      topicArn,
      region: 'ap-northeast-1',
      credentials: () => ({
        accessKeyId: 'AKIDEXAMPLE',
        secretAccessKey: 'secret',
        sessionToken: 'token',
      }),
      log: silentLog,
      endpoint,
    });
    await alerts.surgeStarted(alert);
    expect(received).toHaveLength(1);
    const [publish] = received;
    expect(publish?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/ap-northeast-1\/sns\/aws4_request, SignedHeaders=[^,]*host[^,]*, Signature=[0-9a-f]{64}$/,
    );
    expect(publish?.headers['x-amz-security-token']).toBe('token');
    const form = new URLSearchParams(publish?.body);
    expect(form.get('Action')).toBe('Publish');
    expect(form.get('TopicArn')).toBe(topicArn);
    expect(form.get('Subject')).toBe('Surge: Outlook');
    expect(form.get('Message')).toContain('3 inquiries from 3 staff members');
  });

  it('throws with the status when SNS refuses', async () => {
    received.length = 0;
    status = 403;
    const alerts = createSurgeAlerts({
      topicArn,
      region: 'ap-northeast-1',
      credentials: () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }),
      log: silentLog,
      endpoint,
    });
    await expect(alerts.surgeStarted(alert)).rejects.toThrow(/SNS Publish answered 403/);
  });
});

describe('surge alerts without an alarm topic (the local stack)', () => {
  it('log the subject and the whole text that would have been sent, through the function’s logger', async () => {
    const { log } = createObservability({
      logLevel: 'INFO',
      metrics: false,
      tracing: false,
      modelId: 'offline.service-desk-responder',
    });
    const alerts = createSurgeAlerts({
      region: 'ap-northeast-1',
      credentials: () => ({ accessKeyId: 'unused', secretAccessKey: 'unused' }),
      log,
    });
    const lines = await loggedLinesOf(() => alerts.surgeStarted(alert));
    const notSent = lines.filter((line) => line.message === 'surge alert not sent: no alarm topic');
    expect(notSent).toHaveLength(1);
    expect(notSent[0]?.subject).toBe('Surge: Outlook');
    expect(notSent[0]?.text).toContain('3 inquiries from 3 staff members');
    // Nothing of it dropped: the logger warns about (and drops) a field named like its own keys.
    expect(lines.filter((line) => line.level === 'WARN')).toEqual([]);
  });
});
