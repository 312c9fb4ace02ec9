/**
 * The `scan` job type: an item is `{ id, text }`, scanned against the exact datasets the job's options name; its
 * result `{ id, hits }`, the item's `ScanHit`s in the order `engine.scan` yields them. The scan queue
 * (`trainprint worker`) runs the same executor ({@link scanExecutor}). A job whose context names its datasets with
 * their SHA-256 (`{ id, sha256 }`: the queue's) runs only where each is held with that digest: elsewhere its items are
 * handed back, neither run nor failed — hits of another version of a dataset would be wrong, not merely different.
 */
import { ItemHandedBack } from '../hand-back.js';
import type { JobExecutor } from '../job-type.js';
import { defineJobType } from '../job-type.js';
import type { ScanHit, ScanItem, ScanOptions } from '../../scan/types.js';
import type { JobClaim } from '../types.js';

/** The datasets and options a scan job carries in its context. */
function scanOptions(claim: JobClaim, signal: AbortSignal): ScanOptions {
  const c = claim.context;
  const account = claim.job.account;
  return {
    // a job without an account is the operator's (the scan queue's, enqueued from the command line)
    ...(account === '' ? {} : { account }),
    signal,
    ...(Array.isArray(c.datasets)
      ? { datasets: c.datasets.map((d: string | { id: string }) => (typeof d === 'string' ? d : d.id)) }
      : {}),
    ...(typeof c.min_words === 'number' ? { minWords: c.min_words } : {}),
    ...(typeof c.paraphrase === 'boolean' ? { paraphrase: c.paraphrase } : {}),
  };
}

/** How long a process that lacks a job's datasets leaves the job to the others before it looks again (ms). */
const OTHER_DATASETS_RETRY_MS = 60_000;

/**
 * Why this process must not run `claim`'s scan job (a dataset it lacks or holds in another version), or null.
 * Each digest is computed once per process.
 */
function datasetsRefused(
  claim: JobClaim,
  digest: (id: string) => Promise<string | undefined>,
): Promise<string | null> | null {
  const want = claim.context.datasets;
  if (!Array.isArray(want) || !want.every((d) => typeof d?.sha256 === 'string')) return null;
  return (async () => {
    for (const d of want as { id: string; sha256: string }[]) {
      const have = await digest(d.id);
      if (have === d.sha256) continue;
      return have === undefined
        ? `refusing scan job ${claim.job.id}: it scans against dataset "${d.id}" (SHA-256 ${d.sha256}), which this process has not loaded`
        : `refusing scan job ${claim.job.id}: its dataset "${d.id}" has SHA-256 ${d.sha256}, this process's has ${have}`;
    }
    return null;
  })();
}

/**
 * The scan executor over a scan of one item: `{ id, hits }` with the datasets and options of the job's context.
 * With `digest` (a held dataset's SHA-256, undefined for one not held), a job whose context names its datasets'
 * digests is handed back where they differ ({@link ItemHandedBack}, `elsewhere`; its message says why).
 * @example const run = scanExecutor((item, o) => engine.scanItem(item, o), (id) => engine.datasetDigest(id).catch(() => undefined))
 */
export function scanExecutor(
  scanItem: (item: ScanItem, options: ScanOptions) => Promise<readonly ScanHit[]>,
  digest?: (id: string) => Promise<string | undefined>,
): JobExecutor {
  const digests = new Map<string, Promise<string | undefined>>();
  const cached = (id: string) => {
    if (!digests.has(id)) digests.set(id, (digest as (id: string) => Promise<string | undefined>)(id));
    return digests.get(id) as Promise<string | undefined>;
  };
  return async (item, claim, signal) => {
    const refused = digest ? await datasetsRefused(claim, cached) : null;
    if (refused) throw new ItemHandedBack('elsewhere', refused, OTHER_DATASETS_RETRY_MS);
    const { id, text } = item as ScanItem;
    return { id, hits: await scanItem({ id, text }, scanOptions(claim, signal)) };
  };
}

/** See the module's documentation. */
export const SCAN_JOB = defineJobType<ScanItem>({
  name: 'scan',
  summary: '`scan` (`{ id, text }`, scanned against the exact datasets)',
  itemSchema: {
    type: 'object',
    required: ['id', 'text'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', minLength: 1, maxLength: 1024 },
      text: { type: 'string', maxLength: 10 * 1024 * 1024 },
    },
  },
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    description: '`scan` only: how the items are scanned',
    properties: {
      datasets: {
        type: 'array',
        items: { type: 'string', minLength: 1, maxLength: 200 },
        maxItems: 100,
        description: 'The exact datasets to scan against; default every exact dataset loaded',
      },
      min_words: {
        type: 'integer',
        minimum: 1,
        maximum: 10_000,
        description: 'Shortest block reported, in words; default 50',
      },
      paraphrase: { type: 'boolean', description: 'Report reworded reuse too; default false' },
    },
  },
  executor: ({ engine }) => {
    const scanItem = engine.scanItem?.bind(engine);
    const digest = engine.datasetDigest?.bind(engine);
    return scanItem
      ? scanExecutor(scanItem, digest && ((id) => digest(id).catch(() => undefined)))
      : 'this server has no scan';
  },
});
