/**
 * One batch of a parallel `buildDatasetFile`, done by whichever thread takes it: a worker thread
 * (./build-worker.ts), or the main thread while the workers are still starting (./build-pool.ts).
 * A batch is texts the main thread read, or a byte range of a plain JSON Lines file to read, parse
 * (./jsonl-ranges.ts) and fingerprint; the reply carries the fingerprints as a few flat arrays, so
 * that it crosses threads as transferred buffers.
 */
import { isTrainprintError, type DatasetFingerprinter, type FingerprintBatch } from '../library.js';
import { RangeLineError, readJsonlRange, type JsonlRange, type RangeDocuments } from './jsonl-ranges.js';
import type { RecordFields } from './read-documents.js';

/** What a batch is: texts, or a range of a JSON Lines file with the fields to read it with. */
export type BuildJob =
  | { readonly texts: readonly string[] }
  | { readonly range: JsonlRange; readonly fields: RecordFields };

/** What went wrong with a batch. */
export interface BuildReplyError {
  readonly code: string;
  readonly detail: string;
  /** The failing document in the batch, or −1. */
  readonly index: number;
  /** The failing line of a range, counted from its first line, or −1. */
  readonly line: number;
  /** The core failed: the thread is not given more batches. Otherwise it goes on with its next one. */
  readonly fatal: boolean;
}

/** A batch done: its fingerprints (and for a range, its documents), or its error. */
export interface BuildReply {
  readonly seq: number;
  readonly batch?: FingerprintBatch;
  readonly documents?: RangeDocuments;
  readonly error?: BuildReplyError;
}

/**
 * The reply of a batch that failed with `e`; with the range's ids and lines (not its texts) when
 * they were read, to name the failing document.
 * @example failedReply(7, new Error('boom'), true) // { seq: 7, error: { code: 'INTERNAL', … fatal: true } }
 */
export function failedReply(seq: number, e: unknown, fatal: boolean, documents?: RangeDocuments): BuildReply {
  const index = (e as { index?: unknown })?.index;
  return {
    seq,
    error: {
      // a line that is not a document, or a file that cannot be read: the input's fault
      code: isTrainprintError(e) ? e.code : fatal ? 'INTERNAL' : 'INVALID_INPUT',
      detail: isTrainprintError(e) ? (e.detail ?? e.message) : e instanceof Error ? e.message : String(e),
      index: typeof index === 'number' ? index : -1,
      line: e instanceof RangeLineError ? e.line : -1,
      fatal,
    },
    ...(documents ? { documents: { ...documents, texts: [] } } : {}),
  };
}

/**
 * Do batch `seq` with `fingerprinter` (sync): read the range if it is one, fingerprint the texts.
 * Never throws: an error is the reply's (fatal when the core failed). `transfer` lists the reply's
 * buffers, to post it without copying them.
 * @example const { reply, transfer } = runBuildJob(fingerprinter, 0, { texts: ['Call me Ishmael.'] })
 */
export function runBuildJob(
  fingerprinter: DatasetFingerprinter,
  seq: number,
  job: BuildJob,
): { reply: BuildReply; transfer: ArrayBuffer[] } {
  let documents: RangeDocuments | undefined;
  if ('range' in job) {
    try {
      documents = readJsonlRange(job.range, job.fields);
    } catch (e) {
      const code = (e as { code?: unknown })?.code;
      // An unreadable file is the input's fault, reported like the main thread's reader does.
      const unreadable = typeof code === 'string' && !(e instanceof RangeLineError);
      return {
        reply: failedReply(seq, unreadable ? new Error(`cannot read the file (${code})`) : e, false),
        transfer: [],
      };
    }
  }
  let batch: FingerprintBatch;
  try {
    batch = fingerprinter.fingerprint(documents ? documents.texts : (job as { texts: readonly string[] }).texts);
  } catch (e) {
    return { reply: failedReply(seq, e, true, documents), transfer: [] };
  }
  const transfer = [batch.offsets, batch.tokens, batch.bytes, batch.hashes, batch.starts, batch.ends, batch.minhash]
    .filter((a) => a !== null)
    .map((a) => a.buffer as ArrayBuffer);
  if (documents) transfer.push(documents.lines.buffer as ArrayBuffer);
  return { reply: { seq, batch, ...(documents ? { documents } : {}) }, transfer };
}
