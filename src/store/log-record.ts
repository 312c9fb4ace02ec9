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
  if (!ops.some((op) => op.type === 'put' && op.value.length >= OWN_CHUNK_BYTES))
    return [frameRecord(seq, ops, encoder)];
  const head = encoder.encode({ ops: [] }); // fixmap 1, "ops", then an empty array's header: replaced below
  const payload: Uint8Array[] = [head.subarray(0, head.length - 1), arrayHeader(ops.length)];
  for (const op of ops) {
    if (op.type === 'put' && op.value.length >= OWN_CHUNK_BYTES) {
      // the op with an empty value ends with that value's bin header (0xc4 0x00): the real header and bytes instead
      const shell = encoder.encode({ type: 'put', key: op.key, value: EMPTY });
      payload.push(shell.subarray(0, shell.length - 2), binHeader(op.value.length), op.value);
    } else payload.push(encoder.encode(opObject(op)));
  }
  const header = new Uint8Array(RECORD_HEADER);
  const dv = new DataView(header.buffer);
  dv.setUint32(
    0,
    payload.reduce((n, c) => n + c.length, 0),
    true,
  );
  dv.setUint32(4, seq, true);
  let crc = crc32(header.subarray(0, 8));
  for (const chunk of payload) crc = crc32(chunk, crc);
  dv.setUint32(8, crc, true);
  return [header, ...payload];
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
