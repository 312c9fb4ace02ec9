/**
 * The worker threads of `scanFiles` with `threads` > 1: each loads the scan's datasets once (./worker.ts), then
 * takes batches of items, at most {@link PER_WORKER} at a time, oldest first. Replies are matched to batches by
 * sequence number; the caller takes them in the order it sent the batches, so the output is in input order for any
 * number of threads. A worker that fails to start or dies fails every batch: never a hang.
 */
import { Worker } from 'node:worker_threads';
import { MESSAGES, TrainprintError, type ErrorCode, type ScanItem } from '../../library.js';
import type { ScanBatchReply, ScanWorkerData, ScanWorkerStatus } from './protocol.js';

/** Batches a worker holds at a time: the one it works on and the next, so it never waits for a message. */
const PER_WORKER = 2;

type Done = Exclude<ScanBatchReply, { error: unknown }>;

interface Job {
  readonly seq: number;
  readonly items: readonly ScanItem[];
  readonly resolve: (reply: Done) => void;
  readonly reject: (error: Error) => void;
}

const errorOf = (e: { code: string; message: string }): TrainprintError =>
  new TrainprintError((Object.hasOwn(MESSAGES, e.code) ? e.code : 'INTERNAL') as ErrorCode, e.message || undefined);

/** Worker threads and the batches waiting for them. */
export class ScanPool {
  private readonly workers: Array<{ worker: Worker; ready: boolean; held: Map<number, Job> }> = [];
  private readonly waiting: Job[] = [];
  private failed: Error | null = null;
  private seq = 0;
  private readyCount = 0;
  private onReady: { resolve: () => void; reject: (e: Error) => void } | null = null;
  /** Resolves once every worker has loaded the datasets; rejects when one could not. */
  readonly ready: Promise<void>;

  /**
   * `threads` workers of `url` (dist/scan-worker.js beside dist/node.js), each with `data`.
   * @example const pool = new ScanPool(new URL('./scan-worker.js', import.meta.url), 2, data)
   */
  constructor(url: URL, threads: number, data: ScanWorkerData) {
    this.ready = new Promise((resolve, reject) => {
      this.onReady = { resolve, reject };
    });
    this.ready.catch(() => undefined); // awaited by the caller; a failure also fails the batches
    for (let k = 0; k < threads; k++) {
      const worker = new Worker(url, { workerData: data });
      const w = { worker, ready: false, held: new Map<number, Job>() };
      this.workers.push(w);
      worker.on('message', (m: ScanWorkerStatus | ScanBatchReply) => {
        if ('ready' in m) {
          w.ready = true;
          if (++this.readyCount === threads) this.onReady?.resolve();
          this.pump();
        } else if ('failed' in m) this.fail(errorOf(m.failed));
        else {
          const job = w.held.get(m.seq);
          if (!job) return;
          w.held.delete(m.seq);
          if ('error' in m) job.reject(errorOf(m.error));
          else job.resolve(m);
          this.pump();
        }
      });
      worker.on('error', (e) => this.fail(e instanceof Error ? e : new Error(String(e))));
      worker.on('exit', (code) => {
        if (this.workers.length > 0)
          this.fail(new TrainprintError('INTERNAL', `a scan thread stopped (exit code ${code})`));
      });
    }
  }

  /**
   * Scans a batch on the next free worker; resolves to its lines and counts.
   * @example const reply = await pool.run(items)
   */
  run(items: readonly ScanItem[]): Promise<Done> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting.push({ seq: this.seq++, items, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.waiting.length > 0) {
      let best: (typeof this.workers)[number] | null = null;
      for (const w of this.workers)
        if (w.ready && w.held.size < PER_WORKER && (!best || w.held.size < best.held.size)) best = w;
      if (!best) return;
      const job = this.waiting.shift()!;
      best.held.set(job.seq, job);
      best.worker.postMessage({ seq: job.seq, items: job.items });
    }
  }

  private fail(e: Error): void {
    if (this.failed) return;
    this.failed = e;
    this.onReady?.reject(e);
    for (const job of this.waiting.splice(0)) job.reject(e);
    for (const w of this.workers) {
      for (const job of w.held.values()) job.reject(e);
      w.held.clear();
    }
  }

  /** Stops the workers. */
  async close(): Promise<void> {
    const workers = this.workers.splice(0);
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }
}
