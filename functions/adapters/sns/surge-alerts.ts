import type { Log } from '../../chat/log.js';
import type { SurgeAlert, SurgeAlerts } from '../../surges/ports.js';
import { type AwsCredentials, signedAwsFetch } from '../aws/signed-aws-fetch.js';

/**
 * Surge alerts (ADR 0033): an SNS `Publish` to the stack's alarm topic when a surge starts, or —
 * without a topic (locally) — a log line saying what would have been sent. The Publish is one
 * SigV4-signed query-protocol request (`signedAwsFetch`): the function carries no SNS client for
 * one call a surge.
 */

export interface SurgeAlertsOptions {
  /** The alarm topic; undefined: log what would be sent. */
  readonly topicArn?: string;
  readonly region: string;
  /** The function role's credentials, resolved at each send (a session's expire). */
  readonly credentials: () => AwsCredentials | Promise<AwsCredentials>;
  readonly log: Log;
  /** @default `https://sns.<region>.amazonaws.com/` */
  readonly endpoint?: string;
}

/** The alert's subject and text: the topic and counts, never who asked or what they wrote. */
export function surgeAlertMessage(alert: SurgeAlert): { subject: string; message: string } {
  return {
    subject: `Surge: ${alert.topic}`.slice(0, 100),
    message: [
      `Many staff are asking about "${alert.topic}" (${alert.topicKey}) right now.`,
      `${alert.inquiries} inquiries from ${alert.staff} staff members since ${alert.since} (tenant ${alert.tenantId}).`,
      'A lead can publish a known issue on the insights page so every answer on it says so.',
    ].join('\n'),
  };
}

export function createSurgeAlerts(options: SurgeAlertsOptions): SurgeAlerts {
  const { topicArn, log } = options;
  if (!topicArn) {
    return {
      async surgeStarted(alert) {
        const { subject, message } = surgeAlertMessage(alert);
        // As `text`: `message` is the log line's own key, and the logger drops a field of that name.
        log.info('surge alert not sent: no alarm topic', { subject, text: message });
      },
    };
  }
  const endpoint = new URL(options.endpoint ?? `https://sns.${options.region}.amazonaws.com/`);
  return {
    async surgeStarted(alert) {
      const { subject, message } = surgeAlertMessage(alert);
      const body = new URLSearchParams({
        Action: 'Publish',
        Version: '2010-03-31',
        TopicArn: topicArn,
        Subject: subject,
        Message: message,
      }).toString();
      const response = await signedAwsFetch({
        service: 'sns',
        region: options.region,
        credentials: await options.credentials(),
        url: endpoint,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body,
      });
      if (!response.ok) {
        throw new Error(
          `SNS Publish answered ${response.status}: ${(await response.text()).slice(0, 300)}`,
        );
      }
      log.info('surge alert sent', {
        topic: alert.topicKey,
        inquiries: alert.inquiries,
        staff: alert.staff,
      });
    },
  };
}
