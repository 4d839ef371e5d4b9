import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BedrockAgentClient } from '@aws-sdk/client-bedrock-agent';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { loadPersonNameAnalyzer } from '../functions/knowledge/person-name-analyzer.js';
import {
  parseScrubSettings,
  type ScrubSettings,
} from '../functions/knowledge/personal-data-scrub.js';
import {
  ExportFileError,
  readUtf8TextFile,
  TEXT_ENCODINGS,
  type TextEncodingName,
} from '../functions/ticket-import/export-files.js';
import {
  SKIP_REASONS,
  SOURCE_NAMES,
  type SourceName,
} from '../functions/ticket-import/imported-ticket.js';
import {
  DEFAULT_COMMENTS,
  type ImportProgress,
  type ImportReport,
  ImportUsageError,
  MAX_IMPORTED_TEXT,
  runImport,
  StrictImportError,
} from '../functions/ticket-import/run-import.js';
import {
  COMMENT_POLICIES,
  type CommentPolicy,
} from '../functions/ticket-import/sources/source-options.js';
import { readTabularMapping } from '../functions/ticket-import/sources/tabular.js';
import { abortableSleep } from '../functions/ticket-sync/create-ticket-source.js';
import { cursorFileOf, FileCursorStore } from '../functions/ticket-sync/file-stores.js';
import { SYNC_SYSTEMS, type SyncSystem } from '../functions/ticket-sync/ticket-source.js';
import { readDeployedStack, SkipError } from './deployed-stack.js';
import { printDeployedSyncStatus, readDeployedSyncStatus } from './import/deployed-sync-status.js';
import { pullIntoStack, type StackTarget, stackTargetOf } from './import/pull-into-stack.js';
import { printSyncStatus, pullTickets } from './import/pull-tickets.js';
import { uploadTickets } from './import/upload-tickets.js';

/**
 * `npm run import`: ticket-system exports → ticket documents (docs/deploy.md, "Bring your
 * tickets"). The work is scripts/import/run-import.ts; this file reads the command line, draws
 * the progress line, prints the report and uploads.
 *
 *   npm run import -- --from servicenow exports/incidents.json --out tickets/
 *   npm run import -- --from jira exports/ --out tickets/ --restricted-when 'labels=hr'
 *   npm run import -- --from jira exports/ --out tickets/ --desk-when 'components=HR=hr'
 *   npm run import -- --from zendesk exports/ --upload
 *   npm run import -- --from csv tickets.csv --mapping mapping.json --out tickets/ --dry-run
 *   npm run import -- --from servicenow --url https://acme.service-now.com --out tickets/
 *   npm run import -- --from servicenow --url https://acme.service-now.com --upload
 *   npm run import -- --status --out tickets/
 *
 * Exit codes: 0 done (malformed records are reported, not fatal), 1 a fatal error or `--strict`
 * with a malformed record (nothing written), 2 bad usage or no AWS credentials for `--upload`.
 */

const USAGE = `usage: npm run import -- --from <${SOURCE_NAMES.join('|')}> <export file or folder>... [options]
       npm run import -- --from <${SYNC_SYSTEMS.join('|')}> --url https://… --out <folder>|--upload [options]
       npm run import -- --status --out <folder>

  --url <https://…>           pull from the system's REST API instead of export files: what changed
                              since the last pull into this --out folder (its cursor is the dot-file
                              beside it), or with --upload into the deployed stack (its cursor in the
                              stack's TicketSync table). Credentials only from the environment:
                              SERVICENOW_USERNAME/SERVICENOW_PASSWORD or SERVICENOW_TOKEN,
                              JIRA_EMAIL/JIRA_API_TOKEN or JIRA_TOKEN,
                              ZENDESK_EMAIL/ZENDESK_API_TOKEN or ZENDESK_TOKEN
  --table <name>              ServiceNow tables to pull (repeatable; default incident, sc_req_item)
  --jql <query>               Jira: only issues this JQL matches (ANDed with the change window)
  --jira-deployment cloud|datacenter
                              Jira's search API (default: cloud for *.atlassian.net)
  --since <date>              the first pull's window start (default: everything)
  --reconcile                 after the pull, remove tickets the system no longer lists
  --status                    print each synced source's last run, counts and lag
  --status --target aws       the same for the deployed stack's ticketSync sources (its table)

  --out <folder>              write ticket documents here (required unless --upload or --dry-run)
  --mapping <file.json>       column mapping for --from csv / jsonl (docs/deploy.md)
  --restricted-when f=v       mark tickets whose field f has value v restricted (repeatable)
  --desk-when f=v=desk        tickets whose field f has value v belong to desk (repeatable; the
                              first rule that matches decides; none: desk all, for everyone)
  --comments public|all|none  which comments become resolution steps (default: close notes for
                              servicenow, public agent comments for jira and zendesk)
  --encoding utf-8|shift_jis  the encoding of CSV and JSON Lines files (default: UTF-8 when the
                              file is valid UTF-8, else Shift_JIS when it is valid Shift_JIS;
                              a byte-order mark decides first)
  --scrub-settings <file>     extra patterns and a name dictionary for the personal-data scrub
  --no-name-analyzer          find names by phrasing and person fields only, without the person-name
                              analyzer (faster; names no phrasing marks stay: ADR 0019)
  --dry-run                   write nothing; print what would be written, changed and skipped
  --prune                     remove tickets this import wrote earlier that are no longer exported
  --strict                    stop at the first malformed record (exit 1, nothing written)
  --upload                    put changed tickets into the deployed stack's bucket, start a sync
  --help`;

