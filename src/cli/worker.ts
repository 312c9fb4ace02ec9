/**
 * `trainprint worker --queue URL --dataset …`: one worker of the scan queue (docs/scan.md "Workers over
 * PostgreSQL"): takes chunks of the open scan jobs, scans them against its datasets and writes the hits, until
 * SIGINT / SIGTERM (the first finishes the chunk being scanned, a second gives it back); exit code 0. A job whose
 * datasets differ from the worker's (by SHA-256) is refused — left to the other workers, nothing written; with
 * `--job ID`, that job refused is exit code 1. A database that is away
 * when the worker starts is waited for, up to {@link WORKER_DATABASE_WAIT_MS}; once it works, for as long as it runs.
 */
import { openScanQueue } from '../node/index.js';
import { queueUrl } from './jobs.js';
import { debug, intOption, QUEUE_OPTIONS, queueOptions, stopSignals, workerEngine } from './scan-queue.js';
import { parse, redact, UsageError } from './shared.js';

/** How long a worker waits at its start for a database that is away (a restart, a failover): 5 minutes. */
export const WORKER_DATABASE_WAIT_MS = 300_000;

/**
 * `trainprint worker --queue URL [--dataset A,B] [--concurrency N] [--job ID] [--quiet]`.
 * @example process.exitCode = await workerCommand(['--queue', 'postgres://localhost/db', '--dataset', 'books.tpds'])
 */
export async function workerCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, QUEUE_OPTIONS);
  if (positionals.length) throw new UsageError('worker takes no positional arguments');
  const url = queueUrl(values);
  const concurrency = intOption(values, 'concurrency', 1, 256);
  const quiet = values.quiet === true;
  const job = values.job as string | undefined;
  const refused = new Set<string>();
  const signals = stopSignals(); // from the start: a signal while the datasets load stops the worker before any chunk
  try {
    const { engine, close } = await workerEngine(values);
    try {
      // a worker started while PostgreSQL restarts waits for it (a signal ends the wait)
      const queue = await openScanQueue(url, {
        ...queueOptions(values),
        waitForDatabaseMs: WORKER_DATABASE_WAIT_MS,
        signal: signals.stop,
      });
      try {
        if (!quiet) {
          const names = engine
            .datasets()
            .filter((d) => d.kind === 'exact')
            .map((d) => d.id);
          console.error(`worker ${process.pid} on ${redact(url)} with datasets ${names.join(', ')}`);
        }
        const summary = await queue.work(engine, {
          ...(concurrency === undefined ? {} : { concurrency }),
          ...(job === undefined ? {} : { job }),
          signal: signals.stop,
          abortChunks: signals.abort,
          onError: debug,
          onRefuse: (id, why) => {
            if (!refused.has(id)) console.error(`${why} (left to the other workers)`);
            refused.add(id);
          },
        });
        if (!quiet) {
          console.error(
            `worker ${process.pid} stopped: ${summary.chunks} chunks, ${summary.items.toLocaleString('en-US')} items, ` +
              `${summary.hits.toLocaleString('en-US')} hits`,
          );
        }
        return 0;
      } finally {
        await queue.close();
      }
    } finally {
      await close();
    }
  } finally {
    signals.done();
  }
}
