/**
 * The store backend of the job model ({@link JobStore}: its leases and exactly-once completions), on any
 * {@link Store}: a job of many items is cut into chunks at submission; a claim, a renewal and a completion (the
 * chunk's results with it) are each one store transaction, so a job survives a restart. The leases are the store's:
 * one process holds them in the memory and file stores, and in the PostgreSQL store every process on the database
 * claims from the same jobs (its transactions are serialised across processes).
 *
 * Keys (ordered by string, numbers zero-padded):
 *  - `job/<id>` the job record;
 *  - `job-open/<created>/<id>` one per unfinished job, what runners scan for work;
 *  - `job-items/<id>/<chunk>` a chunk's items (a streamed job's: `{ first, items }`), kept until the chunk is done;
 *  - `job-lease/<id>/<chunk>` a claimed chunk's lease `{ token, until, attempts }`;
 *  - `job-result/<id>/<index>` one item's result;
 *  - `job-finished/<finished>/<id>` one per finished job, for the retention;
 *  - `job-by-account/<account>/<created, counted down>/<id>` one per job, its account's list, newest first.
 */
import { deleteAttached } from './attached.js';
import { JOB_REQUEST } from './request.js';
import { TrainprintError } from '../../errors.js';
import type { Store, Transaction } from '../../store/types.js';
import { readThrough } from '../../util/schema-check.js';
import { unrefTimer } from '../../util/timers.js';
import { newId, positiveInt } from '../../util/validate.js';
import type {
  ClaimWatch,
  JobClaim,
  JobError,
  JobInfo,
  JobList,
  JobResult,
  JobResultPage,
  JobState,
  JobStore,
  JobSubmission,
} from './types.js';

/**
 * Items per chunk: what a runner claims at once. Small, so that a crash repeats little and several processes share a
 * job of a few hundred items; large enough that the claims' transactions are a small part of the work.
 * @example createJobService({ store, chunkItems: JOB_CHUNK_ITEMS })
 */
export const JOB_CHUNK_ITEMS = 10;
/**
 * How long a finished job (done, failed or cancelled) and its results are kept: 7 days from when it finished.
 * @example if (now - job.finished > JOB_RETENTION_MS) await jobs.delete(job.id)
 */
export const JOB_RETENTION_MS = 7 * 86_400_000;
/**
 * How often a chunk is claimed before its items are given up on: a chunk whose runner died this many times (each
 * lease expired) gets a failed result for each item (`INTERNAL`), so one poisonous item cannot stop a job.
 */
export const JOB_MAX_ATTEMPTS = 3;
/** Open jobs a claim looks at, oldest first, for one it may take (past the jobs of accounts it skips). */
export const CLAIM_SCAN_JOBS = 1024;

/** `T` with its fields writable: a record is changed in place within its transaction. */
type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** The stored record of a job: what its account reads of it ({@link info} adds the ETA), its chunks and context. */
interface JobRecord extends Writable<Omit<JobInfo, 'eta_ms'>> {
  chunks: number;
  chunk_items: number;
  /** The next chunk never claimed. */
  next: number;
  context: Record<string, unknown>;
  /** A streamed submission still reading its input ({@link JobService.submitStream}): absent once sealed. */
  sealed?: false;
  /** Until when the submitter of an unsealed job holds it (ms): past it, the job reads `failed`. */
  submit_until?: number;
}