async function main(argv: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.help) {
    console.log(USAGE);
    return 0;
  }
  if (parsed.status?.target === 'aws') {
    try {
      printDeployedSyncStatus(await readDeployedSyncStatus(), new Date(), (line) =>
        console.log(line),
      );
    } catch (error) {
      if (!(error instanceof SkipError)) throw error;
      console.log(`SKIPPED: the deployed stack's ticket sync status — ${error.message}`);
    }
    return 0;
  }
  if (parsed.status) {
    printSyncStatus(
      await new FileCursorStore(cursorFileOf(parsed.status.outDir)).status(),
      new Date(),
      (line) => console.log(line),
    );
    return 0;
  }
  if (parsed.pullIntoStack) {
    const { pullIntoStack: pull } = parsed;
    // The stack and its credentials first: without them the command ends before any work.
    let target: StackTarget;
    let region: string;
    try {
      const stack = await readDeployedStack('IMPORT_STACK_NAME');
      target = stackTargetOf(stack);
      region = stack.region;
    } catch (error) {
      if (error instanceof SkipError) {
        console.error(
          `SKIPPED: --upload needs the stack's account: ${error.message}. Set AWS_PROFILE (or the AWS_* ` +
            'variables) for the account of the stack, or pull into --out <folder> to write the documents locally. Nothing was pulled.',
        );
        return 2;
      }
      console.error(`FAILED: ${(error as Error).message}. Nothing was pulled.`);
      return 2;
    }
    const stop = new AbortController();
    // Ctrl-C stops between pages: the cursor stays at the last page written, the next run resumes.
    process.once('SIGINT', () => stop.abort());
    const dynamodb = new DynamoDBClient({ region });
    try {
      return await pullIntoStack(
        { ...pull, analyzer: pull.nameAnalyzer ? await loadPersonNameAnalyzer() : undefined },
        {
          env: process.env,
          runtime: { fetch, sleep: abortableSleep, now: () => Date.now() },
          target,
          clients: {
            s3: new S3Client({ region }),
            documents: DynamoDBDocumentClient.from(dynamodb),
            agent: new BedrockAgentClient({ region }),
          },
          holder: `npm run import ${randomUUID()}`,
          signal: stop.signal,
          log: (line) => console.log(line),
          error: (line) => console.error(line),
          now: () => new Date(),
        },
      );
    } finally {
      dynamodb.destroy();
    }
  }
  if (parsed.pull) {
    const { pull } = parsed;
    const stop = new AbortController();
    // Ctrl-C stops between pages: the cursor stays at the last page written, the next run resumes.
    process.once('SIGINT', () => stop.abort());
    const cursorFile = cursorFileOf(pull.outDir);
    return pullTickets(
      { ...pull, analyzer: pull.nameAnalyzer ? await loadPersonNameAnalyzer() : undefined },
      {
        env: process.env,
        runtime: { fetch, sleep: abortableSleep, now: () => Date.now() },
        cursors: new FileCursorStore(cursorFile),
        signal: stop.signal,
        log: (line) => console.log(line),
        error: (line) => console.error(line),
        now: () => new Date(),
      },
    );
  }
  const { options } = parsed;
  const temporaryOut =
    options.upload && !options.outDir ? mkdtempSync(join(tmpdir(), 'ticket-import-')) : undefined;
  const outDir = options.outDir ?? temporaryOut;
  const progress = createProgressLine();
  try {
    const report = await runImport({ ...options, outDir, onProgress: progress.update });
    progress.done();
    printReport(report, outDir);
    if (options.upload && !options.dryRun && outDir) {
      console.log('Uploading to the stack’s document bucket…');
      const result = await uploadTickets({
        source: options.source,
        outDir,
        names: report.ticketNames,
        prune: options.prune ?? false,
        log: (line) => console.log(line),
      });
      console.log(
        `Uploaded ${result.uploaded} object(s) to s3://${result.bucket}/ (${result.unchanged} unchanged` +
          `${options.prune ? `, ${result.deleted} deleted` : ''}).`,
      );
      if (result.sync === 'started') {
        console.log(
          `Sync ${result.ingestionJobId ?? ''} started; follow it with npm run ingest -- --latest.`,
        );
      } else if (result.sync === 'running') {
        console.log(
          'A sync was already running and may have missed these objects: run npm run ingest when it ends.',
        );
      }
    }
    return 0;
  } catch (error) {
    progress.done();
    if (error instanceof SkipError) {
      console.error(
        `SKIPPED upload: ${error.message}. Set AWS_PROFILE (or the AWS_* variables) for the account ` +
          'of the stack, or import with --out <folder> to write the documents locally.',
      );
      return 2;
    }
    if (error instanceof ImportUsageError) {
      console.error(error.message);
      return 2;
    }
    if (error instanceof ExportFileError || error instanceof StrictImportError) {
      console.error(`FAILED: ${error.message}\nNothing was written.`);
      return 1;
    }
    throw error;
  } finally {
    if (temporaryOut) rmSync(temporaryOut, { recursive: true, force: true });
  }
}

