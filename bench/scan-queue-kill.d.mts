/** Types of ./scan-queue-kill.mjs (a plain script, run without a build), for test/e2e/scan-queue.test.ts. */
export function writeInputs(dir: string, items: number, seed?: number): number;
export function prepare(dir: string, items: number): Promise<{ planted: number; reference: string; local_ms: number }>;
export interface KillScanResult {
  job: string;
  kills: number;
  restarts: number;
  killed: { at_ms: number; items_done: number; of: number }[];
  kills_mid_job: number;
  items_done: number;
  items_failed: number;
  /** `trainprint jobs status --json` at the end. */
  status: { id: string; type: string; state: string; total: number; done: number; failed: number };
  hits: number;
  duplicate_hit_lines: number;
  export_equals_local_scan: boolean;
  chunk_items_left: number;
  enqueue_ms: number;
  scan_ms: number;
}
export function killScan(options: {
  url: string;
  dir: string;
  kills: number;
  chunkItems: number;
  lease: number;
  reference: string;
  seed?: number;
  /** Milliseconds after a worker's start line before it is killed: [min, max]. @default [300, 2300] */
  killAfterMs?: [number, number];
  /** Stop (SIGSTOP) the second worker until the kills of the first are done. @default false */
  pauseOther?: boolean;
}): Promise<KillScanResult>;
