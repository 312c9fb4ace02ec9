/**
 * The `scan` job type: an item is `{ id, text }`, scanned against the exact datasets the job's options name; its
 * result `{ id, hits }`, the item's `ScanHit`s in the order `engine.scan` yields them. The PostgreSQL scan queue
 * (`trainprint worker`) runs the same executor ({@link scanExecutor}).
 */
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
    ...(Array.isArray(c.datasets) ? { datasets: c.datasets as string[] } : {}),
    ...(typeof c.min_words === 'number' ? { minWords: c.min_words } : {}),
    ...(typeof c.paraphrase === 'boolean' ? { paraphrase: c.paraphrase } : {}),
  };
}

/**
 * The scan executor over a scan of one item: `{ id, hits }` with the datasets and options of the job's context.
 * @example const run = scanExecutor((item, o) => engine.scanItem(item, o))
 */
export function scanExecutor(
  scanItem: (item: ScanItem, options: ScanOptions) => Promise<readonly ScanHit[]>,
): JobExecutor {
  return async (item, claim, signal) => {
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
    return scanItem ? scanExecutor(scanItem) : 'this server has no scan';
  },
});
