/**
 * `trainprint scan --queue URL …` and `trainprint worker --queue URL …`: scans spread over workers on any number of
 * machines that share one PostgreSQL (the scan queue of trainprint/node: scan jobs of the job model on the PostgreSQL
 * store, each worker the one job runner with the scan executor; docs/scan.md "Workers over PostgreSQL"). `scan
 * --queue` enqueues an input as a job and, without --enqueue-only, works on it as one worker until it has finished;
 * `--status`, `--export`, `--cancel` and `--delete` (with `--job ID`, default the newest job) are the names of
 * `trainprint jobs status|export|cancel|delete --queue URL` kept from before it (./jobs.ts).
 * Exit codes: 0 done, 1 runtime failure (a refused job, a failed job or item, bad input), 2 usage, 130 interrupted.
 */
import { createEngine, type Engine } from '../library.js';
import {
  jobDatasets,
  openScanQueue,
  readDocuments,
  type EnqueueResult,
  type ScanQueue,
  type ScanQueueOptions,
} from '../node/index.js';
import { jobsAction, queueUrl, statusLine } from './jobs.js';
import {
  DATASETS,
  loadDatasets,
  decimalInteger,
  optionalIntegerIn,
  options,
  parse,
  QUIET,
  redact,
  UsageError,
  type ParseOptions,
} from './shared.js';

/** The options `scan --queue` and `worker` share: where the queue is, the datasets, the lease and retention. */
export const QUEUE_OPTIONS: ParseOptions = {
  ...options(['queue', 'job', 'concurrency', 'lease-seconds', 'retention-days'], ['starter']),
  ...DATASETS,
  ...QUIET,
};

const SCAN_QUEUE_OPTIONS: ParseOptions = {
  ...QUEUE_OPTIONS,
  ...options(
    ['export', 'min-words', 'text-field', 'id-field', 'chunk-items', 'chunk-mb'],
    ['enqueue-only', 'status', 'json', 'cancel', 'delete', 'paraphrase'],
  ),
};

/**
 * An integer option in lo..hi, or undefined when absent; a UsageError otherwise (in the words of every integer
 * option of the CLI). Without bounds, any integer: the library bounds it and names the field (`--min-words 0`:
 * `min_words: must be ≥ 1`, as every door says it).
 */
export function intOption(values: Record<string, unknown>, name: string, lo?: number, hi?: number): number | undefined {
  if (lo !== undefined && hi !== undefined) return optionalIntegerIn(values, name, lo, hi);
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = decimalInteger(raw);
  if (!Number.isInteger(n)) throw new UsageError(`--${name} must be an integer`);
  return n;
}

/** The queue's options from the command line (`--lease-seconds`, `--retention-days`). */
export function queueOptions(values: Record<string, unknown>): ScanQueueOptions {
  const lease = intOption(values, 'lease-seconds', 1, 86_000);
  let retention: number | undefined;
  if (values['retention-days'] !== undefined) {
    retention = Number(values['retention-days']);
    if (!(retention > 0) || !Number.isFinite(retention))
      throw new UsageError('--retention-days must be a positive number');
  }
  return {
    ...(lease === undefined ? {} : { leaseSeconds: lease }),
    ...(retention === undefined ? {} : { retentionDays: retention }),
    ...(typeof values.account === 'string' ? { account: values.account } : {}),
    onError: debug,
  };
}

/** A failure of the database waited out, said on stderr with TRAINPRINT_DEBUG set. */
export const debug = (e: unknown): void => {
  if (process.env.TRAINPRINT_DEBUG) console.error(`queue: ${(e as Error)?.message ?? String(e)}`);
};

/** `--dataset A,B --dataset C` as loadDatasets takes them (comma-separated lists split). */
export function datasetValues(values: Record<string, unknown>): Record<string, unknown> {
  const list = ((values.dataset as string[] | undefined) ?? []).flatMap((d) => d.split(',')).filter((d) => d !== '');
  return { ...values, dataset: list };
}

/** An engine with the `--dataset` values loaded; resolves to it and what closes the attached datasets. */
export async function workerEngine(
  values: Record<string, unknown>,
): Promise<{ engine: Engine; close: () => Promise<void> }> {
  const engine = await createEngine();
  const closeDatasets = await loadDatasets(engine, datasetValues(values));
  return {
    engine,
    close: async () => {
      await closeDatasets();
      engine.dispose();
    },
  };
}

/**
 * SIGINT / SIGTERM for a worker: the first stops taking chunks (the chunk being scanned is finished), the second
 * gives that chunk back at once. `done()` removes the handlers.
 */
export function stopSignals(): { stop: AbortSignal; abort: AbortSignal; done(): void; readonly interrupted: boolean } {
  const stop = new AbortController();
  const abort = new AbortController();
  let interrupted = false;
  const on = () => {
    interrupted = true;
    if (stop.signal.aborted) abort.abort();
    else stop.abort();
  };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  return {
    stop: stop.signal,
    abort: abort.signal,
    get interrupted() {
      return interrupted;
    },
    done() {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
    },
  };
}

