/**
 * A file store's log record (`length:u32 seq:u32 crc:u32 payload[length]`, payload = msgpack `{ ops: [...] }`; see
 * ./file.ts) framed as the chunks its bytes are made of. A put whose value is large (a job's catalogue of 100,000
 * works, 40 MB) is written from its own bytes: framed in one buffer, a record copied such a value three to four times
 * (into msgpack's growing buffer, out of it, into the record) in one step of the thread, about 0.1 s beside the CRC.
 * Concatenated, the chunks are byte for byte the one-buffer record ({@link frameRecord}), so the log is unchanged.
 */
import type { FileHandle } from 'node:fs/promises';
import { crc32 } from '../util/crc32.js';
import { arrayHeader, binHeader, type ShrinkingEncoder } from './encoding.js';
import { writeFully } from './fsutil.js';
import type { EncodedOp } from './memory.js';

/** Bytes of a record's header: length, seq, crc. */
export const RECORD_HEADER = 12;
/** A value of at least this many bytes is a chunk of its own, not copied into the record. */
const OWN_CHUNK_BYTES = 1 << 16;
const EMPTY = new Uint8Array(0);

const opObject = (op: EncodedOp) =>
  op.type === 'put' ? { type: 'put', key: op.key, value: op.value } : { type: 'delete', key: op.key };

/**
 * One record in one buffer: its header and payload.
 * @example frameRecord(1, [{ type: 'delete', key: 'a' }], encoder) // 12 header bytes, then msgpack { ops: [...] }
 */
export function frameRecord(seq: number, ops: readonly EncodedOp[], encoder: ShrinkingEncoder): Uint8Array {
  const payload = encoder.encode({ ops: ops.map(opObject) });
  const out = new Uint8Array(RECORD_HEADER + payload.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, payload.length, true);
  dv.setUint32(4, seq, true);
  out.set(payload, RECORD_HEADER);
  dv.setUint32(8, crc32(payload, crc32(out.subarray(0, 8))), true);
  return out;
}

/**
 * One record as its chunks in order (header first): a large value's bytes are a chunk of their own, never copied;
 * a record with no large value is one chunk, {@link frameRecord}'s.
 * @example const chunks = frameRecordChunks(7, [{ type: 'put', key: 'job/1', value: catalogue }], encoder)
 */
export function frameRecordChunks(seq: number, ops: readonly EncodedOp[], encoder: ShrinkingEncoder): Uint8Array[] {
  return frameLocatedRecord(seq, ops, encoder, Infinity).chunks;
}

/** A framed record: its chunks, and where each located value's bytes start (from the record's first byte). */
export interface LocatedRecord {
  readonly chunks: Uint8Array[];
  /** Per op: the offset of its value's bytes in the record, for the puts of values of `locateFrom` bytes or more. */
  readonly valueAt: ReadonlyArray<number | undefined>;
}

/**
 * {@link frameRecordChunks}, also telling where the values of at least `locateFrom` bytes lie in the record, so the
 * file store can read them back from its log instead of keeping them. Such an op is framed as msgpack frames it: its
 * map with an empty value (which ends with that value's bin header, 0xc4 0x00), less those two bytes, then the
 * value's own bin header and bytes. Pieces under {@link OWN_CHUNK_BYTES} are gathered into one chunk between large
 * values. Concatenated, the chunks are {@link frameRecord}'s bytes.
 * @example
 * const { chunks, valueAt } = frameLocatedRecord(7, [{ type: 'put', key: 'a', value }], encoder, 4096)
 * // value.length >= 4096: the bytes of chunks joined, from valueAt[0], are value's
 */
export function frameLocatedRecord(
  seq: number,
  ops: readonly EncodedOp[],
  encoder: ShrinkingEncoder,
  locateFrom: number,
): LocatedRecord {
  const located = (op: EncodedOp) => op.type === 'put' && op.value.length >= Math.min(locateFrom, OWN_CHUNK_BYTES);
  if (!ops.some(located)) return { chunks: [frameRecord(seq, ops, encoder)], valueAt: [] };
  const head = encoder.encode({ ops: [] }); // fixmap 1, "ops", then an empty array's header: replaced below
  const pieces: Uint8Array[] = [head.subarray(0, head.length - 1), arrayHeader(ops.length)];
  const valueAt: Array<number | undefined> = new Array(ops.length).fill(undefined);
  let at = RECORD_HEADER + pieces[0].length + pieces[1].length;
  ops.forEach((op, i) => {
    if (op.type === 'put' && located(op)) {
      const shell = encoder.encode({ type: 'put', key: op.key, value: EMPTY });
      const bin = binHeader(op.value.length);
      pieces.push(shell.subarray(0, shell.length - 2), bin, op.value);
      at += shell.length - 2 + bin.length;
      if (op.value.length >= locateFrom) valueAt[i] = at;
      at += op.value.length;
    } else {
      const bytes = encoder.encode(opObject(op));
      pieces.push(bytes);
      at += bytes.length;
    }
  });
  const payload = gather(pieces);
  const header = new Uint8Array(RECORD_HEADER);
  const dv = new DataView(header.buffer);
  dv.setUint32(0, at - RECORD_HEADER, true);
  dv.setUint32(4, seq, true);
  let crc = crc32(header.subarray(0, 8));
  for (const chunk of payload) crc = crc32(chunk, crc);
  dv.setUint32(8, crc, true);
  return { chunks: [header, ...payload], valueAt };
}

/** `pieces` with each run of pieces under {@link OWN_CHUNK_BYTES} copied into one chunk (one write, not one each). */
function gather(pieces: readonly Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let run: Uint8Array[] = [];
  let runBytes = 0;
  const close = () => {
    if (run.length === 1) out.push(run[0]);
    else if (run.length > 1) {
      const joined = new Uint8Array(runBytes);
      let p = 0;
      for (const piece of run) {
        joined.set(piece, p);
        p += piece.length;
      }
      out.push(joined);
    }
    run = [];
    runBytes = 0;
  };
  for (const piece of pieces) {
    if (piece.length >= OWN_CHUNK_BYTES) {
      close();
      out.push(piece);
    } else {
      run.push(piece);
      runBytes += piece.length;
    }
  }
  close();
  return out;
}

/**
 * Writes a record's chunks one after another from `position`; resolves to the bytes written.
 * @example size += await writeRecordChunks(log, frameRecordChunks(seq, ops, encoder), size)
 */
export async function writeRecordChunks(
  handle: FileHandle,
  chunks: readonly Uint8Array[],
  position: number,
): Promise<number> {
  let at = position;
  for (const chunk of chunks) {
    await writeFully(handle, chunk, at);
    at += chunk.length;
  }
  return at - position;
}
