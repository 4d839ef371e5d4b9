import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createTables } from '../../local/create-tables.js';
import { JAVA_REQUIRED_MESSAGE, startDynamoDbLocal } from '../../local/dynamodb-local.js';

/** The environment (`NAME=value` entries) of the JVM serving `endpoint`, read from /proc. */
function jvmEnvironmentOf(endpoint: string): string[] {
  const port = new URL(endpoint).port;
  const pid = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .find((line) => line.includes('DynamoDBLocal.jar') && line.includes(`-port ${port}`))
    ?.trim()
    .split(/\s+/)[0];
  expect(pid).toBeDefined();
  return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
}

describe('startDynamoDbLocal', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dynamodb-local-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const clientFor = (endpoint: string) =>
    new DynamoDBClient({
      endpoint,
      region: 'local',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      maxAttempts: 1,
    });

  it('says in one line how to install Java when there is none', async () => {
    const path = process.env.PATH;
    process.env.PATH = dataDir; // a directory without `java`
    try {
      const error = await startDynamoDbLocal({ port: 0 }).catch((caught: Error) => caught);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe(JAVA_REQUIRED_MESSAGE);
      expect(JAVA_REQUIRED_MESSAGE).not.toContain('\n');
    } finally {
      process.env.PATH = path;
    }
  });

  it('keeps tables in dataDir across restarts, and stop() ends the process', async () => {
    const first = await startDynamoDbLocal({ port: 0, dataDir });
    const firstClient = clientFor(first.endpoint);
    await createTables(firstClient, 'persist-');
    await first.stop();
    await expect(firstClient.send(new ListTablesCommand({}))).rejects.toThrow();
    firstClient.destroy();

    const second = await startDynamoDbLocal({ port: 0, dataDir });
    const secondClient = clientFor(second.endpoint);
    try {
      const { TableNames } = await secondClient.send(new ListTablesCommand({}));
      expect(TableNames).toEqual(['persist-Conversations', 'persist-Insights', 'persist-Turns']);
    } finally {
      secondClient.destroy();
      await second.stop();
    }
    // Two JVM starts: a few seconds on an idle machine, far more when the cores are shared.
  }, 120_000);
  it('runs the JVM with the client compiler only and no telemetry, and leaves this process environment as it was', async () => {
    const before = {
      JDK_JAVA_OPTIONS: process.env.JDK_JAVA_OPTIONS,
      DDB_LOCAL_TELEMETRY: process.env.DDB_LOCAL_TELEMETRY,
    };
    const local = await startDynamoDbLocal({ port: 0 });
    try {
      const environment = jvmEnvironmentOf(local.endpoint);
      expect(environment.find((entry) => entry.startsWith('JDK_JAVA_OPTIONS='))).toContain(
        '-XX:TieredStopAtLevel=1',
      );
      // A developer's own setting wins; otherwise telemetry is off.
      expect(environment).toContain(`DDB_LOCAL_TELEMETRY=${before.DDB_LOCAL_TELEMETRY ?? '0'}`);
      expect(process.env.JDK_JAVA_OPTIONS).toBe(before.JDK_JAVA_OPTIONS);
      expect(process.env.DDB_LOCAL_TELEMETRY).toBe(before.DDB_LOCAL_TELEMETRY);
    } finally {
      await local.stop();
    }
  }, 60_000);

  it('keeps the temporary files of the JVM in a folder of its own, removed when it stops', async () => {
    const local = await startDynamoDbLocal({ port: 0 });
    let javaTemp: string | undefined;
    try {
      const options = jvmEnvironmentOf(local.endpoint).find((entry) =>
        entry.startsWith('JDK_JAVA_OPTIONS='),
      );
      javaTemp = /-Djava\.io\.tmpdir=(\S+)/.exec(options ?? '')?.[1];
      expect(javaTemp?.startsWith(tmpdir())).toBe(true);
      // sqlite4java unpacks its native library there when the first table is made.
      const client = clientFor(local.endpoint);
      await createTables(client, 'scratch-');
      client.destroy();
      expect(readdirSync(javaTemp as string).some((name) => name.includes('sqlite4java'))).toBe(
        true,
      );
    } finally {
      await local.stop();
    }
    expect(existsSync(javaTemp as string)).toBe(false);
  }, 60_000);
});