/** A line on stderr at most every `ms` (none with --quiet). */
function throttled(quiet: boolean, ms = 5000): (line: () => string) => void {
  let last = 0;
  return (line) => {
    if (quiet || Date.now() - last < ms) return;
    last = Date.now();
    console.error(line());
  };
}

/**
 * `trainprint scan --queue URL …`: enqueue (and work); `--status`, `--export`, `--cancel`, `--delete` as `jobs`.
 * @example process.exitCode = await scanQueueCommand(['--queue', 'postgres://localhost/db', '--status', '--json'])
 */
export async function scanQueueCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, SCAN_QUEUE_OPTIONS);
  const url = queueUrl(values);
  const actions = (['status', 'export', 'cancel', 'delete'] as const).filter(
    (a) => values[a] !== undefined && values[a] !== false,
  );
  if (actions.length > 1) throw new UsageError(`--${actions.join(', --')} are exclusive`);
  const action = actions[0];
  if (action !== undefined && positionals.length) throw new UsageError(`--${action} takes no INPUT`);
  if (action === undefined && positionals.length === 0) {
    throw new UsageError('scan --queue needs INPUT files to enqueue, or --status, --export FILE, --cancel, --delete');
  }
  if (values.json && action !== 'status') throw new UsageError('--json goes with --status');
  const job = values.job as string | undefined;
  if (action === undefined && job !== undefined)
    throw new UsageError('--job goes with --status, --export, --cancel, --delete');
  const quiet = values.quiet === true;
  if (action !== undefined) {
    const out = typeof values.export === 'string' ? values.export : '-';
    const account = typeof values.account === 'string' ? values.account : '';
    return jobsAction(action, url, { job, account, json: values.json === true, out, quiet });
  }
  const minWords = intOption(values, 'min-words');
  const chunkItems = intOption(values, 'chunk-items', 1, 10_000);
  const chunkMb = intOption(values, 'chunk-mb', 1, 1024);
  const concurrency = intOption(values, 'concurrency', 1, 256);

  const queue = await openScanQueue(url, queueOptions(values));
  try {
    return await enqueueAndWork(queue, url, values, positionals, { minWords, chunkItems, chunkMb, concurrency });
  } finally {
    await queue.close();
  }
}

/** `scan --queue URL INPUT…`: the input enqueued as a job, then (without --enqueue-only) worked on until it ends. */
async function enqueueAndWork(
  queue: ScanQueue,
  url: string,
  values: Record<string, unknown>,
  positionals: string[],
  n: Record<'minWords' | 'chunkItems' | 'chunkMb' | 'concurrency', number | undefined>,
): Promise<number> {
  const { minWords, chunkItems, chunkMb, concurrency } = n;
  const quiet = values.quiet === true;
  const { engine, close } = await workerEngine(values);
  const signals = stopSignals(); // Ctrl-C while enqueuing: the job is deleted, exit code 130
  try {
    const datasets = await jobDatasets(engine);
    const progress = throttled(quiet);
    const textField = values['text-field'] as string | undefined;
    const idField = values['id-field'] as string | undefined;
    // as the local scan reads them: ids from --id-field (default id), PATH:LINE for a record without one
    const items = readDocuments(positionals, {
      ...(textField === undefined ? {} : { textField }),
      idField: idField ?? 'id',
      missingId: 'position',
    });
    let announced = false;
    let enqueued: EnqueueResult;
    try {
      enqueued = await queue.enqueue(items, {
        signal: signals.stop,
        datasets,
        ...(minWords === undefined ? {} : { minWords }),
        paraphrase: values.paraphrase === true,
        ...(chunkItems === undefined ? {} : { chunkItems }),
        ...(chunkMb === undefined ? {} : { chunkBytes: chunkMb * 1024 * 1024 }),
        onChunk: (j) => {
          if (!announced && !quiet) console.error(`job ${j.id} in ${redact(url)}: enqueuing…`);
          announced = true;
          progress(() => `enqueued ${j.total.toLocaleString('en-US')} items`);
        },
      });
    } catch (error) {
      if (!signals.interrupted) throw error;
      if (!quiet) console.error('interrupted: the job is deleted');
      return 130;
    }
    console.log(enqueued.job);
    if (!quiet) {
      const against = datasets.map((d) => `${d.id} (${d.sha256.slice(0, 12)}…)`).join(', ');
      console.error(`job ${enqueued.job}: ${enqueued.items.toLocaleString('en-US')} items against ${against}`);
    }
    if (values['enqueue-only']) return 0;
    await queue.work(engine, {
      job: enqueued.job,
      ...(concurrency === undefined ? {} : { concurrency }),
      signal: signals.stop,
      abortChunks: signals.abort,
      onChunk: () => progress(() => 'scanning…'),
      onError: debug,
    });
    const st = await queue.jobs.status(enqueued.job, { owner: queue.account });
    if (!quiet) console.error(statusLine(st));
    if (signals.interrupted && st.state !== 'done') return 130;
    return st.state === 'done' && st.failed === 0 ? 0 : 1;
  } finally {
    signals.done();
    await close();
  }
}
