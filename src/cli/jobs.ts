/**
 * `trainprint jobs list|status|export|cancel|delete [JOB] --store LOCATION | --queue URL`: the jobs of a store read and
 * controlled from the command line through the one job model's face (`JobStore`), whatever submitted them — the
 * scan queue (`scan --queue`), `serve`'s HTTP API — on any backend (a directory, a PostgreSQL database). JOB
 * defaults to the account's newest job; the account is the operator's (`''`, the scan queue's) unless `--account`.
 * `scan --queue URL --status|--export FILE|--cancel|--delete [--job ID]` are the same commands under their old names.
 * Exit codes: 0 done, 1 runtime failure (no such job, a job still running for export), 2 usage.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import {
  BUILT_IN_JOB_TYPES,
  createJobService,
  jobResultSummary,
  TrainprintError,
  type JobInfo,
  type JobList,
  type JobResult,
  type JobService,
} from '../library.js';
import { isPostgresUrl, jobResults } from '../node/index.js';
import { checkOutputPath, fmt, openExistingStore, options, parse, QUIET, UsageError } from './shared.js';

const ACTIONS = ['list', 'status', 'export', 'cancel', 'delete'] as const;
/** One of the `jobs` subcommands. */
export type JobsAction = (typeof ACTIONS)[number];

/** The options of `trainprint jobs`. */
export const JOBS_OPTIONS = { ...options(['store', 'queue', 'account', 'out'], ['json']), ...QUIET };

/**
 * `trainprint jobs ACTION [JOB] …`.
 * @example process.exitCode = await jobsCommand(['status', '--queue', 'postgres://localhost/db', '--json'])
 */
export async function jobsCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  if (!ACTIONS.includes(action as JobsAction)) {
    parse(args, JOBS_OPTIONS); // --help: the help
    throw new UsageError(
      `jobs needs a subcommand: ${ACTIONS.join(', ')}${action ? ` (not ${JSON.stringify(action)})` : ''}`,
    );
  }
  const { values, positionals } = parse(rest, JOBS_OPTIONS);
  if (positionals.length > 1) throw new UsageError(`jobs ${action} takes one JOB at most`);
  const where = values.store ?? values.queue;
  if (typeof where !== 'string' || (values.store !== undefined && values.queue !== undefined))
    throw new UsageError('jobs needs --store LOCATION or --queue URL (one of them)');
  if (values.queue !== undefined) queueUrl(values);
  if (values.json && action !== 'status' && action !== 'list') throw new UsageError('--json goes with list and status');
  if (action === 'list' && positionals.length) throw new UsageError('jobs list takes no JOB');
  if (values.out !== undefined && action !== 'export') throw new UsageError('--out goes with export');
  checkOutputPath(values.out, 'out');
  return jobsAction(action as JobsAction, where, {
    job: positionals[0],
    account: typeof values.account === 'string' ? values.account : '',
    json: values.json === true,
    out: typeof values.out === 'string' ? values.out : '-',
    quiet: values.quiet === true,
  });
}

/** `--queue URL`, checked (`jobs`, `scan --queue`, `worker`). */
export function queueUrl(values: Record<string, unknown>): string {
  const url = values.queue;
  if (typeof url !== 'string' || !isPostgresUrl(url))
    throw new UsageError('--queue needs a postgres:// or postgresql:// URL');
  return url;
}

/** What {@link jobsAction} is given besides the action and the store. */
export interface JobsActionOptions {
  /** @default the account's newest job */
  readonly job?: string | undefined;
  readonly account: string;
  readonly json: boolean;
  /** export: the file, `-` for standard output */
  readonly out: string;
  readonly quiet: boolean;
}

/**
 * One action on a job of the store at `location` (`jobs`, and `scan --queue`'s aliases).
 * @example await jobsAction('cancel', 'postgres://localhost/db', { account: '', json: false, out: '-', quiet: false })
 */
