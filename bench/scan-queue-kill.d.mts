/** Types of ./scan-queue-kill.mjs (a plain script, run without a build), for test/e2e/scan-queue.test.ts. */
export function writeInputs(dir: string, items: number, seed?: number): number;
export function prepare(dir: string, items: number): Promise<{ planted: number; reference: string; local_ms: number }>;
export interface KillScanResult {
  job: string;
  kills: number;
  restarts: number;
  killed: { at_ms: number; chunks_done: number; of: number }[];
  chunks: number;
  chunks_done: number;
  chunks_failed: number;
  chunks_handed_out_again: number;
  items_done: number;
  status: { job: string; state: string; items_done: number; items_total: number; hits: number };
  hits: number;
  duplicate_hit_lines: number;
  export_equals_local_scan: boolean;
  texts_left_after_export: number;
  enqueue_ms: number;
  scan_ms: number;
}
export function killScan(options: {
  url: string;
  dir: string;
  kills: number;
  chunkItems: number;
  lease: number;
  maintenance?: number;
  reference: string;
  seed?: number;
  pg: unknown;
  /** Milliseconds after a worker's start line before it is killed: [min, max]. @default [300, 2300] */
  killAfterMs?: [number, number];
  /** Stop (SIGSTOP) the second worker until the kills of the first are done. @default false */
  pauseOther?: boolean;
}): Promise<KillScanResult>;