function parseCommandLine(argv: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      from: { type: 'string' },
      out: { type: 'string' },
      mapping: { type: 'string' },
      'restricted-when': { type: 'string', multiple: true, default: [] },
      'desk-when': { type: 'string', multiple: true, default: [] },
      comments: { type: 'string' },
      encoding: { type: 'string' },
      'scrub-settings': { type: 'string' },
      'no-name-analyzer': { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      prune: { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
      upload: { type: 'boolean', default: false },
      url: { type: 'string' },
      table: { type: 'string', multiple: true },
      jql: { type: 'string' },
      'jira-deployment': { type: 'string' },
      since: { type: 'string' },
      reconcile: { type: 'boolean', default: false },
      status: { type: 'boolean', default: false },
      target: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return { help: true as const, options: undefined as never };
  if (values.status && values.target !== undefined) {
    if (values.target !== 'aws') throw new Error(`--target must be aws, not ${values.target}`);
    return {
      help: false as const,
      status: { target: 'aws' as const },
      options: undefined as never,
    };
  }
  if (values.status) {
    if (!values.out)
      throw new Error('--status reads the cursor beside --out <folder>: name the folder');
    return { help: false as const, status: { outDir: values.out }, options: undefined as never };
  }
  if (values.url !== undefined && values.upload) {
    return {
      help: false as const,
      pullIntoStack: parsePull(values, positionals),
      options: undefined as never,
    };
  }
  if (values.url !== undefined) {
    const { outDir, ...pull } = parsePull(values, positionals);
    if (!outDir) {
      throw new Error(
        'say where the tickets go: --out <folder> (its cursor is kept beside it) or --upload',
      );
    }
    return { help: false as const, pull: { ...pull, outDir }, options: undefined as never };
  }
  const source = values.from as SourceName | undefined;
  if (!source || !(SOURCE_NAMES as readonly string[]).includes(source)) {
    throw new Error(
      `--from must be one of ${SOURCE_NAMES.join(', ')}${source ? ` (got ${source})` : ''}`,
    );
  }
  if (positionals.length === 0) throw new Error('name the export file or folder to import');
  if (!values.out && !values.upload && !values['dry-run']) {
    throw new Error('say where the tickets go: --out <folder>, --upload or --dry-run');
  }
  const comments = values.comments as CommentPolicy | undefined;
  if (comments && !(COMMENT_POLICIES as readonly string[]).includes(comments)) {
    throw new Error(`--comments must be one of ${COMMENT_POLICIES.join(', ')}`);
  }
  const encoding = values.encoding?.toLowerCase().replace(/^utf8$/, 'utf-8') as
    | TextEncodingName
    | undefined;
  if (encoding && !(TEXT_ENCODINGS as readonly string[]).includes(encoding)) {
    throw new Error(`--encoding must be one of ${TEXT_ENCODINGS.join(', ')}`);
  }
  if (values.mapping && source !== 'csv' && source !== 'jsonl') {
    throw new Error('--mapping is for --from csv or jsonl');
  }
  const scrubSettings = readScrubSettings(values['scrub-settings']);
  return {
    help: false as const,
    status: undefined,
    pull: undefined,
    options: {
      source,
      paths: positionals,
      outDir: values.out,
      mapping: values.mapping ? readTabularMapping(values.mapping) : undefined,
      restrictedWhen: values['restricted-when'],
      deskWhen: values['desk-when'],
      comments,
      encoding,
      scrubSettings,
      nameAnalyzer: !values['no-name-analyzer'],
      dryRun: values['dry-run'],
      prune: values.prune,
      strict: values.strict,
      upload: values.upload,
    },
  };
}

function parsePull(
  values: {
    from?: string;
    url?: string;
    out?: string;
    table?: string[];
    jql?: string;
    'jira-deployment'?: string;
    since?: string;
    comments?: string;
    'restricted-when'?: string[];
    'desk-when'?: string[];
    'scrub-settings'?: string;
    'no-name-analyzer'?: boolean;
    'dry-run'?: boolean;
    reconcile?: boolean;
    upload?: boolean;
    mapping?: string;
    encoding?: string;
    prune?: boolean;
  },
  positionals: readonly string[],
) {
  const system = values.from as SyncSystem | undefined;
  if (!system || !(SYNC_SYSTEMS as readonly string[]).includes(system)) {
    throw new Error(`--url pulls from ${SYNC_SYSTEMS.join(', ')}: name one with --from`);
  }
  if (positionals.length > 0) throw new Error('--url pulls from the API: name no export files');
  if (values.upload && values.out) {
    throw new Error(
      '--url with --upload writes into the stack (documents in its bucket, cursor in its table): name no --out',
    );
  }
  if (values.upload && values['dry-run']) {
    throw new Error('--dry-run writes nothing: pull into --out <folder> with it, not --upload');
  }
  for (const flag of ['mapping', 'encoding', 'prune'] as const) {
    if (values[flag]) throw new Error(`--${flag} is for export files, not --url`);
  }
  if (values.table && system !== 'servicenow') throw new Error('--table is for --from servicenow');
  if ((values.jql || values['jira-deployment']) && system !== 'jira') {
    throw new Error('--jql and --jira-deployment are for --from jira');
  }
  const deployment = values['jira-deployment'];
  if (deployment && deployment !== 'cloud' && deployment !== 'datacenter') {
    throw new Error('--jira-deployment must be cloud or datacenter');
  }
  const comments = values.comments as CommentPolicy | undefined;
  if (comments && !(COMMENT_POLICIES as readonly string[]).includes(comments)) {
    throw new Error(`--comments must be one of ${COMMENT_POLICIES.join(', ')}`);
  }
  const scrubSettings = readScrubSettings(values['scrub-settings']);
  return {
    system,
    url: values.url as string,
    outDir: values.out,
    ...(values.table ? { tables: values.table } : {}),
    ...(values.jql ? { jql: values.jql } : {}),
    ...(deployment ? { jiraDeployment: deployment as 'cloud' | 'datacenter' } : {}),
    ...(values.since ? { since: values.since } : {}),
    comments: comments ?? DEFAULT_COMMENTS[system],
    restrictedWhen: values['restricted-when'] ?? [],
    deskWhen: values['desk-when'] ?? [],
    ...(scrubSettings ? { scrubSettings } : {}),
    nameAnalyzer: !values['no-name-analyzer'],
    reconcile: values.reconcile ?? false,
    dryRun: values['dry-run'] ?? false,
  };
}

function readScrubSettings(scrubSettingsFile: string | undefined): ScrubSettings | undefined {
  if (!scrubSettingsFile) return undefined;
  const text = readUtf8TextFile(`--scrub-settings ${scrubSettingsFile}`, scrubSettingsFile);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`--scrub-settings ${scrubSettingsFile}: ${(error as Error).message}`);
  }
  try {
    return parseScrubSettings(json);
  } catch (error) {
    throw new Error(`--scrub-settings ${scrubSettingsFile}: ${(error as Error).message}`);
  }
}