export async function jobsAction(action: JobsAction, location: string, o: JobsActionOptions): Promise<number> {
  // reading or ending a job never makes a store: a mistyped path would be left behind as an empty one
  const store = await openExistingStore(location).catch((e: unknown) => {
    throw heldElsewhere(e, location);
  });
  try {
    const jobs = createJobService({ store });
    const owner = { owner: o.account };
    if (action === 'list') return await listJobs(jobs, o);
    const id = o.job ?? (await jobs.list({ ...owner, limit: 1 })).jobs[0]?.id;
    if (id === undefined)
      throw new TrainprintError('NOT_FOUND', `no jobs of account ${JSON.stringify(o.account)} in the store`);
    if (action === 'status') {
      const job = await jobs.status(id, owner);
      if (o.json) console.log(JSON.stringify(await httpBody({ job })));
      else for (const line of [statusLine(job), ...(await resultLines(jobs, job, o.account))]) console.log(line);
    } else if (action === 'export') await exportJob(jobs, id, o);
    else {
      const done = action === 'cancel' ? (await jobs.cancel(id, owner)).cancelled : await jobs.delete(id, owner);
      if (action === 'delete' && !done) await jobs.status(id, owner); // NOT_FOUND, as the others say it
      if (!o.quiet) console.error(`${done ? '' : 'not '}${action === 'cancel' ? 'cancelled' : 'deleted'} job ${id}`);
    }
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * `jobs list`: the account's jobs, newest first (the 100 newest), a line each — or with `--json` the body of
 * `GET /api/v1/jobs?limit=100`, the same fields the HTTP API gives (`job_id`, ISO times, `status_url` …).
 */
async function listJobs(jobs: JobService, o: JobsActionOptions): Promise<number> {
  const page = await jobs.list({ owner: o.account, limit: 100 });
  if (o.json) console.log(JSON.stringify(await httpBody({ page })));
  else if (page.jobs.length === 0) console.error(`no jobs of account ${JSON.stringify(o.account)} in the store`);
  else for (const j of page.jobs) console.log(statusLine(j));
  return 0;
}

/**
 * The body the HTTP API answers for a job (`GET /api/v1/jobs/{job_id}`) or a page of them (`GET /api/v1/jobs`): `--json`
 * prints it field for field (`job_id`, ISO times, `status_url` …), not the library's `JobInfo`.
 */
async function httpBody(
  what: { readonly job: JobInfo } | { readonly page: JobList },
): Promise<Record<string, unknown>> {
  const { jobBody } = await import('../http/index.js');
  if ('job' in what) return { success: true, ...jobBody(what.job) };
  return { success: true, jobs: what.page.jobs.map(jobBody), next: what.page.next };
}

/**
 * STORE_LOCKED of a store directory another process holds (`serve` on it) said with what to do instead: a file store
 * is one process's at a time, and that process's HTTP API reads its jobs. Anything else as it came.
 */
function heldElsewhere(e: unknown, location: string): unknown {
  if (!(e instanceof TrainprintError) || e.code !== 'STORE_LOCKED') return e;
  return new TrainprintError(
    'STORE_LOCKED',
    `${e.detail ?? 'the store is held'}. A store directory is open in one process at a time: while \`trainprint serve --store ${location}\` ` +
      'runs, read its jobs through its HTTP API (GET /api/v1/jobs, GET /api/v1/jobs/JOB with the key of their ' +
      'account), or stop it and run this again; a PostgreSQL store (--queue URL) is shared by every process',
    { cause: e },
  );
}

/** A job as one line for people. */
export function statusLine(j: JobInfo): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const pct = j.total > 0 ? ` (${fmt((100 * j.done) / j.total)} %)` : '';
  const failed = j.failed ? `, ${n(j.failed)} failed` : '';
  const error = j.error ? ` — ${j.error.code}: ${j.error.message}` : '';
  return `job ${j.id} (${j.type}): ${j.state}, ${n(j.done)} of ${n(j.total)} items${pct}${failed}${error}`;
}

/** Items whose results `jobs status` shows a line of. */
const STATUS_RESULTS = 10;

/**
 * The first {@link STATUS_RESULTS} results the job has, a line each as its type summarizes them (`item 0: 2 hits`),
 * and how many more there are.
 */
async function resultLines(jobs: JobService, job: JobInfo, account: string): Promise<string[]> {
  const { results } = await jobs.results(job.id, { owner: account, limit: STATUS_RESULTS });
  const lines = results.map((r) => `  item ${r.index}: ${jobResultSummary(job.type, r)}`);
  const more = job.done - results.length; // done counts the failed items too
  if (more > 0) lines.push(`  … and ${more.toLocaleString('en-US')} more (jobs export ${job.id})`);
  return lines;
}

/**
 * The results of a finished job as JSON lines in item order: the rows of a type that has them, one a line (a scan
 * job's hits as `scan --out` writes them), any other type's results one per item (`{ index, success, result | error }`).
 */
async function exportJob(jobs: JobService, id: string, o: JobsActionOptions): Promise<void> {
  const owner = { owner: o.account };
  const job = await jobs.status(id, owner);
  const rows = BUILT_IN_JOB_TYPES.get(job.type)?.rows;
  const lines = rows
    ? rowLines(jobResults(jobs, id, o.account), rows.of)
    : mapLines(jobResults(jobs, id, o.account), (r) => `${JSON.stringify(r)}\n`);
  const out = o.out === '-' ? process.stdout : createWriteStream(o.out);
  let failed: unknown;
  out.on('error', (e) => {
    failed = e;
  });
  let count = 0;
  for await (const line of lines) {
    if (failed) throw failed;
    if (!out.write(line)) await once(out, 'drain');
    count++;
  }
  if (out !== process.stdout)
    await new Promise<void>((resolve, reject) =>
      (out as ReturnType<typeof createWriteStream>).end((e?: Error | null) => (e ? reject(e) : resolve())),
    );
  if (failed) throw failed;
  const what = rows?.noun ?? 'results';
  const note = job.failed ? ` (${job.failed.toLocaleString('en-US')} items failed)` : '';
  if (!o.quiet) console.error(`exported ${count.toLocaleString('en-US')} ${what} of job ${id} to ${o.out}${note}`);
}

/** The rows of each succeeded result, a JSON line each (a failed item has none: the job's `failed` counts it). */
async function* rowLines(
  results: AsyncIterable<JobResult>,
  of: (result: unknown) => readonly unknown[],
): AsyncGenerator<string> {
  for await (const r of results) if (r.success) for (const row of of(r.result)) yield `${JSON.stringify(row)}\n`;
}

async function* mapLines<T>(items: AsyncIterable<T>, line: (item: T) => string): AsyncGenerator<string> {
  for await (const item of items) yield line(item);
}
