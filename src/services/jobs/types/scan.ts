/**
 * The `scan` job type: an item is `{ id, text }`, scanned against the exact datasets the job's options name; its
 * result `{ id, hits }`, the item's `ScanHit`s in the order `engine.scan` yields them. The scan queue
 * (`trainprint worker`) runs the same executor. A job naming its datasets as `{ id, sha256 }` (the queue's) runs only
 * where each is held with that digest; elsewhere its items are handed back, neither run nor failed.
 */
import { within } from '../../../util/schema-check.js';
import { ItemHandedBack } from '../hand-back.js';
import { defineJobType, type JobExecutor } from '../job-type.js';
import { SCAN_ITEM_REQUEST, SCAN_OPTIONS_REQUEST, type ScanOptionsJson } from '../../scan/schema.js';
import type { ScanHit, ScanItem, ScanOptions } from '../../scan/types.js';
import { SCAN_LINES } from '../lines/scan.js';
import type { JobClaim } from '../types.js';

/** A scan job's context: its `options`, read through the scan's contract; the queue's name digests with datasets. */
type ScanContext = Omit<ScanOptionsJson, 'datasets'> & {
  readonly datasets?: ReadonlyArray<string | { readonly id: string; readonly sha256?: string }>;
};

/** The datasets a scan job's context names, each as `{ id, sha256? }` (a job's `options` name ids alone). */
const namedDatasets = (c: ScanContext) => c.datasets?.map((d) => (typeof d === 'string' ? { id: d } : d));

/** The datasets and options a scan job carries in its context. */
function scanOptions(claim: JobClaim, signal: AbortSignal): ScanOptions {
  const c = claim.context as ScanContext;
  const [account, named] = [claim.job.account, namedDatasets(c)];
  return {
    // a job without an account is the operator's (the scan queue's, enqueued from the command line)
    ...(account === '' ? {} : { account }),
    signal,
    ...(named === undefined ? {} : { datasets: named.map((d) => d.id) }),
    ...(c.min_words === undefined ? {} : { minWords: c.min_words }),
    ...(c.paraphrase === undefined ? {} : { paraphrase: c.paraphrase }),
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
    for (const d of namedDatasets(claim.context as ScanContext) ?? []) {
      if (!digest || d.sha256 === undefined) continue;
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
  itemSchema: SCAN_ITEM_REQUEST.served,
  optionsSchema: SCAN_OPTIONS_REQUEST.served,
  prepare: async (items, context) => {
    // its options read as its run reads them (the scan's contract: an unknown or inexact dataset, none to scan
    // against), their refusal naming `options.<field>`: an empty item is planned, never searched
    const scanItem = context.engine?.scanItem?.bind(context.engine);
    const claim = { context: context.options ?? {}, job: { account: context.account } } as unknown as JobClaim;
    try {
      await scanItem?.({ id: 'options', text: '' }, scanOptions(claim, new AbortController().signal));
    } catch (e) {
      throw within('options', e);
    }
    return () => ({ items, bind: () => undefined });
  },
  executor: ({ engine }) => {
    const scanItem = engine.scanItem?.bind(engine);
    return scanItem ? scanExecutor(scanItem, engine.datasetDigest?.bind(engine)) : 'this server has no scan';
  },
});
