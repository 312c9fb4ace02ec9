/**
 * The scan queue: a scan of many items spread over workers on any number of machines that share one PostgreSQL —
 * the job model's jobs (`JobService`) on the PostgreSQL store at the queue's URL, so a queue's job is a `scan` job of
 * the operator (account `''`) that `serve --store` on the same database lists and controls as any other, and a
 * worker is the one `JobRunner` over them with the scan executor.
 *
 * - Enqueue: a streamed submission (`JobService.submitStream`), read as it comes.
 * - Exactly once, as every job's chunk ({@link JobStore}): a worker killed mid-chunk leaves it to be claimed again
 *   after its lease (`leaseSeconds`). Scans are deterministic, so a redone chunk has the same hits.
 * - Datasets: a job names them by id and SHA-256; its items are handed back where one differs (`scanExecutor`).
 * - A database that goes away (a restart, a failover) is waited for: the runner tries again with a doubling wait.
 */
import {
  createJobService,
  JobRunner,
  type JobResult,
  type JobService,
  type JobStore,
  type ScanHit,
  type ScanItem,
  type StreamSubmitOptions,
  ItemHandedBack,
  DEFAULT_MIN_WORDS,
  positiveInt,
  readThrough,
  REQUESTS,
  SCAN_JOB,
  scanExecutor,
  sleep,
  TrainprintError,
  within,
} from '../../library.js';
import { openPostgresStore, type PostgresStore } from '../../store/node.js';
import { isOutage, parseTarget, waitOut } from '../../store/node-kit.js';
import type { JobDataset, QueueScanner } from './types.js';

const codeOf = (e: unknown) => (e instanceof TrainprintError ? e.code : undefined);
/** Whether `e` says the database is away (a restart, a failover): waited for, never the end of a worker. */
const away = (e: unknown) => isOutage(e) || codeOf(e) === 'STORE_UNAVAILABLE';

/** Options of {@link openScanQueue}. */
export interface ScanQueueOptions {
  /** The schema of the store's tables; the URL's `schema` parameter too. @default 'trainprint' (the store's) */
  readonly schema?: string;
  /** Seconds a chunk (and an enqueue) is held unrenewed: a dead worker's is claimed again after it. @default 60 */
  readonly leaseSeconds?: number;
  /** How long an idle worker waits before it looks for a chunk again, in ms. @default 1000 */
  readonly pollIntervalMs?: number;
  /** Days a finished job and its results are kept. @default 7 */
  readonly retentionDays?: number;
  /** Connections of the pool. @default 10 */
  readonly maxConnections?: number;
  /** How long opening waits for a database that is away (src/store/postgres/wait.ts), then STORE_UNAVAILABLE. @default 0 (one try) */
  readonly waitForDatabaseMs?: number;
  /** Ends the wait of `waitForDatabaseMs` early (the last failure is thrown). */
  readonly signal?: AbortSignal;
  /** Told of each failure of the database waited out. @default ignored */
  readonly onError?: (error: Error) => void;
  /**
   * The account whose scan jobs the queue enqueues and works on: `''` is the operator's; an account of the API's keys
   * (`trainprint keys create --account A`) sees them in `GET /api/v1/jobs` of `serve --store` on the same database.
   * @default ''
   */
  readonly account?: string;
}

/** Options of {@link ScanQueue.enqueue}: the chunks' bytes, the signal and `onChunk` as a streamed submission's. */
export interface EnqueueOptions extends Pick<StreamSubmitOptions, 'chunkBytes' | 'signal' | 'onChunk'> {
  /** The datasets the job scans against, by id and SHA-256 ({@link jobDatasets}). */
  readonly datasets: readonly JobDataset[];
  /** @default 50 */
  readonly minWords?: number;
  /** @default false */
  readonly paraphrase?: boolean;
  /** Items per chunk at most. @default 500 */
  readonly chunkItems?: number;
}

/** What {@link ScanQueue.enqueue} stored. */
export interface EnqueueResult {
  readonly job: string;
  readonly items: number;
}

/** Options of {@link ScanQueue.work}. */
export interface WorkOptions {
  /** Chunks this process scans at once. @default 1 */
  readonly concurrency?: number;
  /** Work on this job only, and return when it has finished. Without it: every scan job, until `signal` aborts. */
  readonly job?: string;
  /** Stop taking chunks; those being scanned are finished, or given back at once when `abortChunks` aborts. */
  readonly signal?: AbortSignal;
  readonly abortChunks?: AbortSignal;
  /** A job this worker refuses (other datasets): it is left to the others. @default ignored */
  readonly onRefuse?: (job: string, why: string) => void;
  /** The database away for a moment (the worker waits and goes on). @default ignored */
  readonly onError?: (error: unknown) => void;
  /** Called after each chunk this worker wrote. */
  readonly onChunk?: (done: { readonly job: string; readonly items: number; readonly hits: number }) => void;
}

/** What a worker did. */
export interface WorkSummary {
  readonly chunks: number;
  readonly items: number;
  readonly hits: number;
}

