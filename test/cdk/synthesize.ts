import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { inject } from 'vitest';
import { configKeys, parseServiceDeskConfig, type ServiceDeskConfig } from '../../lib/config.js';
import { addServiceDeskStacks } from '../../lib/service-desk-app.js';

const fixture = (path: string) => fileURLToPath(new URL(`./fixtures/${path}`, import.meta.url));

/** Small stand-ins for the handler, the built web app and the tickets, so tests never wait on them. */
export const fixturePaths = {
  apiEntry: fixture('api-handler.ts'),
  retentionEntry: fixture('retention-handler.ts'),
  knowledgeSyncEntry: fixture('knowledge-sync-handler.ts'),
  ticketSyncEntry: fixture('ticket-sync-handler.ts'),
  webApp: { prebuilt: fixture('web-dist') },
  ticketsPath: fixture('tickets'),
  vectorIndexEntry: fixture('vector-index-handler.ts'),
};

/**
 * The feature flags of `cdk.json` (every context key that is not a setting): the CLI synthesizes
 * with them, so the tests do too.
 */
export const featureFlags: Record<string, unknown> = Object.fromEntries(
  Object.entries(
    JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')).context as Record<
      string,
      unknown
    >,
  ).filter(([key]) => !(configKeys as string[]).includes(key)),
);

/**
 * Asset bundling back on, for the tests about what a build puts in an asset: the cdk project
 * turns bundling off in every App (`CDK_CONTEXT_JSON`, vitest.config.ts says why). Given as
 * `postCliContext`, which comes after the CLI's context, as `cdk synth` would.
 */
export const bundlingOn = { 'aws:cdk:bundling-stacks': ['**'] };

export interface SynthesizedServiceDesk {
  readonly config: ServiceDeskConfig;
  readonly template: Template;
  readonly wafTemplate?: Template;
  /** The us-east-1 stack with the CloudFront alarm, when the main stack is elsewhere. */
  readonly edgeMonitoringTemplate?: Template;
  /** Unacknowledged cdk-nag AwsSolutions findings as `rule at construct path`. */
  readonly nagFindings: string[];
  /** The generated `/config.json`, with each deploy-time value replaced by `x`. */
  readonly webConfig: unknown;
  /** Warnings and errors synthesis reported (annotations), as `level at path: message`. */
  readonly messages: string[];
}

/**
 * Builds the app exactly as bin/app.ts does (same config parser, same stack wiring, the feature
 * flags of cdk.json), with the fixtures as file inputs, then runs cdk-nag's AwsSolutions pack over the whole app.
 *
 * A context synthesized before in this run is read back instead (see
 * `test/support/run-cache-global-setup.ts`): the same inputs give the same templates, and
 * most files synthesize the default app. The templates come back through `Template.fromJSON`,
 * which answers the same queries as `Template.fromStack`.
 */
export function synthesizeServiceDesk(context: Record<string, unknown>): SynthesizedServiceDesk {
  const key = createHash('sha256').update(JSON.stringify(context)).digest('hex').slice(0, 32);
  const remembered = synthesizedInThisFile.get(key);
  if (remembered) return remembered;
  const directory = inject('runCacheDir');
  const file = directory && join(directory, `${key}.json`);
  const synthesized = file ? synthesizeOnceInThisRun(context, file) : synthesize(context);
  synthesizedInThisFile.set(key, synthesized);
  return synthesized;
}

const synthesizedInThisFile = new Map<string, SynthesizedServiceDesk>();

/** What {@link synthesizeServiceDesk} keeps of a synthesis: plain JSON. */
interface CachedSynthesis {
  readonly template: unknown;
  readonly wafTemplate?: unknown;
  readonly edgeMonitoringTemplate?: unknown;
  readonly nagFindings: string[];
  readonly webConfig: unknown;
  readonly messages: string[];
}

function fromCachedJson(context: Record<string, unknown>, text: string): SynthesizedServiceDesk {
  const cached = JSON.parse(text) as CachedSynthesis;
  const template = (json: unknown) => Template.fromJSON(json as Record<string, unknown>);
  return {
    config: parseServiceDeskConfig({ account: '123456789012', ...context }),
    template: template(cached.template),
    wafTemplate: cached.wafTemplate === undefined ? undefined : template(cached.wafTemplate),
    edgeMonitoringTemplate:
      cached.edgeMonitoringTemplate === undefined
        ? undefined
        : template(cached.edgeMonitoringTemplate),
    nagFindings: cached.nagFindings,
    webConfig: cached.webConfig,
    messages: cached.messages,
  };
}

/**
 * The run's one synthesis of `context`: read back from `file` when done before; otherwise the
 * first file to claim it synthesizes while any other that wants the same app waits for the
 * file. The files that start together all want the default app first, and three at once cost
 * three 18-second syntheses on two cores instead of one (ADR 0016).
 */
function synthesizeOnceInThisRun(
  context: Record<string, unknown>,
  file: string,
): SynthesizedServiceDesk {
  const claim = `${file}.claimed`;
  for (;;) {
    if (existsSync(file)) return fromCachedJson(context, readFileSync(file, 'utf8'));
    if (tryToClaim(claim)) {
      try {
        // Finished by another file between the look and the claim: read, not again.
        if (existsSync(file)) return fromCachedJson(context, readFileSync(file, 'utf8'));
        return synthesizeAfresh(context, file);
      } finally {
        // Also when synthesis throws (an invalid setting): a waiting file then tries itself and
        // gets the same error.
        rmSync(claim, { force: true });
      }
    }
    // Another file is synthesizing this app: sleep (synthesis is synchronous, so is this).
    Atomics.wait(sleeper, 0, 0, 50);
  }
}

