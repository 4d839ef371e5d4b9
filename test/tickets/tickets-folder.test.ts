import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BedrockAgentRuntimeClient } from '@aws-sdk/client-bedrock-agent-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKnowledgeBaseRetriever } from '../../functions/adapters/bedrock/knowledge-base-retriever.js';
import { ALL_DESK } from '../../functions/contract/desks.js';
import { ticketCategorySet } from '../../functions/contract/knowledge.js';
import { sourceTicketId } from '../../functions/contract/ticket-references.js';
import { ticketDocumentNames } from '../../functions/knowledge/ticket-document.js';
import { readFunctionConfig } from '../../functions/settings/function-settings.js';
import { readTicketCategories } from '../../lib/ticket-categories.js';
import {
  type LocalBedrockServer,
  startLocalBedrockServer,
} from '../../local/bedrock/start-local-bedrock-server.js';
import { readLocalStackEnvironment } from '../../local/local-stack-environment.js';
import { startLocalStack } from '../../local/start-local-stack.js';

/**
 * `TICKETS_DIR=tickets/ npm start`: any ticket folder (an import's `--out`) is what the local
 * Knowledge Base serves and where knowledge capture's categories come from (ADR 0020). In
 * process: the local Bedrock endpoint over the real SDK client, no Java.
 */

/** Writes one ticket as the importer does: canonical id, its file names, the source's category. */
function writeTicket(directory: string, issueId: string, subject: string, category: string) {
  const names = ticketDocumentNames(issueId);
  writeFileSync(
    join(directory, names.documentName),
    `# ${subject}\n\n- Ticket: ${issueId}\n- Category: ${category}\n\n## Inquiry\n\n${subject}\n`,
  );
  writeFileSync(
    join(directory, names.sidecarName),
    JSON.stringify({
      metadataAttributes: {
        issue_id: issueId,
        subject,
        category,
        restricted: false,
        desk: ALL_DESK,
      },
    }),
  );
}

let directory: string;
let bedrock: LocalBedrockServer;
let client: BedrockAgentRuntimeClient;
beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'imported-tickets-'));
  writeTicket(
    directory,
    sourceTicketId('servicenow', 'INC0012345'),
    'Wi-Fi drops in meeting room',
    'network',
  );
  writeTicket(
    directory,
    sourceTicketId('servicenow', 'RITM0012345'),
    'Request a Wi-Fi guest account',
    'inquiry',
  );
  writeTicket(
    directory,
    sourceTicketId('jira', 'ITSD-123'),
    'Printer offline after update',
    'Printers',
  );
  writeTicket(directory, sourceTicketId('zendesk', 35436), 'Wi-Fi password reset', 'network');
  bedrock = await startLocalBedrockServer({
    ticketsDir: directory,
    pacing: { minMs: 0, maxMs: 0 },
  });
  client = new BedrockAgentRuntimeClient({
    endpoint: bedrock.agentRuntimeEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
});
afterAll(async () => {
  client?.destroy();
  await bedrock?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('the local Knowledge Base over a ticket folder', () => {
  it('retrieves that folder’s tickets, with their source numbers, and none of data/tickets', async () => {
    const retriever = createKnowledgeBaseRetriever({
      client,
      knowledgeBaseId: bedrock.knowledgeBaseId,
    });
    const found = await retriever.search('Wi-Fi', { limit: 10, desks: [ALL_DESK] });
    // The folder's four tickets and nothing else (data/tickets holds 171).
    expect(found.map((ticket) => ticket.issueId).sort()).toEqual([
      'INC0012345',
      'ITSD-123',
      'RITM0012345',
      'ZD#35436',
    ]);
    const printer = await retriever.search('Printer offline', { limit: 10, desks: [ALL_DESK] });
    expect(printer[0]?.issueId).toBe('ITSD-123');
  });

  it('fetches a referenced ticket by its number, a bare Zendesk number too', async () => {
    const retriever = createKnowledgeBaseRetriever({
      client,
      knowledgeBaseId: bedrock.knowledgeBaseId,
    });
    const fetched = await retriever.fetchByIssueIds(['INC0012345', '35436', 'ZD#35436'], {
      limit: 8,
      desks: [ALL_DESK],
    });
    expect([...new Set(fetched.map((ticket) => ticket.issueId))].sort()).toEqual([
      'INC0012345',
      'ZD#35436',
    ]);
  });
});

describe('knowledge capture’s categories from the folder', () => {
  it('are the sidecars’ categories, which the function config accepts as TICKET_CATEGORIES', () => {
    const categories = readTicketCategories(directory);
    expect(categories).toEqual(['Printers', 'inquiry', 'network']);
    const config = readFunctionConfig({
      CONVERSATIONS_TABLE: 'c',
      TURNS_TABLE: 't',
      KNOWLEDGE_BASE_ID: 'KB',
      MODEL_ID: 'offline.service-desk-responder',
      AUTH_MODE: 'local',
      TICKET_CATEGORIES: JSON.stringify(categories),
    });
    expect(config.knowledge.ticketCategories).toEqual(categories);
  });

  it('keep the 50 most frequent, each at most 40 safe characters', () => {
    const many = Array.from({ length: 80 }, (_, index) =>
      Array.from({ length: 80 - index }, () => `Category ${index}`),
    ).flat();
    const set = ticketCategorySet([...many, 'x'.repeat(41), 'a\nb', '<script>', 'ＶＰＮ']);
    expect(set).toHaveLength(50);
    expect(set).toContain('Category 0');
    expect(set).not.toContain('Category 79');
    expect(
      ticketCategorySet(['x'.repeat(41), 'a\u0000b', '<script>', 'ＶＰＮ', ' Mail  box ']),
    ).toEqual(['Mail box', 'VPN']);
  });
});

describe('TICKETS_DIR', () => {
  it('is data/tickets by default, else the folder named, from the working directory', () => {
    expect(readLocalStackEnvironment({}).ticketsDir).toBe(resolve('data/tickets'));
    expect(readLocalStackEnvironment({ TICKETS_DIR: 'tickets/' }).ticketsDir).toBe(
      resolve('tickets'),
    );
  });

  it('stops npm start with the folder named when it is missing, before anything starts', async () => {
    const missing = join(directory, 'not-there');
    await expect(startLocalStack({ environment: { TICKETS_DIR: missing } })).rejects.toThrow(
      `Ticket folder not found: ${missing} is not a directory.`,
    );
  });

  it('stops npm start when the folder holds no ticket', async () => {
    const empty = join(directory, 'empty');
    mkdirSync(empty);
    writeFileSync(join(empty, 'notes.txt'), 'no tickets here\n');
    await expect(startLocalStack({ environment: { TICKETS_DIR: empty } })).rejects.toThrow(
      `No tickets in ${empty}`,
    );
    await expect(startLocalBedrockServer({ ticketsDir: empty })).rejects.toThrow(
      `No tickets in ${empty}`,
    );
  });
});