/**
 * Opens the scan queue on the database at `url`: the PostgreSQL store there and the job service on it.
 * @throws INVALID_OPTIONS for a bad URL, schema or option; STORE_UNAVAILABLE when the database cannot be reached
 * @example
 * const queue = await openScanQueue('postgres://localhost/db')
 * const { job } = await queue.enqueue(readDocuments(['outputs.jsonl']), { datasets: await jobDatasets(engine) })
 * await queue.work(engine, { job })
 * for await (const hit of queue.exportHits(job)) console.log(JSON.stringify(hit))
 */
export async function openScanQueue(url: string, options: ScanQueueOptions = {}): Promise<ScanQueue> {
  const target = parseTarget(url);
  const days = options.retentionDays ?? 7;
  const lease = positiveInt('leaseSeconds', options.leaseSeconds, 60, 86_000);
  const poll = options.pollIntervalMs ?? 1000;
  if (!(days > 0 && Number.isFinite(days)) || !(poll > 0))
    throw new TrainprintError('INVALID_OPTIONS', 'retentionDays and pollIntervalMs must be > 0');
  const { schema, maxConnections, signal, onError } = options;
  const store = await waitOut(
    target,
    () => openPostgresStore(url, { schema: schema || undefined, maxConnections: maxConnections || undefined }),
    { waitMs: options.waitForDatabaseMs ?? 0, pollMs: poll, signal, onError },
  );
  const account = options.account ?? '';
  return new ScanQueue(store, { leaseMs: lease * 1000, pollMs: poll, retentionMs: days * 86_400_000, account });
}

/**
 * The datasets a job scans against, as workers check them: `ids` (default: every exact dataset the scanner holds)
 * with their SHA-256.
 * @throws NOT_FOUND for an id the scanner does not hold; INVALID_INPUT for none
 * @example await queue.enqueue(items, { datasets: await jobDatasets(engine) })
 */
export async function jobDatasets(scanner: QueueScanner, ids?: readonly string[]): Promise<JobDataset[]> {
  const held = scanner.datasets();
  const wanted = ids ?? held.filter((d) => d.kind === 'exact').map((d) => d.id);
  const out: JobDataset[] = [];
  for (const id of wanted) {
    if (!held.some((d) => d.id === id)) throw new TrainprintError('NOT_FOUND', `dataset "${id}" is not loaded`);
    out.push({ id, sha256: await scanner.datasetDigest(id) });
  }
  if (out.length === 0) throw new TrainprintError('INVALID_INPUT', 'a scan needs at least one exact dataset');
  return out;
}

/**
 * The results of a finished job in item order, a page at a time (any type, any store).
 * @throws NOT_FOUND for no such job of `owner`; CONFLICT while the job is queued or running
 * @example for await (const r of jobResults(jobs, id)) out.write(`${JSON.stringify(r)}\n`)
 */
export async function* jobResults(jobs: JobStore, id: string, owner = ''): AsyncGenerator<JobResult, void, undefined> {
  const job = await jobs.status(id, { owner });
  if (job.state === 'queued' || job.state === 'running')
    throw new TrainprintError('CONFLICT', `job ${id} is ${job.state}: export it once it has finished`);
  for (let after: number | null = -1; after !== null; ) {
    const page = await jobs.results(id, { owner, after, limit: 1000 });
    yield* page.results;
    after = page.next;
  }
}

/**
 * The hits of a finished scan job in job order — item, then hit — as `scan --out` writes them; failed items have
 * none (the job's `failed` counts them). @throws as {@link jobResults}
 * @example for await (const hit of exportHits(jobs, id)) out.write(hitLine(hit))
 */
export async function* exportHits(jobs: JobStore, id: string, owner = ''): AsyncGenerator<ScanHit, void, undefined> {
  for await (const r of jobResults(jobs, id, owner)) if (r.success) yield* (r.result as { hits: ScanHit[] }).hits;
}

/** The scan queue of one database schema. Made by {@link openScanQueue}. */
export class ScanQueue {
  /** The queue's jobs: the job model's store backend on the PostgreSQL store (read, cancel, delete them here). */
  readonly jobs: JobService;
  readonly #store: PostgresStore;
  readonly #o: { readonly leaseMs: number; readonly pollMs: number };
  /** The account whose scan jobs these are (`''`: the operator's). */
  readonly account: string;

  /** @internal use {@link openScanQueue} */
  constructor(store: PostgresStore, o: { leaseMs: number; pollMs: number; retentionMs: number; account: string }) {
    this.#store = store;
    this.#o = o;
    this.account = o.account;
    this.jobs = createJobService({ store, retentionMs: o.retentionMs, chunkItems: 500 });
  }

