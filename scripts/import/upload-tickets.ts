import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BedrockAgentClient,
  ConflictException,
  StartIngestionJobCommand,
} from '@aws-sdk/client-bedrock-agent';
import {
  DeleteObjectsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { UPLOADED_CATEGORIES_KEY_PREFIX } from '../../functions/adapters/bedrock/knowledge-base-documents.js';
import { ticketCategorySet } from '../../functions/contract/knowledge.js';
import { importedTicketsKeyPrefix, stackOutputNames } from '../../lib/deployed-stack-names.js';
import { readDeployedStack, requireOutput } from '../deployed-stack.js';

/**
 * `npm run import -- --upload`: puts the imported tickets that differ from the bucket's copies
 * into the deployed stack's document bucket, under `tickets/imported/<source>/` (inside the
 * data source's inclusion prefix), removes the ones no longer exported with `--prune`, and
 * starts one Knowledge Base sync. The stack is found as the other operator commands find it
 * (scripts/deployed-stack.ts: cdk.json's stack name and region, `IMPORT_STACK_NAME` /
 * `AWS_REGION` to override, outputs from CloudFormation); `npm run ingest` follows the sync.
 *
 * "Differs" is decided against the bucket, not a local record: the bucket is encrypted with
 * SSE-S3, whose ETag of a single-part PUT is the MD5 of the content, so an unchanged ticket
 * costs one line of a listing and no PUT.
 */

export interface UploadResult {
  readonly bucket: string;
  readonly uploaded: number;
  readonly unchanged: number;
  readonly deleted: number;
  /** `started`, or `running` when a sync was already running (it may miss these objects). */
  readonly sync: 'started' | 'running' | 'none';
  readonly ingestionJobId?: string;
}

const PARALLEL_PUTS = 16;

/**
 * Uploads the ticket files `names` of `outDir` for `source`. Throws `SkipError`
 * (scripts/deployed-stack.ts) without usable credentials.
 */
export async function uploadTickets(options: {
  readonly source: string;
  readonly outDir: string;
  readonly names: readonly string[];
  readonly prune: boolean;
  readonly log: (line: string) => void;
}): Promise<UploadResult> {
  const stack = await readDeployedStack('IMPORT_STACK_NAME');
  const bucket = requireOutput(stack, stackOutputNames.documentBucket);
  const s3 = new S3Client({ region: stack.region });
  const prefix = `${importedTicketsKeyPrefix}${options.source}/`;

  const remote = new Map<string, string>();
  let continuationToken: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: prefix,
        ContinuationToken: continuationToken,
      }),
    );
    for (const object of page.Contents ?? []) {
      if (object.Key) remote.set(object.Key, (object.ETag ?? '').replaceAll('"', ''));
    }
    continuationToken = page.NextContinuationToken;
  } while (continuationToken);

  const pending = options.names.map((name) => ({ name, key: `${prefix}${name}` }));
  let uploaded = 0;
  let unchanged = 0;
  const worker = async () => {
    for (let next = pending.shift(); next; next = pending.shift()) {
      const body = readFileSync(join(options.outDir, next.name));
      if (remote.get(next.key) === createHash('md5').update(body).digest('hex')) {
        unchanged += 1;
        continue;
      }
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: next.key,
          Body: body,
          ContentType: next.name.endsWith('.json')
            ? 'application/json'
            : 'text/markdown; charset=utf-8',
        }),
      );
      uploaded += 1;
      if (uploaded % 1000 === 0) options.log(`  uploaded ${uploaded}`);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_PUTS }, worker));

  let deleted = 0;
  if (options.prune) {
    const keep = new Set(options.names.map((name) => `${prefix}${name}`));
    const stale = [...remote.keys()].filter((key) => !keep.has(key));
    for (let start = 0; start < stale.length; start += 1000) {
      const batch = stale.slice(start, start + 1000);
      await s3.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })) },
        }),
      );
      deleted += batch.length;
    }
  }

  // The source's categories, for the knowledge form before the next deploy (the function reads
  // this file; the synth computes only the deployed folder's).
  await s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: uploadedCategoriesKey(options.source),
      Body: JSON.stringify(categoriesOf(options.outDir, options.names)),
      ContentType: 'application/json',
    }),
  );

  if (uploaded === 0 && deleted === 0) {
    return { bucket, uploaded, unchanged, deleted, sync: 'none' };
  }
  const knowledgeBaseId = stack.outputs[stackOutputNames.knowledgeBaseId];
  const dataSourceId = stack.outputs[stackOutputNames.dataSourceId];
  if (!knowledgeBaseId || !dataSourceId)
    return { bucket, uploaded, unchanged, deleted, sync: 'none' };
  const bedrockAgent = new BedrockAgentClient({ region: stack.region });
  try {
    const { ingestionJob } = await bedrockAgent.send(
      new StartIngestionJobCommand({
        knowledgeBaseId,
        dataSourceId,
        description: 'npm run import',
      }),
    );
    return {
      bucket,
      uploaded,
      unchanged,
      deleted,
      sync: 'started',
      ingestionJobId: ingestionJob?.ingestionJobId,
    };
  } catch (error) {
    // One job runs per data source; the running one may have listed the bucket before these.
    if (error instanceof ConflictException)
      return { bucket, uploaded, unchanged, deleted, sync: 'running' };
    throw error;
  }
}

/** Where the category set of a source's uploaded tickets goes (read by the function). */
export function uploadedCategoriesKey(source: string): string {
  return `${UPLOADED_CATEGORIES_KEY_PREFIX}imported-${source}.json`;
}

/** The category set of the uploaded tickets, from their sidecars' `category` attribute. */
function categoriesOf(outDir: string, names: readonly string[]): string[] {
  return ticketCategorySet(
    names
      .filter((name) => name.endsWith('.metadata.json'))
      .map((name) => {
        const sidecar = JSON.parse(readFileSync(join(outDir, name), 'utf8')) as {
          metadataAttributes?: { category?: unknown };
        };
        return sidecar.metadataAttributes?.category;
      }),
  );
}
