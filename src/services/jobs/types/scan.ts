/**
 * The `scan` job type: an item is `{ id, text }`, scanned against the exact datasets the job's options name; its
 * result `{ id, hits }`, the item's `ScanHit`s in the order `engine.scan` yields them. The scan queue
 * (`trainprint worker`) runs the same executor. A job naming its datasets as `{ id, sha256 }` (the queue's) runs only
 * where each is held with that digest; elsewhere its items are handed back, neither run nor failed.
 */
import { TrainprintError } from '../../../errors.js';
import { ItemHandedBack } from '../hand-back.js';
import { defineJobType, type JobExecutor } from '../job-type.js';
import type { ScanHit, ScanItem, ScanOptions } from '../../scan/types.js';
import { SCAN_LINES } from '../lines/scan.js';
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

/**
 * The scan executor over a scan of one item: `{ id, hits }` with the datasets and options of the job's context.
 * With `digest` (a held dataset's SHA-256), a job that names its datasets' digests is handed back where one differs
 * (a digest that cannot be read: the dataset is not loaded here).
 * @example const run = scanExecutor((item, o) => engine.scanItem(item, o))
 */
export function scanExecutor(
  scanItem: (item: ScanItem, options: ScanOptions) => Promise<readonly ScanHit[]>,
  digest?: (id: string) => Promise<string | undefined>,
): JobExecutor {
  const held = new Map<string, Promise<string | undefined>>();
  const notLoaded = () => undefined;
  return async (item, claim, signal) => {
    const want = Array.isArray(claim.context.datasets) ? claim.context.datasets : [];
    for (const d of want as { id: string; sha256?: string }[]) {
      if (!digest || typeof d.sha256 !== 'string') continue;
      if (!held.has(d.id)) held.set(d.id, digest(d.id).catch(notLoaded));
      const have = await held.get(d.id);
      if (have !== d.sha256)
        throw new ItemHandedBack(
          'elsewhere',
          `refusing scan job ${claim.job.id}: its dataset "${d.id}" has SHA-256 ${d.sha256}, ${have ? `this process's has ${have}` : 'not loaded here'}`,
          60_000,
        );
    }
    const { id, text } = item as ScanItem;
    return { id, hits: await scanItem({ id, text }, scanOptions(claim, signal)) };
  };
}

/** See the module's documentation. */
export const SCAN_JOB = defineJobType<ScanItem>({
  // its result's line and rows (the hits in the hit line's order)
  ...SCAN_LINES,
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
  // the datasets and options its run scans with, checked as the run checks them (an unknown or inexact dataset, none
  // to scan against): an empty item is planned, never searched
  prepare: async (items, context) => {
    const scanItem = context.engine?.scanItem?.bind(context.engine);
    const claim = { context: context.options ?? {}, job: { account: context.account } } as unknown as JobClaim;
    try {
      await scanItem?.({ id: 'options', text: '' }, scanOptions(claim, new AbortController().signal));
    } catch (e) {
      if (!(e instanceof TrainprintError)) throw e;
      throw new TrainprintError(e.code, `options: ${e.detail ?? e.message}`);
    }
    return () => ({ items, bind: () => undefined });
  },
  executor: ({ engine }) => {
    const scanItem = engine.scanItem?.bind(engine);
    return scanItem ? scanExecutor(scanItem, engine.datasetDigest?.bind(engine)) : 'this server has no scan';
  },
});
