/**
 * `trainprint serve`: the HTTP service under /api/v1 (npm start), with the web app at '/' when it was built. One
 * process, or with `--workers N` a primary (serve-workers.ts) and N worker processes that each run this.
 */
import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine, createHeldJobModels, startJobRunner, type Engine, type JobRunner } from '../library.js';
import {
  CLIENT_ADDRESS_HEADER,
  collectWhenQuiet,
  createWorkerPool,
  LARGE_BODY_BYTES,
  isPostgresUrl,
  loadDefaultPacks,
  resolveHost,
  serve,
  serveStatic,
  type WorkerPool,
} from '../node/index.js';
import { printServing, serveKeys, type HttpModule } from './serve-keys.js';
import { SERVE_WORKER_ENV, servePrimary } from './serve-workers.js';
import {
  DATASETS,
  integerIn,
  loadDatasets,
  openStore,
  options,
  packsOption,
  parse,
  redact,
  REMOTE_CORPUS_OPTIONS,
  remoteCorporaFrom,
  UsageError,
} from './shared.js';

/**
 * The text a serving process's core is grown for at start (FingerprintEngine.reserveMemory: about 16 MiB of memory):
 * a request of up to 1 MB of text is fingerprinted on memory already mapped.
 */
const SERVE_TEXT_BYTES = 1 << 20;

/**
 * Engine on an in-memory, file or PostgreSQL store, with dataset files, stored datasets and/or the starter; its
 * webhooks sent with `webhookFetch` (else fetch), each attempt leased for the request timeout plus `leaseMarginMs`.
 */
async function engineFor(
  values: Record<string, unknown>,
  webhooks: { fetch?: typeof fetch; leaseMarginMs: number },
): Promise<{ engine: Engine; closeDatasets: () => Promise<void> }> {
  const store = typeof values.store === 'string' ? await openStore(values.store) : undefined;
  const engine = await createEngine({
    ...(store ? { store } : {}),
    webhooks: webhooks.fetch ? webhooks : { leaseMarginMs: webhooks.leaseMarginMs },
    remoteCorpora: remoteCorporaFrom(values),
  });
  return { engine, closeDatasets: await loadDatasets(engine, values) };
}

/** One line per remote corpus for the start-up log: what is sent where. */
function remoteLines(engine: Engine): string[] {
  return engine.corpus
    .remoteDatasets()
    .map(
      ({ config: c }) => `remote corpus ${c.id}: analyzed text is sent to ${c.endpoint} (${c.kind} index ${c.index})`,
    );
}

/** What a serving process needs besides the options: checked by serveCommand before anything starts. */
interface ServeSettings {
  port: number;
  packs: 'default' | 'none';
  monitorS: number;
  drainMs: number;
  /** the time limit of a job item, ms (`--job-item-timeout-s`) */
  jobItemTimeoutMs: number;
  /** how long a claimed chunk of a job stays this process's without renewal, ms (`--job-lease-s`) */
  jobLeaseMs: number;
  /** how long a webhook attempt's lease outlasts its request timeout, ms (`--webhook-lease-margin-s`) */
  webhookLeaseMarginMs: number;
  /** the processes of the deployment (`--workers`) */
  processes: number;
  /** this worker's number (SERVE_WORKER_ENV) under a `--workers N` primary; undefined when serving alone */
  worker: string | undefined;
}

/**
 * The request handler of a serving process: the web app (dist/web, built by `npm run build`) at '/', the API under
 * /api/v1; and beside it the process's job runner, which runs the catalogue jobs of the store (those submitted here,
 * and to every process on the store).
 */
