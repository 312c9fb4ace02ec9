/**
 * The checkpoint of a scan to a file (`trainprint scan --resume`): beside the output (`HITS.jsonl.checkpoint`), how
 * many input items are done and how long the output was when they were. The output is written first and the
 * checkpoint after it (both synced), each checkpoint replacing the last by a rename, so the checkpoint never counts
 * more than the output holds: a resume cuts the output back to the checkpoint's length and skips its items, and
 * whatever was written after it — lines of items the checkpoint does not count — is written again, once.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { TrainprintError } from '../../library.js';

/** The checkpoint's format version. */
const VERSION = 1;

/** What a checkpoint says. */
export interface ScanCheckpoint {
  readonly version: number;
  /** Input items done (their hits all in the output's first `bytes` bytes). */
  readonly items: number;
  /** Hits among them. */
  readonly hits: number;
  /** Items among them not searched, under the scan's minWords (0 in a checkpoint written before it was kept). */
  readonly skipped?: number;
  /** Bytes of the output at that point. */
  readonly bytes: number;
  /** What the scan was: inputs, datasets and options (a resume must be the same scan). */
  readonly scan: ScanIdentity;
}

/** What makes two scans the same one (a resume of another scan is refused). */
export interface ScanIdentity {
  readonly inputs: ReadonlyArray<{ readonly path: string; readonly size: number }>;
  readonly datasets: readonly string[];
  readonly minWords: number;
  readonly paraphrase: boolean;
  readonly textField: string;
  readonly idField: string;
}

/**
 * The checkpoint file of an output path.
 * @example checkpointPath('hits.jsonl') // 'hits.jsonl.checkpoint'
 */
export const checkpointPath = (out: string): string => `${out}.checkpoint`;

/**
 * Writes a checkpoint: to a temporary file, synced, then renamed over the last one.
 * @example writeCheckpoint('hits.jsonl.checkpoint', { items: 10, hits: 2, skipped: 1, bytes: 480, scan })
 */
export function writeCheckpoint(path: string, c: Omit<ScanCheckpoint, 'version'>): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, `${JSON.stringify({ version: VERSION, ...c })}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/**
 * The checkpoint at `path`, or null when there is none.
 * @throws INVALID_INPUT when it cannot be read or is not a checkpoint of this version
 * @example const c = readCheckpoint('hits.jsonl.checkpoint')
 */
export function readCheckpoint(path: string): ScanCheckpoint | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return null;
    throw new TrainprintError('INVALID_INPUT', `${path}: cannot read the checkpoint`, { cause: e });
  }
  let c: ScanCheckpoint;
  try {
    c = JSON.parse(text) as ScanCheckpoint;
  } catch (e) {
    throw new TrainprintError('INVALID_INPUT', `${path}: not a scan checkpoint`, { cause: e });
  }
  const count = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  const counts = count(c?.items) && count(c?.bytes) && count(c?.hits) && (c?.skipped === undefined || count(c.skipped));
  if (c?.version !== VERSION || !counts || typeof c.scan !== 'object')
    throw new TrainprintError('INVALID_INPUT', `${path}: not a scan checkpoint of version ${VERSION}`);
  return c;
}

/**
 * Whether a checkpoint's scan is `scan` (same inputs with the same sizes, datasets and options).
 * @example sameScan(c.scan, identity) // true
 */
export function sameScan(a: ScanIdentity, b: ScanIdentity): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
