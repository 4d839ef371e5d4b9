import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BedrockAgentClient,
  ListKnowledgeBaseDocumentsCommand,
  StartIngestionJobCommand,
  ValidationException,
} from '@aws-sdk/client-bedrock-agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CATALOG_CACHE_MS,
  createKnowledgeBaseTicketCatalog,
} from '../../../functions/adapters/bedrock/knowledge-base-ticket-catalog.js';
import type { LogFields } from '../../../functions/chat/log.js';
import { ALL_DESK } from '../../../functions/contract/desks.js';
import { renderTicketDocuments } from '../../../functions/knowledge/ticket-document.js';
import {
  type LocalBedrockServer,
  startLocalBedrockServer,
} from '../../../local/bedrock/start-local-bedrock-server.js';
import {
  FIXTURE_TICKETS_DIR,
  LOCAL_CLIENT_CONFIG,
} from '../../local/bedrock/local-bedrock-fixture.js';
import { silentLog } from '../../support/silent-log.js';

/**
 * The ticket catalog (issue #28) through the real Bedrock Agent client against the local
 * endpoint's ListKnowledgeBaseDocuments: the fixture folder and a published folder, pages of 3.
 */

const clientConfig = { ...LOCAL_CLIENT_CONFIG, maxAttempts: 1 } as const;
const FIXTURE_IDS = ['9001', '9002', '9003', '9004', '9005', '9006', '9007', '9008'];

describe('createKnowledgeBaseTicketCatalog over the local ListKnowledgeBaseDocuments', () => {
  let publishedDir: string;
  let bedrock: LocalBedrockServer;
  let agent: BedrockAgentClient;
  /** ListKnowledgeBaseDocuments calls sent through `counted`. */
  let listCalls: { maxResults?: number; nextToken?: string }[];
  let counted: Pick<BedrockAgentClient, 'send'>;

  const publish = async (issueId: string) => {
    const files = renderTicketDocuments(
      issueId,
      {
        subject: `Ticket ${issueId}`,
        inquiry: 'The printer does not print.',
        resolution: ['Restart it.'],
        restricted: false,
        desk: ALL_DESK,
        category: 'Hardware',
      },
      { system: 'zendesk', systemLabel: 'Zendesk', resolvedOn: '2026-11-30' },
    );
    await writeFile(join(publishedDir, files.documentName), files.document);
    await writeFile(join(publishedDir, files.sidecarName), files.sidecar);
  };
  const sync = () =>
    agent.send(
      new StartIngestionJobCommand({
        knowledgeBaseId: bedrock.knowledgeBaseId,
        dataSourceId: bedrock.dataSourceId,
      }),
    );

  beforeAll(async () => {
    publishedDir = await mkdtemp(join(tmpdir(), 'ticket-catalog-test-'));
    await publish('ZD#35436');
    // A Markdown object with a sidecar that is no ticket document: indexed, but not a ticket.
    await writeFile(join(publishedDir, 'README.md'), '# Published tickets\n');
    await writeFile(
      join(publishedDir, 'README.md.metadata.json'),
      JSON.stringify({ metadataAttributes: { restricted: false } }),
    );
    bedrock = await startLocalBedrockServer({
      ticketsDir: FIXTURE_TICKETS_DIR,
      publishedDir,
      pacing: { minMs: 0, maxMs: 0 },
    });
    agent = new BedrockAgentClient({ ...clientConfig, endpoint: bedrock.agentEndpoint });
    counted = {
      send: ((command: unknown) => {
        if (command instanceof ListKnowledgeBaseDocumentsCommand) listCalls.push(command.input);
        return agent.send(command as ListKnowledgeBaseDocumentsCommand);
      }) as BedrockAgentClient['send'],
    };
  });
  afterAll(async () => {
    agent?.destroy();
    await bedrock?.close();
    await rm(publishedDir, { recursive: true, force: true });
  });

  const catalogOf = (
    options: { now?: () => number; dataSourceId?: string; warnings?: LogFields[] } = {},
  ) => {
    listCalls = [];
    return createKnowledgeBaseTicketCatalog({
      client: counted,
      knowledgeBaseId: bedrock.knowledgeBaseId,
      dataSourceId: options.dataSourceId ?? bedrock.dataSourceId,
      pageSize: 3,
      ...(options.now ? { now: options.now } : {}),
      log: {
        info: () => undefined,
        error: () => undefined,
        warn: (_message, fields) => options.warnings?.push(fields ?? {}),
      },
    });
  };

  it('lists every page: the served tickets and the published ones, the restricted one too, no other object', async () => {
    const issueIds = await catalogOf().issueIds();
    // 9006 is restricted: listed like any other (the AWS listing cannot tell it apart).
    expect(issueIds).toEqual([...FIXTURE_IDS, 'ZD#35436']);
    // 10 documents (8 fixtures, ZD_35436.md, README.md) in pages of 3: 4 calls, each with the
    // previous page's token.
    expect(listCalls.map((call) => call.maxResults)).toEqual([3, 3, 3, 3]);
    expect(listCalls.map((call) => call.nextToken)).toEqual([undefined, '3', '6', '9']);
  });

  it('serves one listing for the cache time, then answers with it while it lists again, and finds what a sync added', async () => {
    let clock = 1_000_000;
    const catalog = catalogOf({ now: () => clock });
    const [first, concurrent] = await Promise.all([catalog.issueIds(), catalog.issueIds()]);
    expect(concurrent).toBe(first);
    expect(listCalls).toHaveLength(4);

    await publish('900001');
    await sync();
    clock += CATALOG_CACHE_MS - 1;
    expect(await catalog.issueIds()).toBe(first);
    expect(listCalls).toHaveLength(4);

    clock += 1;
    // Expired: the old listing answers at once (stale while revalidating) and a new one starts.
    expect(await catalog.issueIds()).toBe(first);
    await expect.poll(() => listCalls.length).toBe(8);
    await expect.poll(() => catalog.issueIds()).toEqual(['900001', ...FIXTURE_IDS, 'ZD#35436']);
    expect(listCalls).toHaveLength(8);
    await rm(join(publishedDir, '900001.md'));
    await rm(join(publishedDir, '900001.md.metadata.json'));
    await sync();
  });

  it('answers undefined and logs a warning when the listing fails, and tries again next time', async () => {
    const warnings: LogFields[] = [];
    const catalog = catalogOf({ dataSourceId: 'NOSUCHDS01', warnings });
    expect(await catalog.issueIds()).toBeUndefined();
    expect(await catalog.issueIds()).toBeUndefined();
    expect(listCalls).toHaveLength(2);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatchObject({ dataSourceId: 'NOSUCHDS01' });
    expect(warnings[0]?.error).toMatchObject({ name: 'ResourceNotFoundException' });
  });

  it('refuses a page size the API would refuse, as the local endpoint does', async () => {
    expect(() =>
      createKnowledgeBaseTicketCatalog({
        client: agent,
        knowledgeBaseId: 'KB',
        dataSourceId: 'DS',
        pageSize: 1001,
        log: silentLog,
      }),
    ).toThrow('pageSize must be an integer from 1 to 1000');
    await expect(
      agent.send(
        new ListKnowledgeBaseDocumentsCommand({
          knowledgeBaseId: bedrock.knowledgeBaseId,
          dataSourceId: bedrock.dataSourceId,
          maxResults: 0,
        }),
      ),
    ).rejects.toBeInstanceOf(ValidationException);
  });
});
