/**
 * `trainprint scan --queue URL …` and `trainprint worker --queue URL …`: scans spread over workers on any number of
 * machines that share one PostgreSQL (the scan queue of trainprint/node, on pg-boss: the PostgreSQL backend of the
 * job model, each worker the one job runner with the scan executor; docs/scan.md "Workers over PostgreSQL"). `scan --queue` enqueues an input as a job and, without --enqueue-only, works on it as one worker
 * until it is done; `--status`, `--export`, `--cancel` and `--delete` take `--job ID` (default: the newest job).
 * Exit codes: 0 done, 1 runtime failure (a refused job, a failed job, bad input), 2 usage, 130 interrupted.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createEngine, type Engine } from '../library.js';
import {
  hitLine,
  jobDatasets,
  openScanQueue,
  readDocuments,
  type ScanJobStatus,
  type ScanQueue,
  type ScanQueueOptions,
} from '../node/index.js';
import { DATASETS, fmt, loadDatasets, options, parse, QUIET, redact, UsageError, type ParseOptions } from './shared.js';

/** The options `scan --queue` and `worker` share: where the queue is, the datasets, the lease and retention. */
export const QUEUE_OPTIONS: ParseOptions = {
  ...options(
    ['queue', 'job', 'concurrency', 'lease-seconds', 'retry-limit', 'maintenance-seconds', 'retention-days'],
    ['starter'],
  ),
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

/** An integer option in lo..hi, or undefined when absent; a UsageError otherwise. */
export function intOption(values: Record<string, unknown>, name: string, lo: number, hi: number): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < lo || n > hi) throw new UsageError(`--${name} must be an integer ${lo}..${hi}`);
  return n;
}

/** The queue's options from the command line (`--lease-seconds`, `--retry-limit`, …). */
export function queueOptions(values: Record<string, unknown>): ScanQueueOptions {
  const lease = intOption(values, 'lease-seconds', 1, 86_000);
  const retries = intOption(values, 'retry-limit', 0, 1000);
  const maintenance = intOption(values, 'maintenance-seconds', 1, 3600);
  let retention: number | undefined;
  if (values['retention-days'] !== undefined) {
    retention = Number(values['retention-days']);
    if (!(retention > 0) || !Number.isFinite(retention))
      throw new UsageError('--retention-days must be a positive number');
  }
  return {
    ...(lease === undefined ? {} : { leaseSeconds: lease }),
    ...(retries === undefined ? {} : { retryLimit: retries }),
    ...(maintenance === undefined ? {} : { maintenanceIntervalSeconds: maintenance }),
    ...(retention === undefined ? {} : { retentionDays: retention }),
    onError: (e) => {
      if (process.env.TRAINPRINT_DEBUG) console.error(`queue: ${e.message}`);
    },
  };
}

/** `--queue URL`, checked. */
export function queueUrl(values: Record<string, unknown>): string {
  const url = values.queue;
  if (typeof url !== 'string' || !/^postgres(ql)?:\/\//i.test(url)) {
    throw new UsageError('--queue needs a postgres:// or postgresql:// URL');
  }
  return url;
}

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

/** A status as one line for people. */
function statusLine(st: ScanJobStatus): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const pct = st.items_total > 0 ? ` (${fmt((100 * st.items_done) / st.items_total)} %)` : '';
  return (
    `job ${st.job}: ${st.state}, ${n(st.items_done)} of ${n(st.items_total)}${st.sealed ? '' : '+'} items${pct}, ` +
    `${n(st.hits)} hits; chunks ${n(st.chunks_done)}/${n(st.chunks_total)}` +
    `${st.chunks_failed ? `, ${n(st.chunks_failed)} failed` : ''}${st.exported ? ', exported' : ''}` +
    `${st.error ? ` — ${st.error}` : ''}`
  );
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
 * `trainprint scan --queue URL …`: enqueue (and work), `--status`, `--export`, `--cancel`, `--delete`.
 * @example process.exitCode = await scanQueueCommand(['--queue', 'postgres://localhost/db', '--status', '--json'])
 */