function serveHandler(
  http: HttpModule,
  engine: Engine,
  values: Record<string, unknown>,
  o: ServeSettings & { keys: InstanceType<HttpModule['KeyStore']>; workers: WorkerPool; privateWebhooks: boolean },
): ((req: Request) => Promise<Response>) & { stopJobs(graceMs: number): Promise<void> } {
  // the models of the extract jobs accepted here: held in memory for this process's runner (keys are never stored)
  const jobModels = createHeldJobModels();
  // the garbage of a large body or job (a 100,000-work audit: its 40 MB body, its item decoded) collected once the
  // process goes quiet, rather than held until an allocation happens to ask V8 for a collection
  const collection = collectWhenQuiet();
  const runner: JobRunner = startJobRunner(engine, {
    jobModels,
    itemTimeoutMs: o.jobItemTimeoutMs,
    leaseMs: o.jobLeaseMs,
    work: { offload: o.workers },
    onChunk: () => collection.note(),
    onError: (err) => {
      if (process.env.TRAINPRINT_DEBUG) console.error(`jobs: ${err instanceof Error ? err.message : String(err)}`);
    },
  });
  const api = http.createHandler(engine, {
    keys: o.keys,
    offload: o.workers,
    // with a store the day's counts are kept in it: a restart does not reset the quotas, and every
    // process on one PostgreSQL store counts against the same quota
    ...(typeof values.store === 'string' ? { counters: new http.StoreCounterStore(engine.store) } : {}),
    ...(values['base-url'] ? { baseUrl: values['base-url'] as string } : {}),
    resolveHost,
    // the back-off after failed authentication counts per client address too: the bridge's, never the client's say
    clientAddress: (request: Request) => request.headers.get(CLIENT_ADDRESS_HEADER),
    allowPrivateModelHosts: values['allow-private-model-hosts'] === true,
    allowPrivateWebhookHosts: o.privateWebhooks,
    onJobSubmitted: () => runner.wake(),
    jobModels,
    // each worker process of --workers N loads the datasets from files: a change through one would be missing in
    // the others (and in every process after a restart), so none is accepted
    ...(o.worker
      ? {
          datasetsReadOnly:
            `its ${o.processes} processes each load them at start (--dataset, --starter, packs); ` +
            'build a dataset file with `trainprint index build` (or into PostgreSQL with --into) and restart',
        }
      : {}),
  });
  // import.meta.url is dist/cli.js (this module is bundled into it): the web app is dist/web/
  const webDir = fileURLToPath(new URL('./web/', import.meta.url));
  const files = existsSync(join(webDir, 'index.html')) ? serveStatic(webDir) : null;
  if (!files) console.error(`no web app at ${webDir} (run npm run build in a clone); serving the API only`);
  const handler = async (req: Request) => {
    try {
      return files ? ((await files(req)) ?? (await api(req))) : await api(req);
    } finally {
      if (Number(req.headers.get('content-length')) >= LARGE_BODY_BYTES) collection.note();
    }
  };
  // the catalogue jobs' runner: stopped on shutdown, its items aborted after the grace and their chunks given back
  // for another process at once
  const stopJobs = (graceMs: number) => {
    collection.stop();
    return runner.stop({ graceMs });
  };
  return Object.assign(handler, { stopJobs });
}

/**
 * The indexes a first search would build (sorted exact indexes, content-word indexes: tens of seconds for a large
 * dataset), built now, in slices, while the server already answers; requests meanwhile share the build. `ready` is
 * the server's readiness (GET /readyz); `settled` says, once the build is over, how long it took or why it failed.
 */
function prepareSearchIndexes(
  engine: Engine,
  workers: WorkerPool,
): { ready: () => Promise<boolean>; settled: () => Promise<string> } {
  let prepared = false,
    notReady = 'building the search indexes of the datasets';
  const started = performance.now();
  const preparing = engine.corpus.prepareSearch({ offload: workers }).then(
    () => {
      prepared = true;
    },
    (e: unknown) => {
      // not ready (a search would try again, and fail the same way): the reason shows in /readyz and the log
      notReady = `the search indexes could not be built: ${e instanceof Error ? e.message : String(e)}`;
      console.error(notReady);
    },
  );
  // ready once they are built and while the store answers (a PostgreSQL store may be unreachable; the memory and
  // file stores always answer)
  const ready = async () => {
    if (!prepared) throw new Error(notReady);
    await engine.store.get('http/config/token-secret');
    return true;
  };
  const settled = async () => {
    await preparing;
    return prepared ? `search indexes built in ${((performance.now() - started) / 1000).toFixed(1)} s` : notReady;
  };
  return { ready, settled };
}