/** A progress line: redrawn in place on a terminal, a plain line every 10 s otherwise. */
function createProgressLine() {
  const startedAt = Date.now();
  const interactive = process.stderr.isTTY === true;
  let lastPlain = startedAt;
  let drawn = false;
  const format = ({ records, bytesRead, totalBytes }: ImportProgress) => {
    const seconds = Math.max(0.001, (Date.now() - startedAt) / 1000);
    const rate = records / seconds;
    const share = totalBytes > 0 ? Math.min(1, bytesRead / totalBytes) : 0;
    const eta = share > 0 ? (seconds / share) * (1 - share) : Number.NaN;
    const etaText = Number.isFinite(eta)
      ? `${Math.floor(eta / 60)}:${String(Math.round(eta % 60)).padStart(2, '0')}`
      : '?';
    const width = 20;
    const bar = '█'.repeat(Math.round(share * width)).padEnd(width, '░');
    return `${bar} ${(share * 100).toFixed(0).padStart(3)}%  ${records.toLocaleString('en-US')} records  ${Math.round(rate).toLocaleString('en-US')}/s  ETA ${etaText}`;
  };
  return {
    update(progress: ImportProgress) {
      if (interactive) {
        process.stderr.write(`\r${format(progress)}\u001b[K`);
        drawn = true;
      } else if (Date.now() - lastPlain >= 10_000) {
        lastPlain = Date.now();
        console.error(format(progress));
      }
    },
    done() {
      if (drawn) process.stderr.write('\n');
      drawn = false;
    },
  };
}