/** Creates `path` unless it exists: true for the one caller that created it. */
function tryToClaim(path: string): boolean {
  try {
    closeSync(openSync(path, 'wx'));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function synthesizeAfresh(context: Record<string, unknown>, file: string): SynthesizedServiceDesk {
  const synthesized = synthesize(context);
  const cached: CachedSynthesis = {
    template: synthesized.template.toJSON(),
    wafTemplate: synthesized.wafTemplate?.toJSON(),
    edgeMonitoringTemplate: synthesized.edgeMonitoringTemplate?.toJSON(),
    nagFindings: synthesized.nagFindings,
    webConfig: synthesized.webConfig,
    messages: synthesized.messages,
  };
  // Written whole, then renamed: a file running beside this one never reads half of it.
  const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(partial, JSON.stringify(cached));
  renameSync(partial, file);
  // The copy read back, not the live one: every caller gets the same kind of template.
  return fromCachedJson(context, readFileSync(file, 'utf8'));
}

function synthesize(context: Record<string, unknown>): SynthesizedServiceDesk {
  const app = new App({ context: featureFlags });
  const config = parseServiceDeskConfig({ account: '123456789012', ...context });
  const stacks = addServiceDeskStacks(app, config, fixturePaths);
  const template = Template.fromStack(stacks.main);
  const wafTemplate = stacks.waf ? Template.fromStack(stacks.waf) : undefined;
  const edgeMonitoringTemplate = stacks.edgeMonitoring
    ? Template.fromStack(stacks.edgeMonitoring)
    : undefined;
  // cdk-nag 3 is a policy-validation plugin; validateScope is its documented direct entry
  // point and honours Validations.of(...).acknowledge() exactly as synthesis does.
  const report = new AwsSolutionsChecks().validateScope(app);
  const nagFindings = report.violations.flatMap((violation) =>
    violation.violatingResources.map(
      (resource) => `${violation.ruleName} at ${resource.constructPath}`,
    ),
  );
  return {
    config,
    template,
    wafTemplate,
    edgeMonitoringTemplate,
    nagFindings,
    webConfig: readWebConfig(app),
    messages: app
      .synth()
      .stacks.flatMap((stack) => stack.messages)
      .filter((message) => message.level !== 'info')
      .map((message) => `${message.level} at ${message.id}: ${String(message.entry.data)}`),
  };
}

/** Every IAM policy statement resource containing `*`, keyed by the policy's logical id (no hash). */
export function wildcardResources(template: Template): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [logicalId, resource] of Object.entries(template.findResources('AWS::IAM::Policy'))) {
    const statements = resource.Properties.PolicyDocument.Statement as {
      Resource: unknown;
    }[];
    const wildcards = statements
      .flatMap((statement) =>
        Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource],
      )
      .map((value) => renderArn(value))
      .filter((arn) => arn.includes('*'));
    if (wildcards.length > 0) result[logicalId.replace(/[0-9A-F]{8}$/, '')] = wildcards.sort();
  }
  return result;
}

/** A CloudFormation expression as readable text: `<LogicalId.Attr>`, `<AWS::Partition>`. */
export function renderArn(value: unknown): string {
  if (typeof value === 'string') return value;
  const node = value as Record<string, unknown>;
  if ('Fn::Join' in node) {
    const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
    return parts.map(renderArn).join(separator);
  }
  if ('Fn::GetAtt' in node) {
    const [id, attribute] = node['Fn::GetAtt'] as [string, string];
    return `<${id.replace(/[0-9A-F]{8}$/, '')}.${attribute}>`;
  }
  if ('Ref' in node) return `<${String(node.Ref).replace(/[0-9A-F]{8}$/, '')}>`;
  if ('Fn::Sub' in node) return String(node['Fn::Sub']).replace(/\$\{([^}]+)\}/g, '<$1>');
  return JSON.stringify(value);
}

/** A resource or property of a synthesized template (CloudFormation JSON is untyped). */
// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON has no static shape
export type CfnJson = Record<string, any>;

/** The synthesized template with asset hashes masked, for the one snapshot. */
export function maskAssetHashes(template: Template): unknown {
  return JSON.parse(JSON.stringify(template.toJSON()).replace(/[0-9a-f]{64}/g, '[ASSET-HASH]'));
}

/** Finds the `Source.jsonData('config.json', …)` asset in the assembly and fills its markers. */
function readWebConfig(app: App): unknown {
  const directory = app.synth().directory;
  for (const entry of readdirSync(directory)) {
    const file = join(directory, entry, 'config.json');
    if (!entry.startsWith('asset.') || !existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    // The generated one signs in; the built web app's own says local mode.
    const config = JSON.parse(text.replace(/<<marker:0x[a-f0-9]+:\d+>>/g, 'x')) as {
      authMode?: string;
    };
    if (config.authMode !== undefined && config.authMode !== 'local') return config;
  }
  throw new Error('No generated config.json asset in the assembly');
}
