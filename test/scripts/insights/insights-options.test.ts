import { describe, expect, it } from 'vitest';
import {
  InsightsUsageError,
  parseInsightsOptions,
} from '../../../scripts/insights/insights-options.js';

describe('parseInsightsOptions', () => {
  it('reads the page’s 30-day window from the local stack by default, as tables', () => {
    expect(parseInsightsOptions([])).toEqual({
      days: 30,
      json: false,
      target: 'local',
      tenantId: 'local',
    });
  });

  it('takes --since 90d, --json, a running DynamoDB and a table', () => {
    expect(
      parseInsightsOptions([
        '--since',
        '90d',
        '--json',
        '--endpoint',
        'http://127.0.0.1:8000',
        '--table',
        'x-Insights',
      ]),
    ).toEqual({
      days: 90,
      json: true,
      target: 'local',
      endpoint: 'http://127.0.0.1:8000',
      table: 'x-Insights',
      tenantId: 'local',
    });
  });

  it('reads the deployed function’s default tenant with --target aws unless --tenant names one', () => {
    expect(parseInsightsOptions(['--target', 'aws'])).toMatchObject({
      target: 'aws',
      tenantId: 'default',
    });
    expect(parseInsightsOptions(['--target', 'aws', '--tenant', 'acme'])).toMatchObject({
      tenantId: 'acme',
    });
  });

  it.each([
    [['--since', '7d'], "--since must be 30d or 90d (the page's windows), not 7d"],
    [['--since', '30'], "--since must be 30d or 90d (the page's windows), not 30"],
    [['--target', 'prod'], '--target must be local or aws, not prod'],
    [
      ['--target', 'aws', '--endpoint', 'http://127.0.0.1:8000'],
      '--endpoint is for --target local (a running DynamoDB)',
    ],
    [['--endpoint', 'localhost:8000'], '--endpoint must be an http(s) URL, not localhost:8000'],
    [['--table', ' '], '--table must name a table'],
    [['--tenant', 'a#b'], '--tenant must be 1-64 of A-Z a-z 0-9 . _ : @ -, not a#b'],
    [['--days', '30'], "Unknown option '--days'"],
    [['--json', 'extra'], "Unexpected argument 'extra'"],
  ])('refuses %j with one clear line', (args, message) => {
    expect(() => parseInsightsOptions(args)).toThrow(new InsightsUsageError(message));
  });
});