/** How long the shutdown after the drain may take (ms): what is still running then is cut off. */
const SHUTDOWN_MS = 20_000;

/**
 * The bound on a shutdown: the process exits `ms` from now with code 1 even if something still runs — work that does
 * not heed its abort signal, a database that does not answer the last writes — or at once on a second SIGTERM/SIGINT.
 * The timer is unreferenced: a shutdown that ends sooner exits as usual, with its own code.
 */
function exitWithin(ms: number): { finished(): void } {
  const cut = (why: string) => {
    console.error(`shutdown: ${why}; exiting now`);
    process.exit(1);
  };
  const t = setTimeout(() => cut(`not finished after ${ms / 1000} s`), ms).unref();
  const again = () => cut('second signal');
  process.once('SIGINT', again);
  process.once('SIGTERM', again);
  return {
    // the shutdown is over: work that ignored its abort signal (a parser between two checks) keeps the event loop
    // busy but not the process — it exits a moment later with the command's own code
    finished: () => {
      clearTimeout(t);
      setTimeout(() => process.exit(process.exitCode ?? 0), 1000).unref();
    },
  };
}

/** One serving process: the engine, its datasets and packs, the keys, the server; until SIGTERM/SIGINT and its drain. */
async function serveProcess(values: Record<string, unknown>, o: ServeSettings): Promise<number> {
  const { worker } = o;
  const http = await import('../http/index.js');
  const privateWebhooks = values['allow-private-webhook-hosts'] === true;
  // a webhook URL was checked when its monitor was made, but its name may resolve elsewhere by the
  // time an event is sent: every delivery is resolved, checked and sent to the checked address
  const webhookFetch = privateWebhooks ? undefined : http.egressFetch(resolveHost);
  const { engine, closeDatasets } = await engineFor(values, {
    fetch: webhookFetch,
    leaseMarginMs: o.webhookLeaseMarginMs,
  });
  // the core's first growth is paid now, not by the first requests (the pages of a 1 MB text's fingerprint mapped)
  engine.reserveMemory(SERVE_TEXT_BYTES);
  // the reference packs (portraits of documented training data, packs/index.json), each checked against its SHA-256
  if (o.packs === 'default') await loadDefaultPacks(engine);
  const keys = new http.KeyStore(engine.store);
  // in a worker process of `--workers N` the primary made the keys once
  const { dev, admin } = worker
    ? { dev: null, admin: null }
    : await serveKeys(http, keys, values['admin-key'] === true);
  // analyze's fingerprints and pairs and whole compares run on worker threads, and analyze's search yields
  // between slices: a large request does not hold up the others (docs/performance.md)
  const workers = createWorkerPool();
  const handler = serveHandler(http, engine, values, { ...o, keys, workers, privateWebhooks });
  const search = prepareSearchIndexes(engine, workers);
  const host = (values.host as string | undefined) ?? '127.0.0.1';
  const server = await serve(handler, { port: o.port, host, workers, ready: search.ready });
  const sets = engine
    .datasets()
    // a pack's documents are its source files (a Wikipedia pack: one per extractor file of thousands of articles):
    // its name says what they hold
    .map((d) => `${d.id} (${d.documents} documents${d.id.startsWith('pack:') && d.name ? `: ${d.name}` : ''})`)
    .join(', ');
  // a store URL may carry a password: the log shows it as ***
  const where = typeof values.store === 'string' ? redact(values.store) : 'in memory';
  // every serving process heartbeats to the store: the status page's availability counts the minutes with one
  const heartbeat = new http.Heartbeat(engine.store);
  void heartbeat.start(); // a failed heartbeat leaves its minute down; /readyz reports the store itself
  const preparedIn = await search.settled();
  if (worker) process.send?.({ listening: server.url, datasets: sets });
  else {
    printServing(server.url, `datasets: ${sets}; store: ${where}; ${preparedIn}`, dev!, admin);
    for (const line of remoteLines(engine)) console.log(line);
  }
  // one monitoring tick per deployment is enough (several would find the same events; leases keep them single)
  if (!worker || worker === '1') engine.startMonitoring(o.monitorS * 1000);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  const shutdown = exitWithin(o.drainMs + SHUTDOWN_MS);
  // Webhooks stop with the drain, not after it: no new attempt from here on, and a request still unanswered when
  // the drain ends is handed back (its lease released) for another process, rather than cut off by a SIGKILL
  // after it and left leased until the lease lapses. Without a drain, a request in flight gets its own timeout.
  await Promise.all([
    server.close({ drainMs: o.drainMs }),
    engine.stopMonitoring(o.drainMs > 0 ? { graceMs: o.drainMs } : {}),
    handler.stopJobs(o.drainMs),
  ]);
  await heartbeat.stop();
  await closeDatasets();
  await engine.store.close();
  // a worker process stays alive while its channel to the primary is open
  if (worker) process.disconnect?.();
  shutdown.finished();
  return 0;
}