function printReport(report: ImportReport, outDir: string | undefined): void {
  const verb = report.dryRun ? 'would be' : 'were';
  console.log(
    `${report.records} record(s) read from the ${report.source} export. Tickets: ` +
      `${report.tickets.new} new, ${report.tickets.changed} changed (${verb} written), ` +
      `${report.tickets.unchanged} unchanged${outDir && !report.dryRun ? ` in ${outDir}` : ''}; ` +
      `${report.removed} ${report.dryRun ? 'would be ' : ''}removed.`,
  );
  const skips = Object.entries(report.skipped).filter(([, count]) => count > 0);
  if (skips.length > 0) {
    console.log('Skipped:');
    for (const [reason, count] of skips) {
      const label =
        reason === 'idTaken'
          ? 'id taken by a ticket this import did not write'
          : SKIP_REASONS[reason as keyof typeof SKIP_REASONS];
      console.log(`  ${String(count).padStart(7)}  ${label}`);
    }
  }
  for (const record of report.malformed) {
    console.log(`  malformed: ${record.file} record ${record.recordNumber}: ${record.message}`);
  }
  if (report.skipped.malformed > report.malformed.length) {
    console.log(
      `  … and ${report.skipped.malformed - report.malformed.length} more malformed record(s)`,
    );
  }
  const rules = Object.entries(report.restrictedByRule);
  if (rules.length > 0) {
    console.log(`Restricted: ${report.restricted} ticket(s)`);
    for (const [rule, count] of rules) console.log(`  ${String(count).padStart(7)}  ${rule}`);
  }
  const deskRules = Object.entries(report.deskByRule);
  if (deskRules.length > 0) {
    const ofDesks = deskRules.reduce((sum, [, count]) => sum + count, 0);
    console.log(`Desks: ${ofDesks} ticket(s) of a desk, the rest of desk all`);
    for (const [rule, count] of deskRules) console.log(`  ${String(count).padStart(7)}  ${rule}`);
  }
  if (report.cutToSize.count > 0) {
    console.log(
      `Cut to size: ${report.cutToSize.count} ticket(s) over ${MAX_IMPORTED_TEXT.inquiry.toLocaleString('en-US')} characters of inquiry or ` +
        `${MAX_IMPORTED_TEXT.resolution.toLocaleString('en-US')} of resolution, each ending in " …": ` +
        `${report.cutToSize.ids.join(', ')}${report.cutToSize.count > report.cutToSize.ids.length ? ', …' : ''}`,
    );
  }
  if (report.categoriesChanged > 0) {
    console.log(
      `Categories changed to letters, digits, spaces and - _ . / & ( ) + ・ : (or uncategorized): ${report.categoriesChanged} ticket(s).`,
    );
  }
  const scrubbed = Object.entries(report.scrubbed).filter(([, count]) => count > 0);
  console.log(
    `Personal data replaced: ${scrubbed.length === 0 ? 'none found' : scrubbed.map(([kind, count]) => `${kind} ${count}`).join(', ')}.`,
  );
}

process.exitCode = await main(process.argv.slice(2));