export async function scanQueueCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, SCAN_QUEUE_OPTIONS);
  const url = queueUrl(values);
  const actions = ['status', 'export', 'cancel', 'delete'].filter(
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
  const minWords = intOption(values, 'min-words', 1, 100_000);
  const chunkItems = intOption(values, 'chunk-items', 1, 1_000_000);
  const chunkMb = intOption(values, 'chunk-mb', 1, 1024);
  const concurrency = intOption(values, 'concurrency', 1, 256);
  const quiet = values.quiet === true;

  const queue = await openScanQueue(url, queueOptions(values));
  try {
    if (action === 'status') {
      const st = await queue.status(job);
      if (values.json) {
        const { state, items_done, items_total, hits, error } = st;
        console.log(JSON.stringify({ job: st.job, state, items_done, items_total, hits, ...(error ? { error } : {}) }));
      } else console.log(statusLine(st));
      return 0;
    }
    if (action === 'export') return await exportJob(queue, values.export as string, job, quiet);
    if (action === 'cancel' || action === 'delete') {
      const id = await queue.resolveJob(job);
      await (action === 'cancel' ? queue.cancel(id) : queue.delete(id));
      if (!quiet) console.error(`${action === 'cancel' ? 'cancelled' : 'deleted'} job ${id}`);
      return 0;
    }

    const { engine, close } = await workerEngine(values);
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
      const signals = stopSignals(); // Ctrl-C while enqueuing: the job is deleted, exit code 130
      let enqueued: Awaited<ReturnType<ScanQueue['enqueue']>>;
      try {
        enqueued = await queue.enqueue(items, {
          signal: signals.stop,
          datasets,
          ...(minWords === undefined ? {} : { minWords }),
          paraphrase: values.paraphrase === true,
          ...(chunkItems === undefined ? {} : { chunkItems }),
          ...(chunkMb === undefined ? {} : { chunkBytes: chunkMb * 1024 * 1024 }),
          onJob: (id) => {
            if (!quiet) console.error(`job ${id} in ${redact(url)}: enqueuing…`);
          },
          onChunk: (p) => progress(() => `enqueued ${p.items.toLocaleString('en-US')} items (${p.chunks} chunks)`),
        });
      } catch (error) {
        signals.done();
        if (signals.interrupted) {
          if (!quiet) console.error('interrupted: the job is deleted');
          return 130;
        }
        throw error;
      }
      console.log(enqueued.job);
      if (!quiet) {
        console.error(
          `job ${enqueued.job}: ${enqueued.items.toLocaleString('en-US')} items in ${enqueued.chunks} chunks ` +
            `(${fmt(enqueued.bytes / 1e6)} MB) against ${datasets.map((d) => `${d.id} (${d.sha256.slice(0, 12)}…)`).join(', ')}`,
        );
      }
      if (values['enqueue-only']) {
        signals.done();
        return 0;
      }
      try {
        await queue.work(engine, {
          job: enqueued.job,
          ...(concurrency === undefined ? {} : { concurrency }),
          signal: signals.stop,
          abortChunks: signals.abort,
          onChunk: () => progress(() => 'scanning…'),
          onChunkError: (e, c) => console.error(`chunk ${c.seq}: ${(e as Error)?.message ?? String(e)} (retried)`),
        });
      } finally {
        signals.done();
      }
      const st = await queue.status(enqueued.job);
      if (!quiet) console.error(statusLine(st));
      if (signals.interrupted && st.state !== 'done') return 130;
      return st.state === 'done' ? 0 : 1;
    } finally {
      await close();
    }
  } finally {
    await queue.close();
  }
}

/** `--export FILE` (`-`: stdout): the job's hits as JSON lines, then its input texts are deleted. */
async function exportJob(queue: ScanQueue, file: string, job: string | undefined, quiet: boolean): Promise<number> {
  const out = file === '-' ? process.stdout : createWriteStream(file);
  let failed: unknown;
  out.on('error', (e) => {
    failed = e;
  });
  let n = 0;
  const it = queue.exportHits(job);
  for (;;) {
    const r = await it.next();
    if (r.done) break;
    if (failed) throw failed;
    if (!out.write(hitLine(r.value))) await once(out, 'drain'); // the local scan's hit line, byte for byte
    n++;
  }
  if (out !== process.stdout) {
    await new Promise<void>((resolve, reject) =>
      (out as ReturnType<typeof createWriteStream>).end((e?: Error | null) => (e ? reject(e) : resolve())),
    );
  }
  if (failed) throw failed;
  if (!quiet) console.error(`exported ${n.toLocaleString('en-US')} hits to ${file}; the job's input texts are deleted`);
  return 0;
}