interface Lease {
  token: string;
  until: number;
  attempts: number;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const jobKey = (id: string) => `job/${id}`;
const openKey = (j: JobRecord) => `job-open/${pad(j.created, 15)}/${j.id}`;
const finishedKey = (j: JobRecord) => `job-finished/${pad(j.finished ?? 0, 15)}/${j.id}`;
const itemsKey = (id: string, chunk: number) => `job-items/${id}/${pad(chunk, 8)}`;
const leaseKey = (id: string, chunk: number) => `job-lease/${id}/${pad(chunk, 8)}`;
const resultKey = (id: string, index: number) => `job-result/${id}/${pad(index, 9)}`;
/** Created times counted down from this, so that an account's list reads newest first in key order. */
const LAST_MS = 999_999_999_999_999;
const accountPrefix = (account: string) => `job-by-account/${encodeURIComponent(account)}/`;
const accountKey = (j: JobRecord) => `${accountPrefix(j.account)}${pad(LAST_MS - j.created, 15)}/${j.id}`;
const FINISHED: ReadonlySet<JobState> = new Set(['done', 'failed', 'cancelled']);
/** Whether `j` is a streamed submission whose submitter stopped before sealing it (its lease expired). */
const abandoned = (j: JobRecord, now: number) =>
  j.sealed === false && (j.submit_until ?? 0) < now && !FINISHED.has(j.state);
const ABANDONED: JobError = { code: 'INTERNAL', message: 'the submission stopped before its input ended' };

/** The record of job `id`, if there is one. */
const recordOf = async (from: Pick<Store, 'get'>, id: string) => (await from.get(jobKey(id))) as JobRecord | undefined;
/** The record of job `id` if it is `owner`'s. */
async function ownedBy(from: Pick<Store, 'get'>, id: string, owner: string): Promise<JobRecord | undefined> {
  const j = await recordOf(from, id);
  return j?.account === owner ? j : undefined;
}

/** The claim's lease while it is the claim's (not claimed again by another runner, nor completed). */
async function heldLease(from: Pick<Store, 'get'>, claim: JobClaim): Promise<Lease | undefined> {
  const lease = (await from.get(leaseKey(claim.job.id, claim.chunk))) as Lease | undefined;
  return lease?.token === claim.token ? lease : undefined;
}

/** A chunk's items and its first item's index (a streamed job's chunks carry it). */
async function chunkOf(tx: Transaction, j: JobRecord, chunk: number): Promise<{ first: number; items: unknown[] }> {
  const v = (await tx.get(itemsKey(j.id, chunk))) as unknown[] | { first: number; items: unknown[] } | undefined;
  return Array.isArray(v) || !v ? { first: chunk * j.chunk_items, items: v ?? [] } : v;
}

/**
 * Options of `JobService.submitStream`, which stores a job whose items are read as they come: unsealed, a chunk per
 * transaction (runners start on the first), sealed at the end. The submitter's lease is renewed while it reads: a job
 * whose submitter died reads `failed` once it expired, and never runs. A submission cut short deletes the job
 * (INVALID_INPUT for no items; CONFLICT when the job was cancelled or deleted meanwhile).
 * @example await jobs.submitStream({ account: '', type: 'scan' }, readDocuments(files), { chunkBytes: 1 << 20 })
 */
export interface StreamSubmitOptions {
  /** JSON bytes of items a chunk holds at most (a larger item is a chunk of its own). @default 4 MiB */
  readonly chunkBytes?: number;
  /** How long the job waits for its submitter (ms) before it reads `failed`; renewed every third. @default 60_000 */
  readonly leaseMs?: number;
  /** Stops reading the input: the job is deleted and the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Told of the job once it exists and after each chunk stored. */
  readonly onChunk?: (job: JobInfo) => void;
}

/** The public view of a record at `now`. */
function info(j: JobRecord, now: number): JobInfo {
  if (abandoned(j, now)) return info({ ...j, state: 'failed', finished: j.submit_until ?? now, error: ABANDONED }, now);
  const running = j.state === 'running' && j.started !== null && j.done > 0;
  const eta = running ? Math.round(((now - (j.started as number)) / j.done) * (j.total - j.done)) : null;
  return {
    id: j.id,
    account: j.account,
    type: j.type,
    state: j.state,
    total: j.total,
    done: j.done,
    failed: j.failed,
    created: j.created,
    started: j.started,
    finished: j.finished,
    eta_ms: eta,
    ...(j.error ? { error: j.error } : {}),
  };
}

/**
 * Options of {@link createJobService}.
 * @example createJobService({ store: engine.store, clock: Date.now })
 */
export interface JobServiceOptions {
  readonly store: Store;
  /** ms since the epoch. @default Date.now */
  readonly clock?: () => number;
  /** Items per chunk. @default JOB_CHUNK_ITEMS (10) */
  readonly chunkItems?: number;
  /** How long finished jobs are kept (ms). @default JOB_RETENTION_MS (7 days) */
  readonly retentionMs?: number;
}

/**
 * The jobs of a store.
 * @example
 * const jobs = createJobService({ store: engine.store })
 * const job = await jobs.submit({ account: 'acme', type: 'my-type', items: [{ text: '…' }] })
 */
export function createJobService(options: JobServiceOptions): JobService {
  return new JobService(options);
}

/** See {@link createJobService}. */
export class JobService implements JobStore {
  readonly #store: Store;
  readonly #clock: () => number;
  readonly #chunkItems: number;
  /** How long finished jobs are kept (ms). */
  readonly retentionMs: number;

