import { describe, expect, it } from 'vitest';
import { printDeployedSyncStatus } from '../../../scripts/import/deployed-sync-status.js';

describe('printDeployedSyncStatus', () => {
  it('prints each deployed source’s last run, counts and lag, and a source not run yet', () => {
    const lines: string[] = [];
    printDeployedSyncStatus(
      {
        stackName: 'ServiceDeskAssistant',
        sources: [
          {
            id: 'servicenow',
            status: {
              sourceKey: 'servicenow https://acme.service-now.com incident',
              system: 'servicenow',
              mode: 'pull',
              endedAt: '2026-12-07T10:05:00.000Z',
              outcome: 'failed',
              error: 'SourceAuthError: ServiceNow refused the credentials (HTTP 401)',
              lastSuccessAt: '2026-12-07T09:50:00.000Z',
              freshAsOf: '2026-12-07T09:45:00.000Z',
              newestChange: '2026-12-07T09:40:00.000Z',
              counts: {
                records: 12,
                added: 3,
                changed: 2,
                unchanged: 6,
                removed: 1,
                skipped: { notResolved: 4, malformed: 0 },
                scrubbed: { email: 2 },
              } as never,
            },
          },
          { id: 'jira' },
        ],
      },
      new Date('2026-12-07T10:15:00.000Z'),
      (line) => lines.push(line),
    );
    expect(lines).toEqual([
      'servicenow (servicenow https://acme.service-now.com incident)',
      '  last run 2026-12-07T10:05:00.000Z pull failed (SourceAuthError: ServiceNow refused the credentials (HTTP 401)); last successful sync 2026-12-07T09:50:00.000Z',
      '  3 added, 2 changed, 1 removed, 6 unchanged of 12 record(s) read',
      '  lag 30 min (fresh as of 2026-12-07T09:45:00.000Z; newest change seen 2026-12-07T09:40:00.000Z)',
      '  skipped: notResolved 4',
      '  personal data replaced: email 2',
      'jira: not run yet',
    ]);
  });

  it('says when the stack syncs no system', () => {
    const lines: string[] = [];
    printDeployedSyncStatus({ stackName: 'S', sources: [] }, new Date(), (line) =>
      lines.push(line),
    );
    expect(lines).toEqual([
      'Stack S syncs no ticket system (the ticketSync deploy setting is empty).',
    ]);
  });
});