  /**
   * Stores `items` as a new scan job of the queue's account, a streamed submission ({@link StreamSubmitOptions}:
   * workers start on the first chunks) held for `leaseSeconds` at a time while the input is read.
   * @throws INVALID_INPUT for no datasets or no items
   */
  async enqueue(items: Iterable<ScanItem> | AsyncIterable<ScanItem>, options: EnqueueOptions): Promise<EnqueueResult> {
    if (options.datasets.length === 0) throw new TrainprintError('INVALID_INPUT', 'a job needs at least one dataset');
    // the options and each item read as the scan reads them (its workers check the datasets they load)
    const o = readThrough(
      REQUESTS.scanOptions,
      { min_words: options.minWords, paraphrase: options.paraphrase },
      undefined,
    );
    const context = {
      datasets: options.datasets.map((d) => ({ id: d.id, sha256: d.sha256 })),
      min_words: o.min_words ?? DEFAULT_MIN_WORDS,
      paraphrase: o.paraphrase === true,
    };
    const scanItems = async function* () {
      let i = 0;
      for await (const item of items) {
        let read: ScanItem;
        try {
          read = readThrough(REQUESTS.scan, item, undefined);
        } catch (e) {
          throw within(`items[${i}]`, e);
        }
        yield { id: read.id, text: read.text };
        i++;
      }
    };
    const { chunkItems = 500, chunkBytes, signal, onChunk } = options;
    const submission = { account: this.account, type: SCAN_JOB.name, chunkItems, context };
    const stream = { leaseMs: this.#o.leaseMs, chunkBytes, signal, onChunk };
    const job = await this.jobs.submitStream(submission, scanItems(), stream);
    return { job: job.id, items: job.total };
  }

  /** The hits of a finished job in job order (see {@link exportHits}). */
  exportHits(job: string): AsyncGenerator<ScanHit, void, undefined> {
    return exportHits(this.jobs, job, this.account);
  }

  /**
   * Works as one worker: the one job runner over the queue's scan jobs with the scan executor, until `signal`
   * aborts — or, with `options.job`, until that job has finished.
   * @throws CONFLICT when `options.job`'s datasets differ from the scanner's (nothing run); NOT_FOUND for no such job
   */
  async work(scanner: QueueScanner, options: WorkOptions = {}): Promise<WorkSummary> {
    const only = options.job;
    if (only !== undefined) await this.jobs.status(only, { owner: this.account });
    const totals = { chunks: 0, items: 0, hits: 0 };
    let refused: string | undefined;
    const scan = scanExecutor(scanner.scanItem.bind(scanner), scanner.datasetDigest.bind(scanner));
    const runner = new JobRunner({
      jobs: this.jobs,
      executors: {
        [SCAN_JOB.name]: (item, claim, signal) =>
          scan(item, claim, signal).catch((e: unknown) => {
            if (e instanceof ItemHandedBack) {
              options.onRefuse?.(claim.job.id, e.message);
              if (claim.job.id === only) refused ??= e.message;
            }
            throw e;
          }),
      },
      unsupported: {},
      // the queue's jobs only: its account's scans (a serving process on the same store runs the others)
      skip: (account, job, type) =>
        type !== SCAN_JOB.name || account !== this.account || (only !== undefined && job !== only),
      concurrency: options.concurrency ?? 1,
      pollMs: this.#o.pollMs,
      leaseMs: this.#o.leaseMs,
      finishChunks: true,
      // a worker's log names the scanner's own error (an HTTP job's result would not)
      errorOf: (e) => ({ code: codeOf(e) ?? 'INTERNAL', message: String((e as Error)?.message ?? e) }),
      fatal: (e) => !away(e), // the database away is waited for (a doubling wait); anything else ends the worker
      onError: options.onError,
      onChunk: (claim, results) => {
        const hits = results.reduce((n, r) => n + (r.success ? (r.result as { hits: unknown[] }).hits.length : 0), 0);
        totals.chunks++;
        totals.items += results.length;
        totals.hits += hits;
        options.onChunk?.({ job: claim.job.id, items: results.length, hits });
      },
    });
    const giveBack = () => void runner.stop({ graceMs: 0 });
    options.abortChunks?.addEventListener('abort', giveBack, { once: true });
    try {
      runner.start();
      let ended = false;
      const end = () => (ended = true);
      runner.settled.then(end, end);
      while (!ended && !options.signal?.aborted && refused === undefined) {
        await sleep(this.#o.pollMs, options.signal).catch(() => undefined);
        if (only !== undefined && (await this.#finished(only))) break;
      }
      await runner.stop({ graceMs: options.abortChunks?.aborted ? 0 : this.#o.leaseMs });
      await runner.settled;
    } finally {
      options.abortChunks?.removeEventListener('abort', giveBack);
    }
    if (refused !== undefined) throw new TrainprintError('CONFLICT', refused);
    return totals;
  }

  /** Whether `job` has finished (false while the database is away). */
  async #finished(job: string): Promise<boolean> {
    try {
      const { state } = await this.jobs.status(job, { owner: this.account });
      return state !== 'queued' && state !== 'running';
    } catch (e) {
      if (away(e)) return false;
      throw e;
    }
  }

  /** Closes the store's pool. */
  async close(): Promise<void> {
    await this.#store.close();
  }
}