  constructor(options: JobServiceOptions) {
    this.#store = options.store;
    this.#clock = options.clock ?? Date.now;
    this.#chunkItems = positiveInt('chunkItems', options.chunkItems, JOB_CHUNK_ITEMS, 10_000);
    const r = options.retentionMs ?? JOB_RETENTION_MS;
    if (!(typeof r === 'number' && r > 0))
      throw new TrainprintError('INVALID_OPTIONS', 'retentionMs must be a positive number');
    this.retentionMs = r;
  }

  /** See {@link JobStore.submit}. */
  async submit(s: JobSubmission): Promise<JobInfo> {
    // read as every door reads a submission: a type's name, at least one item (its type's runner checks the rest)
    const { items } = readThrough(JOB_REQUEST, { type: s.type, items: s.items }, {});
    const job = this.#record(s, this.#clock());
    const n = job.chunk_items;
    job.total = items.length;
    job.chunks = Math.ceil(items.length / n);
    // the items first, the job and its open marker last and together: a runner never sees a job without its items
    const ops: Array<{ type: 'put'; key: string; value: unknown }> = [];
    for (let c = 0; c < job.chunks; c++)
      ops.push({ type: 'put', key: itemsKey(job.id, c), value: items.slice(c * n, (c + 1) * n) });
    for (let i = 0; i < ops.length; i += 500) await this.#store.batch(ops.slice(i, i + 500));
    await this.#store.batch(this.#entries(job));
    return info(job, job.created);
  }

  /** A job whose items are read as they come: see {@link StreamSubmitOptions}. @example jobs.submitStream(s, lines) */
  async submitStream(
    s: Omit<JobSubmission, 'items'>,
    items: Iterable<unknown> | AsyncIterable<unknown>,
    options: StreamSubmitOptions = {},
  ): Promise<JobInfo> {
    const leaseMs = options.leaseMs ?? 60_000;
    const maxBytes = options.chunkBytes ?? 4 * 1024 * 1024;
    // its type as a submission's (its items come later: at least one, checked when it is sealed)
    JOB_REQUEST.rules({ type: s.type, items: [] }, {});
    const job = this.#record(s, this.#clock());
    Object.assign(job, { sealed: false, submit_until: job.created + leaseMs });
    await this.#store.batch(this.#entries(job));
    options.onChunk?.(info(job, job.created));
    const renew = unrefTimer(setInterval(() => void this.#append(job.id, null, leaseMs).catch(() => {}), leaseMs / 3));
    try {
      let chunk: unknown[] = [];
      let bytes = 0;
      const flush = async () => {
        const j = await this.#append(job.id, chunk, leaseMs);
        [chunk, bytes] = [[], 0];
        options.onChunk?.(j);
      };
      for await (const item of items) {
        options.signal?.throwIfAborted();
        const size = JSON.stringify(item ?? null).length;
        if (chunk.length > 0 && (chunk.length >= job.chunk_items || bytes + size > maxBytes)) await flush();
        chunk.push(item);
        bytes += size;
      }
      if (chunk.length > 0) await flush();
      return await this.#append(job.id, null, 0);
    } catch (error) {
      await this.purge(job.id).catch(() => false);
      throw error;
    } finally {
      clearInterval(renew);
    }
  }

  /** Appends `items` (null: renews the lease; `leaseMs` 0: seals). */
  async #append(id: string, items: unknown[] | null, leaseMs: number): Promise<JobInfo> {
    const now = this.#clock();
    return this.#store.transaction(async (tx) => {
      const j = await recordOf(tx, id);
      if (j?.sealed !== false || abandoned(j, now) || FINISHED.has(j.state))
        throw new TrainprintError('CONFLICT', `job ${id} ended while it was submitted`);
      if (items) {
        tx.put(itemsKey(id, j.chunks++), { first: j.total, items });
        j.total += items.length;
      }
      j.submit_until = now + leaseMs;
      if (leaseMs === 0) {
        if (j.total === 0) throw new TrainprintError('INVALID_INPUT', 'items: a job needs at least one item');
        delete j.sealed;
        delete j.submit_until;
        if (j.done >= j.total) this.#finish(tx, j, 'done', now); // the runners were done before the seal
      }
      tx.put(jobKey(id), j);
      return info(j, now);
    });
  }