/**
 * `trainprint serve [options]`: checks the options, then serves in this process, or as the primary of
 * `--workers N` (whose workers run this again, each as one serving process).
 * @example process.exitCode = await serveCommand(['--starter', '--port', '0'])
 */
export async function serveCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...options(
      [
        'port',
        'host',
        'store',
        'base-url',
        'packs',
        'drain-ms',
        'job-item-timeout-s',
        'job-lease-s',
        'webhook-lease-margin-s',
        'workers',
        'monitor-interval-s',
      ],
      ['starter', 'allow-private-model-hosts', 'allow-private-webhook-hosts', 'admin-key'],
    ),
    ...DATASETS,
    ...REMOTE_CORPUS_OPTIONS,
  });
  if (positionals.length) throw new UsageError('serve takes no positional arguments');
  const monitorS = integerIn(values, 'monitor-interval-s', 60, 1, 86_400);
  remoteCorporaFrom(values); // refused here, before any process starts (engineFor uses them)
  const drainMs = integerIn(values, 'drain-ms', 0, 0, 60_000);
  const jobItemS = integerIn(values, 'job-item-timeout-s', 300, 1, 86_400);
  // the runner's default; a process that dies holds its chunks this long before another process takes them over
  const jobLeaseS = integerIn(values, 'job-lease-s', 60, 1, 3600);
  // the deliverer's default; a webhook attempt of a process that dies is sent by another this long after its timeout
  const webhookMarginS = integerIn(values, 'webhook-lease-margin-s', 30, 1, 3600);
  // several processes need one shared state: only a PostgreSQL store is shared (a file store is locked by one
  // process, a memory store is per process)
  const shared = typeof values.store === 'string' && isPostgresUrl(values.store);
  const processes = integerIn(values, 'workers', shared ? availableParallelism() : 1, 1, 256);
  if (processes > 1 && !shared) {
    throw new UsageError('--workers N > 1 needs --store postgres://… (a file or memory store belongs to one process)');
  }
  const worker = process.env[SERVE_WORKER_ENV];
  if (processes > 1 && cluster.isPrimary) return servePrimary(values, processes);
  const port = integerIn(values, 'port', 8787, 0, 65535);
  const packs = packsOption(values);
  const timing = {
    monitorS,
    drainMs,
    jobItemTimeoutMs: jobItemS * 1000,
    jobLeaseMs: jobLeaseS * 1000,
    webhookLeaseMarginMs: webhookMarginS * 1000,
  };
  return serveProcess(values, { port, packs, ...timing, processes, worker });
}