  /** A new job's record, no items counted. */
  #record(s: Omit<JobSubmission, 'items'>, now: number): JobRecord {
    // the type's chunk size (one item for a long one: an extraction runs across time slices), else the store's
    const n = positiveInt('chunkItems', s.chunkItems, this.#chunkItems, 10_000);
    const [account, type, context, id] = [s.account, s.type, { ...(s.context ?? {}) }, newId('job_')];
    const counts = { total: 0, done: 0, failed: 0, chunks: 0, next: 0 };
    return {
      id,
      account,
      type,
      state: 'queued',
      ...counts,
      created: now,
      started: null,
      finished: null,
      chunk_items: n,
      context,
    };
  }

  /** Its record and index entries. */
  #entries(j: JobRecord): Array<{ type: 'put'; key: string; value: unknown }> {
    return [
      { type: 'put', key: jobKey(j.id), value: j },
      { type: 'put', key: openKey(j), value: j.id },
      { type: 'put', key: accountKey(j), value: j.id },
    ];
  }

  /** Ends `j` as `state`. */
  #finish(tx: Transaction, j: JobRecord, state: JobState, now: number, error?: JobError): void {
    tx.delete(openKey(j));
    if (state !== 'done') for (let c = 0; c < j.chunks; c++) tx.delete(itemsKey(j.id, c));
    j.next = j.chunks;
    j.state = state;
    j.finished = now;
    if (error) j.error = error;
    tx.put(jobKey(j.id), j);
    tx.put(finishedKey(j), j.id);
  }

  /** The owner's job's record. @throws NOT_FOUND */
  async #own(id: string, owner: string, tx?: Transaction): Promise<JobRecord> {
    const j = await ownedBy(tx ?? this.#store, id, owner);
    if (!j)
      throw new TrainprintError(
        'NOT_FOUND',
        `no job ${id} (finished jobs are kept ${this.retentionMs / 86_400_000} days)`,
      );
    return j;
  }

  /** See {@link JobStore.list}. */
  async list(options: { owner: string; after?: string; limit?: number }): Promise<JobList> {
    const limit = Math.max(1, Math.min(options.limit ?? 20, 100));
    let after: string | undefined;
    if (options.after !== undefined) {
      const j = await ownedBy(this.#store, options.after, options.owner);
      if (!j)
        throw new TrainprintError('INVALID_INPUT', `after: no job ${options.after} of the account`, {
          cause: { location: 'query', field: 'after', reason: 'is no job of the account' },
        });
      after = accountKey(j);
    }
    const rows = await this.#store.scan(accountPrefix(options.owner), { after, limit: limit + 1 });
    const now = this.#clock();
    const jobs: JobInfo[] = [];
    for (const [, id] of rows.slice(0, limit)) {
      const j = await recordOf(this.#store, id as string);
      if (j) jobs.push(info(j, now)); // (an entry a purge that crashed left has no record)
    }
    return { jobs, next: rows.length > limit ? (rows[limit - 1][1] as string) : null };
  }

  /** See {@link JobStore.status}. */
  async status(id: string, options: { owner: string }): Promise<JobInfo> {
    return info(await this.#own(id, options.owner), this.#clock());
  }

  /** See {@link JobStore.results}. */
  async results(id: string, options: { owner: string; after?: number; limit?: number }): Promise<JobResultPage> {
    const job = await this.#own(id, options.owner);
    const after = options.after ?? -1;
    const limit = Math.max(1, Math.min(options.limit ?? 100, 10_000));
    const rows = await this.#store.scan(`job-result/${id}/`, {
      after: after < 0 ? undefined : resultKey(id, after),
      limit,
    });
    const finished = FINISHED.has(job.state);
    const results: JobResult[] = [];
    let expected = after + 1;
    for (const [, v] of rows) {
      const r = v as JobResult;
      // while the job runs, a page stops before an item still without its result (reading on never skips it)
      if (!finished && r.index !== expected) break;
      results.push(r);
      expected = r.index + 1;
    }
    const last = results.length ? results[results.length - 1].index : after;
    const more = !finished || rows.length === limit;
    return { results, next: more ? last : null };
  }

  /** See {@link JobStore.cancel}. */
  async cancel(id: string, options: { owner: string }): Promise<{ job: JobInfo; cancelled: boolean }> {
    const now = this.#clock();
    return this.#store.transaction(async (tx) => {
      const j = await this.#own(id, options.owner, tx);
      const cancelled = !FINISHED.has(j.state) && !abandoned(j, now);
      if (cancelled) this.#finish(tx, j, 'cancelled', now);
      return { job: info(j, now), cancelled };
    });
  }

  /** See {@link JobStore.delete}. */
  async delete(id: string, options: { owner: string }): Promise<boolean> {
    return (await ownedBy(this.#store, id, options.owner)) ? this.purge(id) : false;
  }

  /** Deletes a job and all it stored, whoever its owner. */
  async purge(id: string): Promise<boolean> {
    const j = await recordOf(this.#store, id);
    if (!j) return false;
    // the record first: the job is gone for its account at once, and a crash leaves only unreachable keys, which
    // the next purge of the same id (the retention's index entry stays until the end) removes
    await this.#store.delete(jobKey(id));
    for (const prefix of [`job-result/${id}/`, `job-items/${id}/`, `job-lease/${id}/`]) {
      for (;;) {
        const rows = await this.#store.scan(prefix, { limit: 1000 });
        if (rows.length === 0) break;
        await this.#store.batch(rows.map(([key]) => ({ type: 'delete' as const, key })));
      }
    }
    await deleteAttached(this.#store, id); // what its items kept elsewhere: their journals of model calls
    await this.#store.batch([
      { type: 'delete', key: openKey(j) },
      { type: 'delete', key: finishedKey(j) },
      { type: 'delete', key: accountKey(j) },
    ]);
    return true;
  }

  /** See {@link JobStore.expire}. */
  async expire(limit = 100): Promise<number> {
    const cutoff = this.#clock() - this.retentionMs;
    const rows = await this.#store.scan('job-finished/', { limit });
    let n = 0;
    for (const [key, id] of rows) {
      const finished = Number(key.slice('job-finished/'.length, 'job-finished/'.length + 15));
      if (finished > cutoff) break;
      if (!(await this.purge(id as string))) await this.#store.delete(key);
      n++;
    }
    return n;
  }

  /** See {@link JobStore.claim}: one store transaction over up to {@link CLAIM_SCAN_JOBS} open jobs. */
  async claim(leaseMs: number, options: Parameters<JobStore['claim']>[1] = {}): Promise<JobClaim | null> {
    // most polls find nothing: a plain read first, no transaction
    if ((await this.#store.scan('job-open/', { limit: 1 })).length === 0) return null;
    const now = this.#clock();
    return this.#store.transaction(async (tx) => {
      let after: string | undefined;
      for (let seen = 0; seen < CLAIM_SCAN_JOBS; ) {
        const page = await tx.scan('job-open/', { after, limit: 64 });
        if (page.length === 0) break;
        after = page[page.length - 1][0];
        seen += page.length;
        for (const [openAt, id] of page) {
          const j = await recordOf(tx, id as string);
          if (!j || FINISHED.has(j.state)) {
            tx.delete(openAt); // left by a purge that crashed
            continue;
          }
          if (abandoned(j, now)) {
            this.#finish(tx, j, 'failed', now, ABANDONED);
            continue;
          }
          if (options.skip?.(j.account, j.id, j.type)) continue;
          const claim = await this.#claimIn(tx, j, leaseMs, now);
          if (claim) return claim;
        }
      }
      return null;
    });
  }

  /** A chunk of `j`: one given back or expired first, else a new one. */
  async #claimIn(tx: Transaction, j: JobRecord, leaseMs: number, now: number): Promise<JobClaim | null> {
    let chunk = -1;
    let attempts = 0;
    // a chunk given back or whose runner died first (earlier items: the results read on sooner), then a new one
    for (const [key, v] of await tx.scan(`job-lease/${j.id}/`)) {
      const old = v as Lease;
      if (old.until > now) continue;
      const c = Number(key.slice(key.lastIndexOf('/') + 1));
      if (old.attempts >= JOB_MAX_ATTEMPTS) {
        await this.#abandon(tx, j, c, now);
        continue;
      }
      chunk = c;
      attempts = old.attempts;
      break;
    }
    if (chunk < 0 && j.next < j.chunks && !FINISHED.has(j.state)) chunk = j.next++;
    if (chunk < 0) return null; // every chunk of this job is held by a live runner
    const lease: Lease = { token: newId(''), until: now + leaseMs, attempts: attempts + 1 };
    if (j.state === 'queued') {
      j.state = 'running';
      j.started = now;
    }
    tx.put(jobKey(j.id), j);
    tx.put(leaseKey(j.id, chunk), lease);
    return { job: info(j, now), context: j.context, chunk, ...(await chunkOf(tx, j, chunk)), token: lease.token };
  }

  /** See {@link JobStore.watch}. */
  async watch(claim: JobClaim): Promise<ClaimWatch> {
    const j = await recordOf(this.#store, claim.job.id);
    if (!j || FINISHED.has(j.state)) return 'finished';
    return (await heldLease(this.#store, claim)) ? 'held' : 'lost';
  }

  /** See {@link JobStore.renew}. */
  async renew(claim: JobClaim, leaseMs: number): Promise<boolean> {
    const now = this.#clock();
    return this.#store.transaction(async (tx) => {
      const lease = await heldLease(tx, claim);
      if (lease) tx.put(leaseKey(claim.job.id, claim.chunk), { ...lease, until: now + leaseMs });
      return lease !== undefined;
    });
  }

  /** See {@link JobStore.release}: not counted as an attempt. */
  async release(claim: JobClaim): Promise<void> {
    await this.#store.transaction(async (tx) => {
      const lease = await heldLease(tx, claim);
      if (lease)
        tx.put(leaseKey(claim.job.id, claim.chunk), { token: '', until: 0, attempts: Math.max(0, lease.attempts - 1) });
    });
  }

  /** See {@link JobStore.complete}: one transaction. */
  async complete(claim: JobClaim, results: readonly JobResult[]): Promise<boolean> {
    const now = this.#clock();
    return this.#store.transaction(async (tx) => {
      const j = (await heldLease(tx, claim)) && (await recordOf(tx, claim.job.id));
      if (!j) return false; // the lease lost, or the job deleted meanwhile
      if (FINISHED.has(j.state)) {
        // cancelled (or failed) while the chunk ran: the job stays as that answer gave it, its counts and results
        // then — the chunk's items ran after it or were stopped, and adding them would change a finished job
        tx.delete(leaseKey(j.id, claim.chunk));
        return false;
      }
      this.#finishChunk(tx, j, claim.chunk, results, now);
      return true;
    });
  }

  /** A chunk's results written, its items and lease deleted. */
  #finishChunk(tx: Transaction, j: JobRecord, chunk: number, results: readonly JobResult[], now: number): void {
    for (const r of results) tx.put(resultKey(j.id, r.index), r);
    tx.delete(itemsKey(j.id, chunk));
    tx.delete(leaseKey(j.id, chunk));
    j.done += results.length;
    j.failed += results.filter((r) => !r.success).length;
    if (j.done >= j.total && j.sealed !== false && !FINISHED.has(j.state)) this.#finish(tx, j, 'done', now);
    else tx.put(jobKey(j.id), j);
  }

  /** A chunk whose runners died {@link JOB_MAX_ATTEMPTS} times: each item gets a failed result. */
  async #abandon(tx: Transaction, j: JobRecord, chunk: number, now: number): Promise<void> {
    const { first, items } = await chunkOf(tx, j, chunk);
    const message = `the item's chunk was claimed ${JOB_MAX_ATTEMPTS} times and its runner stopped each time`;
    const error: JobError = { code: 'INTERNAL', message };
    const failed = items.map((_, i): JobResult => ({ index: first + i, success: false, error }));
    this.#finishChunk(tx, j, chunk, failed, now);
  }

  /** See {@link JobStore.fail}. */
  async fail(claim: JobClaim, error: JobError): Promise<void> {
    const now = this.#clock();
    await this.#store.transaction(async (tx) => {
      const j = await recordOf(tx, claim.job.id);
      if (!j || FINISHED.has(j.state)) return;
      tx.delete(leaseKey(j.id, claim.chunk));
      this.#finish(tx, j, 'failed', now, error);
    });
  }
}
