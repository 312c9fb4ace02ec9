/**
 * The durable store: a directory holding an append-only log, a periodic snapshot, a manifest and a
 * lock file. Node-only (node:fs, node:os, node:path) — exported from `trainprint/node`, never from
 * the browser-safe entry.
 *
 * Files in the directory:
 *
 * - `store.log` — a 4096-byte header, then records. The header: `"TPLG" version:u32 generation:u32
 *   crc:u32` (little-endian; crc = CRC-32 of the first 12 bytes), then two durable-point slots at
 *   bytes 16 and 36, each `stamp:u32 records:u32 length:u64 crc:u32` (crc = CRC-32 of its first 16
 *   bytes), then zeros. A slot says "the first `records` records, ending at byte `length`, were
 *   acknowledged as durable"; the intact slot with the higher stamp counts. Slots are written in
 *   turn (stamp parity), so a torn slot write leaves the other one. The header fills a page of its
 *   own, so rewriting a slot never rewrites record bytes. Records:
 *   `length:u32 seq:u32 crc:u32 payload[length]`, where `seq` counts 1, 2, 3… within the log,
 *   `crc` = CRC-32 of the 8 bytes `length seq` followed by the payload, and the payload is msgpack
 *   `{ ops: [{ type: 'put', key, value: bin } | { type: 'delete', key }] }` with each value kept
 *   in its encoded form (bin), so replay hands the index the very bytes it stored. One record per
 *   group commit: all the writes acknowledged by one fsync, applied all or nothing.
 * - `snapshot` — `"TPSN" version:u32 generation:u32 length:u32 crc:u32 payload[length]`, crc =
 *   CRC-32 of the first 16 bytes followed by the payload, payload = msgpack
 *   `{ entries: [[key, bin], …] }` in key order: the whole state when log `generation` began.
 * - `MANIFEST` — `"TPMF" version:u32 generation:u32 crc:u32`: that a store lives here, and its
 *   generation as of the last compaction. Replaced atomically when the store is created and after
 *   each compaction; it is what tells a deleted log from a new, empty store.
 * - `LOCK` — JSON `{ pid, hostname, started, bootId, token }`, created with O_EXCL.
 * - `*.tmp` — a compaction or file creation in progress; removed on open.
 *
 * Durability: every acknowledged write has been appended and `fdatasync`ed before its promise
 * resolves (fdatasync also flushes the file size, which an append needs to be readable). The
 * durable point moves with the same fdatasync: an append rewrites a header slot to claim the
 * records acknowledged before it (already flushed by the previous fdatasync, so the claim can never
 * get ahead of the data), with no extra fsync — every few milliseconds or 64 records under load,
 * since one per append would cost throughput. When writes stop, an idle timer (100 ms) and
 * `close()` claim the rest. So after a crash at most the last few milliseconds of writes lie after
 * the durable point, where only a damaged last record passes for a torn write. Files are replaced
 * only by write tmp → fsync → rename → fsync the directory. That protects acknowledged writes
 * against the process crashing or being killed, and against an OS crash or power loss on a disk
 * that honours flushes. It does NOT protect against a disk or virtual disk that acknowledges
 * flushes it has not done (some consumer SSDs, `nobarrier` mounts, VM caches configured as
 * unsafe), or against two hosts sharing the directory over a network filesystem (the lock is only
 * checked on this host). Damage to the files is detected, never repaired.
 *
 * Recovery on open: read the manifest, the snapshot (if any) and the log; decide; only then write. The snapshot and
 * the log are read a window of 4 MiB at a time (./file-window.ts), never whole: an open holds one window, or the
 * longest log record or snapshot entry while it is read, beside the index it builds. The snapshot's CRC-32 is checked
 * in a first pass over it, before any entry in it is believed; a log record's before its ops are.
 * - Log generation = snapshot generation (0 when there is no snapshot): replay the log on it.
 * - Log generation = snapshot generation − 1: a compaction stopped after its snapshot was in place;
 *   the snapshot already holds every record of that log, which is replaced by an empty one.
 * - Up to the durable point every record must be intact and the file at least that long: anything
 *   else (a log cut short, a flipped byte, a record replaced) is lost acknowledged data:
 *   STORE_CORRUPT naming the file, the offset and what was expected against what was found.
 * - After the durable point, the first damaged record (cut short, CRC mismatch, bad seq) is a torn
 *   write from a crash if no intact record with a later seq follows it anywhere: the file is
 *   truncated back to the last good record (that write was never acknowledged — its fsync had not
 *   returned). If an intact later record does exist, acknowledged data was damaged: STORE_CORRUPT.
 * - Anything else (bad header, CRC-valid but malformed payload, unknown version, generations that
 *   do not fit, a log missing beside a manifest or snapshot) is STORE_CORRUPT. A failed open
 *   changes nothing on disk.
 * - A log of format version 1 (16-byte header, no durable point, no manifest) is replayed with the
 *   old rule (a damaged tail is a torn write) and upgraded at once by a compaction. *
 * What stays in memory: every key, and the values under `valuesOnDiskFrom` bytes (4 KiB by default) encoded. A longer
 * value is kept as where its bytes lie (./value-file.ts): in the log, at the offset its record framed it at (known
 * when written, found again at replay from the bin that msgpack's Decoder hands back as a view of the window it read),
 * and after a compaction in the snapshot, which copies it there. `get` and `scan` read it with a positional read and
 * check it against the CRC-32 kept beside the offset (the files were checked when replayed; this catches a change
 * after that, STORE_CORRUPT for that read). The formats are the same either way: a store moves between builds and
 * between settings of `valuesOnDiskFrom` unchanged. A compaction re-points the values it copied once the new log is
 * in place; the replaced files stay open until the reads that found values in them are done.
 */
import { mkdir, open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Decoder } from '@msgpack/msgpack';
import { TrainprintError } from '../errors.js';
import { crc32 } from '../util/crc32.js';
import { SortedIndex, StoreCore, type EncodedOp, type IndexedOp, type IndexValue, type ValueRef } from './memory.js';
import { arrayHeader, binHeader, ShrinkingEncoder } from './encoding.js';
import { errno, writeFully } from './fsutil.js';
import { acquireLock, releaseLock, type HeldLock } from './lock.js';
import { frameLocatedRecord, RECORD_HEADER, writeRecordChunks } from './log-record.js';
import { FileWindow } from './file-window.js';
import { DiskValue, readDiskValues, ValueFile } from './value-file.js';

/**
 * Options of {@link openFileStore}.
 * @example
 * await openFileStore('./data', { compactEvery: 1_000, lockStaleMs: 10_000 })
 */
export interface FileStoreOptions {
  /** Compact (snapshot + fresh log) after this many log records. @default 10_000 */
  readonly compactEvery?: number;
  /**
   * A LOCK file whose contents cannot be read (its writer died between creating and filling it)
   * counts as stale once it is older than this. A readable LOCK is stale only when its pid is
   * gone. @default 5_000
   */
  readonly lockStaleMs?: number;
  /**
   * Values whose encoded bytes are at least this long are kept on disk only: the store keeps where they lie in its
   * log or snapshot and reads them back on each `get` or `scan` (a positional read, checked against the value's
   * CRC-32). Shorter values, and every key, stay in memory. 0 keeps every value on disk; Infinity keeps every value
   * in memory too. The default was set by measurement (docs/performance.md, "Where values go to disk"): a read from
   * disk costs about the same for any value under 64 KiB, so a higher threshold would only let each key hold more
   * memory. @default 4096
   */
  readonly valuesOnDiskFrom?: number;
}

/** {@link FileStoreOptions.valuesOnDiskFrom}'s default. */
const VALUES_ON_DISK_FROM = 4096;

const LOG = 'store.log';
const SNAPSHOT = 'snapshot';
const MANIFEST = 'MANIFEST';
const LOG_VERSION = 2;
/** The first log format: a 16-byte header without durable point; read, then upgraded. */
const LOG_VERSION_1 = 1;
const SNAPSHOT_VERSION = 1;
const MANIFEST_VERSION = 1;
const LOG_MAGIC = [0x54, 0x50, 0x4c, 0x47]; // "TPLG"
const SNAPSHOT_MAGIC = [0x54, 0x50, 0x53, 0x4e]; // "TPSN"
const MANIFEST_MAGIC = [0x54, 0x50, 0x4d, 0x46]; // "TPMF"
/** Header of a version-2 log: a page of its own, so a slot rewrite never touches record bytes. */
const LOG_HEADER = 4096;
const LOG_HEADER_V1 = 16;
const SLOT_OFFSETS = [16, 36] as const;
const SLOT_BYTES = 20;
const SNAPSHOT_HEADER = 20;
const MANIFEST_BYTES = 16;
/**
 * A write's slot update rides along only when the claim is this old or this many records behind:
 * every write would add a syscall and a header page to each fdatasync (about a tenth of sequential
 * throughput), while one in a few milliseconds costs nothing measurable.
 */
const CLAIM_EVERY_MS = 5;
const CLAIM_EVERY_RECORDS = 64;
/**
 * Records not yet claimed when writes stop are claimed by a checkpoint this long after the last
 * write (one extra fdatasync, never on the acknowledgement path) or by `close()`.
 */
const CHECKPOINT_IDLE_MS = 100;

// a shared encoder that keeps no large buffer (./encoding.ts): a record may hold a value of megabytes
const encoder = new ShrinkingEncoder();
const decoder = new Decoder();
/** msgpack's nil: decoded after a recovery so that the decoder keeps no reference to the windows it read. */
const NIL = Uint8Array.of(0xc0);

function corrupt(file: string, why: string): TrainprintError {
  return new TrainprintError('STORE_CORRUPT', `${file}: ${why}`);
}

function hasMagic(bytes: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

const view = (bytes: Uint8Array): DataView => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

// ---------------------------------------------------------------------------------------------
// Encoding of the file formats

/** How much of the log was acknowledged as durable: its first `records` records, ending at byte `length`. */
interface DurablePoint {
  readonly records: number;
  readonly length: number;
}

function encodeSlot(stamp: number, point: DurablePoint): Uint8Array {
  const out = new Uint8Array(SLOT_BYTES);
  const dv = view(out);
  dv.setUint32(0, stamp, true);
  dv.setUint32(4, point.records, true);
  dv.setUint32(8, point.length % 0x1_0000_0000, true);
  dv.setUint32(12, Math.floor(point.length / 0x1_0000_0000), true);
  dv.setUint32(16, crc32(out.subarray(0, 16)), true);
  return out;
}

function decodeSlot(bytes: Uint8Array, offset: number): { stamp: number; point: DurablePoint } | undefined {
  const slot = bytes.subarray(offset, offset + SLOT_BYTES);
  const dv = view(slot);
  if (crc32(slot.subarray(0, 16)) !== dv.getUint32(16, true)) return undefined;
  const stamp = dv.getUint32(0, true);
  if (stamp === 0) return undefined; // never written (an all-zero slot could only match by chance)
  const length = dv.getUint32(8, true) + dv.getUint32(12, true) * 0x1_0000_0000;
  return { stamp, point: { records: dv.getUint32(4, true), length } };
}

/**
 * `size` bytes starting as the log header and the manifest both start: the magic, the format version, the
 * generation and the CRC-32 of those 12 bytes (all little-endian u32).
 */
function stampedHead(size: number, magic: readonly number[], version: number, generation: number): Uint8Array {
  const out = new Uint8Array(size);
  const dv = view(out);
  out.set(magic, 0);
  dv.setUint32(4, version, true);
  dv.setUint32(8, generation, true);
  dv.setUint32(12, crc32(out.subarray(0, 12)), true);
  return out;
}

/** A fresh version-2 log header: nothing durable yet beyond the header itself (slot stamp 1). */
function logHeader(generation: number): Uint8Array {
  const out = stampedHead(LOG_HEADER, LOG_MAGIC, LOG_VERSION, generation);
  out.set(encodeSlot(1, { records: 0, length: LOG_HEADER }), SLOT_OFFSETS[1]);
  return out;
}

/**
 * Reads a snapshot file a window at a time: its header, the CRC-32 of its payload (a first pass, so that damage is
 * reported as such before anything in it is believed), then its entries. Values of at least `onDiskFrom` bytes become
 * {@link DiskValue}s in `file`, the rest are copied.
 */
async function decodeSnapshot(
  snapshot: FileWindow,
  file: ValueFile,
  onDiskFrom: number,
): Promise<{ generation: number; entries: Map<string, IndexValue> }> {
  const size = snapshot.size;
  const head = size < SNAPSHOT_HEADER ? undefined : await snapshot.load(0, SNAPSHOT_HEADER);
  if (head === undefined || !hasMagic(snapshot.bytes.subarray(head), SNAPSHOT_MAGIC))
    throw corrupt(SNAPSHOT, 'not a trainprint store snapshot');
  const header = snapshot.bytes.slice(head, head + SNAPSHOT_HEADER);
  const dv = view(header);
  const version = dv.getUint32(4, true);
  if (version !== SNAPSHOT_VERSION) throw corrupt(SNAPSHOT, `written by unsupported format version ${version}`);
  const length = dv.getUint32(12, true);
  if (length !== size - SNAPSHOT_HEADER) {
    throw corrupt(SNAPSHOT, `expected ${SNAPSHOT_HEADER + length} bytes (its header says so), found ${size}`);
  }
  const crc = await snapshot.crc(SNAPSHOT_HEADER, length, crc32(header.subarray(0, 16)));
  if (crc !== dv.getUint32(16, true)) throw corrupt(SNAPSHOT, 'CRC mismatch');
  return { generation: dv.getUint32(8, true), entries: await snapshotEntries(snapshot, file, onDiskFrom) };
}

/**
 * A msgpack header of the kinds a snapshot's entries are made of, at `bytes[i]` with `avail` bytes there: its length
 * and the count of items or bytes it announces; undefined when it is of another kind or cut short.
 */
function headerOf(
  bytes: Uint8Array,
  i: number,
  avail: number,
  kind: 'array' | 'str' | 'bin',
): readonly [number, number] | undefined {
  if (avail < 1) return undefined;
  const b = bytes[i];
  const sized = (length: number): readonly [number, number] | undefined => {
    if (avail < length) return undefined;
    let n = 0;
    for (let k = 1; k < length; k++) n = n * 256 + bytes[i + k]; // big-endian, as msgpack writes lengths
    return [length, n];
  };
  if (kind === 'array') {
    if (b >= 0x90 && b <= 0x9f) return [1, b & 0x0f];
    return b === 0xdc ? sized(3) : b === 0xdd ? sized(5) : undefined;
  }
  if (kind === 'str') {
    if (b >= 0xa0 && b <= 0xbf) return [1, b & 0x1f];
    return b === 0xd9 ? sized(2) : b === 0xda ? sized(3) : b === 0xdb ? sized(5) : undefined;
  }
  return b === 0xc4 ? sized(2) : b === 0xc5 ? sized(3) : b === 0xc6 ? sized(5) : undefined;
}

/**
 * The entries of a snapshot whose CRC-32 was checked, walked without holding the file: the payload is the msgpack
 * `{ entries: [[key, bin], …] }` that {@link writeSnapshot} writes (and `new Encoder().encode` would), so each entry is
 * found from its headers; one that fits in a window is decoded by msgpack's Decoder from there (its key exactly as
 * msgpack reads strings), a longer one piece by piece, its value's CRC-32 taken a window at a time.
 */
async function snapshotEntries(
  snapshot: FileWindow,
  file: ValueFile,
  onDiskFrom: number,
): Promise<Map<string, IndexValue>> {
  const size = snapshot.size;
  const unreadable = (why: string) => corrupt(SNAPSHOT, `unreadable payload (${why})`);
  /** The index in snapshot.bytes of `length` bytes at `offset` if they are there, else -1: load them (a promise). */
  const at = (offset: number, length: number): number => snapshot.at(offset, length);
  let pos = SNAPSHOT_HEADER;
  let avail = Math.min(ENTRIES_KEY.length + 5, size - pos);
  let i = at(pos, avail);
  if (i < 0) i = await snapshot.load(pos, avail);
  const hasKey = avail > ENTRIES_KEY.length && ENTRIES_KEY.every((b, k) => snapshot.bytes[i + k] === b);
  const count = hasKey
    ? headerOf(snapshot.bytes, i + ENTRIES_KEY.length, avail - ENTRIES_KEY.length, 'array')
    : undefined;
  if (count === undefined) throw corrupt(SNAPSHOT, 'payload has no entries');
  pos += ENTRIES_KEY.length + count[0];
  const entries = new Map<string, IndexValue>();
  for (let n = 0; n < count[1]; n++) {
    const cutShort = () => unreadable(`the file ends inside entry ${n + 1} of ${count[1]}`);
    if (pos >= size) throw cutShort();
    avail = Math.min(6, size - pos);
    i = at(pos, avail);
    if (i < 0) i = await snapshot.load(pos, avail);
    const key = snapshot.bytes[i] === ENTRY[0] ? headerOf(snapshot.bytes, i + 1, avail - 1, 'str') : undefined;
    if (key === undefined) throw avail < 6 ? cutShort() : corrupt(SNAPSHOT, 'malformed entry');
    const valueHead = pos + 1 + key[0] + key[1];
    if (valueHead >= size) throw cutShort();
    avail = Math.min(5, size - valueHead);
    i = at(valueHead, avail);
    if (i < 0) i = await snapshot.load(valueHead, avail);
    const value = headerOf(snapshot.bytes, i, avail, 'bin');
    if (value === undefined) throw avail < 5 ? cutShort() : corrupt(SNAPSHOT, 'malformed entry');
    const valueAt = valueHead + value[0];
    const end = valueAt + value[1];
    if (end > size) throw cutShort();
    if (end - pos <= snapshot.windowBytes) {
      i = at(pos, end - pos);
      if (i < 0) i = await snapshot.load(pos, end - pos);
      const [k, v] = decoder.decode(snapshot.bytes.subarray(i, i + end - pos)) as [string, Uint8Array];
      entries.set(k, located(v, snapshot.bytes, pos - i, file, onDiskFrom));
    } else {
      // an entry longer than a window: its key decoded alone, its value read a window at a time
      i = at(pos + 1, key[0] + key[1]);
      if (i < 0) i = await snapshot.load(pos + 1, key[0] + key[1]);
      const k = decoder.decode(snapshot.bytes.subarray(i, i + key[0] + key[1])) as string;
      if (value[1] >= onDiskFrom) {
        entries.set(k, new DiskValue(file, valueAt, value[1], await snapshot.crc(valueAt, value[1])));
      } else {
        i = at(valueAt, value[1]);
        if (i < 0) i = await snapshot.load(valueAt, value[1]);
        entries.set(k, snapshot.bytes.slice(i, i + value[1]));
      }
    }
    pos = end;
  }
  if (pos !== size) throw unreadable(`${size - pos} bytes after its ${count[1]} entries`);
  return entries;
}

function encodeManifest(generation: number): Uint8Array {
  return stampedHead(MANIFEST_BYTES, MANIFEST_MAGIC, MANIFEST_VERSION, generation);
}

function decodeManifest(bytes: Uint8Array): { generation: number } {
  if (bytes.length !== MANIFEST_BYTES || !hasMagic(bytes, MANIFEST_MAGIC)) {
    const expected = `expected ${MANIFEST_BYTES} bytes starting "TPMF", found ${bytes.length} bytes`;
    throw corrupt(MANIFEST, `not a trainprint store manifest (${expected})`);
  }
  const dv = view(bytes);
  if (crc32(bytes.subarray(0, 12)) !== dv.getUint32(12, true)) throw corrupt(MANIFEST, 'CRC mismatch');
  const version = dv.getUint32(4, true);
  if (version !== MANIFEST_VERSION) throw corrupt(MANIFEST, `written by unsupported format version ${version}`);
  return { generation: dv.getUint32(8, true) };
}

/** What the log header says: format, generation, where records start and the durable point. */
interface LogHeader {
  readonly version: number;
  readonly generation: number;
  readonly start: number;
  readonly durable: DurablePoint;
  /** Stamp of the slot the durable point comes from (0 for a version-1 log). */
  readonly stamp: number;
}

/** The header of a log of `size` bytes, from its first bytes `bytes` (up to {@link LOG_HEADER} of them). */
function readLogHeader(bytes: Uint8Array, size: number): LogHeader {
  if (size < LOG_HEADER_V1 || !hasMagic(bytes, LOG_MAGIC)) {
    throw corrupt(LOG, `not a trainprint store log (${size} bytes)`);
  }
  const dv = view(bytes);
  if (crc32(bytes.subarray(0, 12)) !== dv.getUint32(12, true)) throw corrupt(LOG, 'header CRC mismatch');
  const version = dv.getUint32(4, true);
  const generation = dv.getUint32(8, true);
  if (version === LOG_VERSION_1) {
    return { version, generation, start: LOG_HEADER_V1, durable: { records: 0, length: LOG_HEADER_V1 }, stamp: 0 };
  }
  if (version !== LOG_VERSION) throw corrupt(LOG, `written by unsupported format version ${version}`);
  if (size < LOG_HEADER) {
    throw corrupt(LOG, `expected at least the ${LOG_HEADER}-byte header, found ${size} bytes: cut short`);
  }
  const slots = SLOT_OFFSETS.map((o) => decodeSlot(bytes, o)).filter((s) => s !== undefined);
  if (slots.length === 0) throw corrupt(LOG, 'neither durable-point slot of the header (bytes 16 and 36) is intact');
  const best = slots.reduce((x, y) => (y.stamp > x.stamp ? y : x));
  if (best.point.length < LOG_HEADER) {
    throw corrupt(LOG, `the header's durable point (byte ${best.point.length}) lies inside the header`);
  }
  return { version, generation, start: LOG_HEADER, durable: best.point, stamp: best.stamp };
}

/** A record that passed its checks: its seq, and its payload, a view of `log.bytes` whose byte 0 is at `base`. */
interface ReadRecord {
  readonly seq: number;
  readonly payload: Uint8Array;
  readonly base: number;
}

/**
 * The record at `offset` with the seq after `seq`, or why there is none. A record longer than a window is checked a
 * window at a time before it is read whole: a damaged length field must not make the open allocate what it says.
 */
async function inspectRecord(log: FileWindow, offset: number, seq: number): Promise<ReadRecord | string> {
  const size = log.size;
  if (offset + RECORD_HEADER > size) {
    return `cut short: ${size - offset} of its ${RECORD_HEADER} header bytes present`;
  }
  let i = log.at(offset, RECORD_HEADER);
  if (i < 0) i = await log.load(offset, RECORD_HEADER);
  const length = log.view.getUint32(i, true);
  const found = log.view.getUint32(i + 4, true);
  const stored = log.view.getUint32(i + 8, true);
  if (length === 0) return 'zero length';
  if (offset + RECORD_HEADER + length > size) {
    return `cut short: expected ${RECORD_HEADER + length} bytes, found ${size - offset}`;
  }
  const headCrc = crc32(log.bytes.subarray(i, i + 8));
  const long = RECORD_HEADER + length > log.windowBytes;
  if (long && (await log.crc(offset + RECORD_HEADER, length, headCrc)) !== stored) return 'CRC mismatch';
  i = log.at(offset, RECORD_HEADER + length);
  if (i < 0) i = await log.load(offset, RECORD_HEADER + length);
  const payload = log.bytes.subarray(i + RECORD_HEADER, i + RECORD_HEADER + length);
  if (!long && crc32(payload, headCrc) !== stored) return 'CRC mismatch';
  if (found !== seq + 1) return `expected seq ${seq + 1}, found ${found}`;
  return { seq: found, payload, base: offset - i };
}

/** True when an intact record with a seq above `minSeq` starts at `offset`. */
async function intactAt(log: FileWindow, offset: number, minSeq: number): Promise<boolean> {
  if (offset + RECORD_HEADER > log.size) return false;
  let i = log.at(offset, RECORD_HEADER);
  if (i < 0) i = await log.load(offset, RECORD_HEADER);
  const length = log.view.getUint32(i, true);
  const seq = log.view.getUint32(i + 4, true);
  if (length === 0 || seq <= minSeq || offset + RECORD_HEADER + length > log.size) return false;
  const stored = log.view.getUint32(i + 8, true);
  return (await log.crc(offset + RECORD_HEADER, length, crc32(log.bytes.subarray(i, i + 8)))) === stored;
}

/**
 * A value decoded from `bytes`, a window of `file` whose byte 0 lies at `base` in the file: a {@link DiskValue} where
 * it lies in the file when it is at least `onDiskFrom` bytes long, else its own copy (a view would pin the window).
 * msgpack's Decoder gives a bin as a view of its input, which is how its place in the file is known; a copy is kept
 * should it not be a view.
 */
function located(value: Uint8Array, bytes: Uint8Array, base: number, file: ValueFile, onDiskFrom: number): IndexValue {
  if (value.length < onDiskFrom || value.buffer !== bytes.buffer) return new Uint8Array(value);
  return new DiskValue(file, base + value.byteOffset - bytes.byteOffset, value.length, crc32(value));
}

function decodeOps(payload: Uint8Array, seq: number): EncodedOp[] {
  let decoded: unknown;
  try {
    decoded = decoder.decode(payload);
  } catch (cause) {
    throw corrupt(LOG, `record ${seq} has an unreadable payload (${(cause as Error).message})`);
  }
  const ops = (decoded as { ops?: unknown } | null)?.ops;
  if (!Array.isArray(ops)) throw corrupt(LOG, `record ${seq} has no ops`);
  return ops.map((op: { type?: unknown; key?: unknown; value?: unknown } | null): EncodedOp => {
    if (typeof op?.key === 'string' && op.type === 'delete') return { type: 'delete', key: op.key };
    if (typeof op?.key === 'string' && op.type === 'put' && op.value instanceof Uint8Array)
      return { type: 'put', key: op.key, value: op.value }; // a view of the log's bytes: see replayLog
    throw corrupt(LOG, `record ${seq} has a malformed op`);
  });
}

/**
 * Replays the records of a log onto `entries`. Returns the last seq (= the number of records) and
 * the end of the last good record (the caller truncates a torn tail there). Throws STORE_CORRUPT
 * when the log ends before its durable point, when a record up to the durable point is damaged,
 * and when a damaged record after it has an intact later record after it.
 */
async function replayLog(
  log: FileWindow,
  header: LogHeader,
  entries: Map<string, IndexValue>,
  file: ValueFile,
  onDiskFrom: number,
): Promise<{ seq: number; end: number }> {
  const { durable } = header;
  const size = log.size;
  const claim = `the header records ${durable.records} acknowledged records ending at byte ${durable.length}`;
  if (size < durable.length) {
    const lost = `${durable.length - size} bytes of acknowledged writes are missing`;
    throw corrupt(LOG, `expected at least ${durable.length} bytes, found ${size}: ${claim}, so ${lost}`);
  }
  let offset = header.start;
  let seq = 0;
  const checkDurableEnd = (): void => {
    if (seq === durable.records && offset !== durable.length) {
      throw corrupt(LOG, `record ${seq} ends at byte ${offset}, but ${claim}`);
    }
  };
  checkDurableEnd();
  while (offset < size) {
    const record = await inspectRecord(log, offset, seq);
    if (typeof record === 'string') {
      if (seq < durable.records) {
        throw corrupt(LOG, `record ${seq + 1} at byte ${offset} is damaged (${record}); ${claim}`);
      }
      // A damaged record after the durable point: a torn write only if nothing intact follows. The
      // scan is byte by byte because the damaged length field cannot be trusted; it runs only on
      // this rare path. A header that cannot start a later record is passed over without a promise.
      for (let o = offset + 1; o + RECORD_HEADER < size; o++) {
        let i = log.at(o, RECORD_HEADER);
        if (i < 0) i = await log.load(o, RECORD_HEADER);
        const length = log.view.getUint32(i, true);
        if (length === 0 || log.view.getUint32(i + 4, true) <= seq || o + RECORD_HEADER + length > size) continue;
        if (await intactAt(log, o, seq)) {
          const why = `is damaged (${record}) but an intact later record follows at byte ${o}`;
          throw corrupt(LOG, `record ${seq + 1} at byte ${offset} ${why}`);
        }
      }
      break;
    }
    // the ops are taken from the window before the next record is read into it
    for (const op of decodeOps(record.payload, record.seq)) {
      if (op.type === 'put') entries.set(op.key, located(op.value, log.bytes, record.base, file, onDiskFrom));
      else entries.delete(op.key);
    }
    seq = record.seq;
    offset += RECORD_HEADER + record.payload.length;
    checkDurableEnd();
  }
  if (seq < durable.records) {
    throw corrupt(LOG, `expected ${durable.records} records, found ${seq}: ${claim}`);
  }
  return { seq, end: offset };
}

// ---------------------------------------------------------------------------------------------
// File helpers

/** fsync a directory so a rename or a new file in it survives an OS crash. */
async function syncDir(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    // Windows cannot open or flush a directory; NTFS journals renames itself.
    if (process.platform !== 'win32') throw error;
  } finally {
    await handle?.close();
  }
}

async function readOptional(path: string): Promise<Uint8Array | undefined> {
  try {
    const b = await readFile(path);
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength); // not a Buffer: Buffer#slice is a view
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Writes a whole file durably under `name` via `name.tmp` → fsync → rename → fsync dir; returns it open for reading
 * and writing (a log's values are read back from the handle it is appended through).
 */
async function replaceFile(dir: string, name: string, bytes: Uint8Array | readonly Uint8Array[]): Promise<FileHandle> {
  const tmp = join(dir, `${name}.tmp`);
  const handle = await open(tmp, 'w+');
  try {
    await writeChunks(handle, bytes instanceof Uint8Array ? [bytes] : bytes);
    await handle.sync();
    await rename(tmp, join(dir, name));
    await syncDir(dir);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Writes `chunks` one after another from byte 0, gathered into writes of about {@link WRITE_BYTES} (a snapshot is
 * millions of small pieces: a write each would cost a system call each).
 */
async function writeChunks(handle: FileHandle, chunks: readonly Uint8Array[]): Promise<void> {
  let position = 0;
  let batch: Uint8Array[] = [];
  let batched = 0;
  const flush = async () => {
    if (batched === 0) return;
    const bytes = batch.length === 1 ? batch[0] : Buffer.concat(batch, batched);
    await writeFully(handle, bytes, position);
    position += batched;
    batch = [];
    batched = 0;
  };
  for (const chunk of chunks) {
    if (chunk.byteLength >= WRITE_BYTES) {
      await flush();
      await writeFully(handle, chunk, position);
      position += chunk.byteLength;
      continue;
    }
    batch.push(chunk);
    batched += chunk.byteLength;
    if (batched >= WRITE_BYTES) await flush();
  }
  await flush();
}

/** The size of the writes {@link writeChunks} gathers small pieces into. */
const WRITE_BYTES = 1 << 20;

async function writeManifest(dir: string, generation: number): Promise<void> {
  await (await replaceFile(dir, MANIFEST, encodeManifest(generation))).close();
}

/** `{ entries: ` as msgpack: a map of one member, the string "entries" (the array's header follows). */
const ENTRIES_KEY = encoder.encode({ entries: [] }).subarray(0, -1);
/** The fixarray of 2 that opens each snapshot entry. */
const ENTRY = Uint8Array.of(0x92);
/** Pieces at least this long are written from where they are, shorter ones gathered into a block first. */
const OWN_WRITE_BYTES = 1 << 16;

/** Appends bytes to a file from a position on, small pieces gathered into writes of {@link WRITE_BYTES}, with their CRC-32. */
class GatheringWriter {
  readonly #handle: FileHandle;
  readonly #block = new Uint8Array(WRITE_BYTES);
  #used = 0;
  /** Where the block's first byte goes in the file. */
  #flushed: number;
  crc: number;

  constructor(handle: FileHandle, position: number, crc: number) {
    this.#handle = handle;
    this.#flushed = position;
    this.crc = crc;
  }

  /** Where the next byte put goes in the file. */
  get position(): number {
    return this.#flushed + this.#used;
  }

  async put(bytes: Uint8Array): Promise<void> {
    this.crc = crc32(bytes, this.crc);
    if (bytes.length >= OWN_WRITE_BYTES) {
      await this.flush();
      await writeFully(this.#handle, bytes, this.#flushed);
      this.#flushed += bytes.length;
      return;
    }
    if (this.#used + bytes.length > WRITE_BYTES) await this.flush();
    this.#block.set(bytes, this.#used);
    this.#used += bytes.length;
  }

  async flush(): Promise<void> {
    if (this.#used === 0) return;
    await writeFully(this.#handle, this.#block.subarray(0, this.#used), this.#flushed);
    this.#flushed += this.#used;
    this.#used = 0;
  }
}

const binHeaderBytes = (length: number): number => (length < 0x100 ? 2 : length < 0x10000 ? 3 : 5);

/**
 * Writes a snapshot of `entries` (in key order) durably, as {@link replaceFile} does, and returns it open for reading
 * with where each value now lies in it (undefined for a value kept in memory). A value kept on disk is copied from
 * its file a MiB at a time and checked against its CRC-32 on the way (damage is reported, never sealed under a new
 * CRC), so a compaction holds at most a MiB of it, not every value at once. The bytes are those of
 * `new Encoder().encode({ entries })` after the header: the format is unchanged.
 */
async function writeSnapshot(
  dir: string,
  generation: number,
  entries: ReadonlyArray<readonly [string, IndexValue]>,
  onDiskFrom: number,
): Promise<{ file: ValueFile; values: Array<DiskValue | undefined> }> {
  const keys = entries.map(([key]) => encoder.encode(key));
  const count = arrayHeader(entries.length);
  let length = ENTRIES_KEY.length + count.length;
  entries.forEach(([, v], i) => {
    length += ENTRY.length + keys[i].length + binHeaderBytes(v.length) + v.length;
  });
  const header = new Uint8Array(SNAPSHOT_HEADER);
  const dv = view(header);
  header.set(SNAPSHOT_MAGIC, 0);
  dv.setUint32(4, SNAPSHOT_VERSION, true);
  dv.setUint32(8, generation, true);
  dv.setUint32(12, length, true);
  const tmp = join(dir, `${SNAPSHOT}.tmp`);
  const handle = await open(tmp, 'w+');
  const file = new ValueFile(SNAPSHOT, handle);
  try {
    const out = new GatheringWriter(handle, SNAPSHOT_HEADER, crc32(header.subarray(0, 16)));
    await out.put(ENTRIES_KEY);
    await out.put(count);
    const values = new Array<DiskValue | undefined>(entries.length);
    for (let i = 0; i < entries.length; i++) {
      const v = entries[i][1];
      await out.put(ENTRY);
      await out.put(keys[i]);
      await out.put(binHeader(v.length));
      const at = out.position;
      if (v instanceof Uint8Array) {
        await out.put(v);
        if (v.length >= onDiskFrom) values[i] = new DiskValue(file, at, v.length, crc32(v));
      } else {
        const from = v as DiskValue;
        let crc = 0;
        for (let done = 0; done < from.length; done += WRITE_BYTES) {
          const piece = await from.file.read(from.offset + done, Math.min(WRITE_BYTES, from.length - done));
          crc = crc32(piece, crc);
          await out.put(piece);
        }
        if (crc !== from.crc) throw from.damaged();
        values[i] = new DiskValue(file, at, from.length, from.crc);
      }
    }
    await out.flush();
    if (out.position !== SNAPSHOT_HEADER + length) {
      throw new Error(`snapshot written to byte ${out.position}, expected ${SNAPSHOT_HEADER + length}`);
    }
    dv.setUint32(16, out.crc, true);
    await writeFully(handle, header, 0);
    await handle.sync();
    await rename(tmp, join(dir, SNAPSHOT));
    await syncDir(dir);
    return { file, values };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// The store

interface Recovered {
  readonly dir: string;
  readonly lock: HeldLock;
  /** The log, open for appends and for reading the values kept in it. */
  readonly log: ValueFile;
  /** The snapshot, open for reading the values kept in it (none before the first compaction). */
  readonly snapshot: ValueFile | undefined;
  readonly entries: Map<string, IndexValue>;
  readonly generation: number;
  /** Seq of the last record = records in the log. */
  readonly seq: number;
  readonly size: number;
  /** What the newest header slot claims, and its stamp. */
  readonly claimed: DurablePoint;
  readonly stamp: number;
  readonly compactEvery: number;
  readonly onDiskFrom: number;
}

const noop = (): void => {};
/** The durable point of a fresh log: no records. */
const EMPTY: DurablePoint = { records: 0, length: LOG_HEADER };

/**
 * A {@link Store} kept in a directory; see the module comment for formats and guarantees. Made
 * by {@link openFileStore} only. Inside a transaction callback use `tx`, never the store (a store
 * write issued there waits for the transaction, so awaiting it inside never resolves).
 *
 * In memory it keeps every key and the values shorter than `valuesOnDiskFrom` (4 KiB); a longer value is kept as
 * where its bytes lie in the log or the snapshot (./value-file.ts) and read from there by `get` and `scan`.
 * @example
 * const store: FileStore = await openFileStore('./data')
 * console.log(store.dir)
 */
class FileStore extends StoreCore {
  /** The store's directory. */
  readonly dir: string;
  readonly #lock: HeldLock;
  readonly #compactEvery: number;
  readonly #onDiskFrom: number;
  #log: ValueFile;
  #snapshot: ValueFile | undefined;
  /** Files a compaction replaced, closing once the reads holding them are done: close() waits for them. */
  readonly #retiring = new Set<Promise<void>>();
  #generation: number;
  #seq: number;
  #size: number;
  /** The durable point the newest header slot claims (on disk once the fdatasync after it returned). */
  #claimed: DurablePoint;
  #stamp: number;
  /** When a slot update last went out (performance.now()). */
  #claimedAt = -Infinity;
  /** Serialises every use of the log handle: appends, checkpoints, compaction, close. */
  #io: Promise<void> = Promise.resolve();
  #idle: ReturnType<typeof setTimeout> | undefined;
  /** A failed idle checkpoint: the next write reports it (and so fails the store). */
  #checkpointError: { error: unknown } | undefined;
  /** A write or checkpoint failed: the state on disk is unknown, claim nothing more. */
  #broken = false;

  constructor(r: Recovered) {
    super(new SortedIndex(r.entries));
    this.dir = r.dir;
    this.#lock = r.lock;
    this.#compactEvery = r.compactEvery;
    this.#onDiskFrom = r.onDiskFrom;
    this.#log = r.log;
    this.#snapshot = r.snapshot;
    this.#generation = r.generation;
    this.#seq = r.seq;
    this.#size = r.size;
    this.#claimed = r.claimed;
    this.#stamp = r.stamp;
  }

  protected async persist(ops: readonly EncodedOp[]): Promise<readonly IndexedOp[]> {
    const indexed = await this.#exclusive(async () => {
      if (this.#checkpointError) throw this.#checkpointError.error;
      // a large value (a job's catalogue) is written from its own bytes, not copied into one buffer
      const record = frameLocatedRecord(this.#seq + 1, ops, encoder, this.#onDiskFrom);
      // The slot claims what the previous fdatasync made durable; written beside the record, it
      // rides on the same fdatasync instead of costing one of its own.
      const previous = { records: this.#seq, length: this.#size };
      const behind = previous.records - this.#claimed.records;
      const now = performance.now();
      const claim = behind > 0 && (behind >= CLAIM_EVERY_RECORDS || now - this.#claimedAt >= CLAIM_EVERY_MS);
      if (claim) this.#claimedAt = now;
      const start = this.#size;
      const [written] = await Promise.all([
        writeRecordChunks(this.#log.handle, record.chunks, start),
        claim ? this.#writeSlot(previous) : undefined,
      ]);
      await this.#log.handle.datasync();
      if (claim) this.#claimed = previous;
      this.#seq++;
      this.#size += written;
      return this.#onDisk(ops, record.valueAt, start);
    });
    this.#armIdleCheckpoint();
    return indexed;
  }

  /** `ops` as the index keeps them: a value whose bytes the record located (at `start` + its offset) as a DiskValue. */
  #onDisk(ops: readonly EncodedOp[], valueAt: ReadonlyArray<number | undefined>, start: number): readonly IndexedOp[] {
    if (valueAt.length === 0) return ops;
    return ops.map((op, i): IndexedOp => {
      const at = valueAt[i];
      if (at === undefined || op.type !== 'put') return op;
      return {
        type: 'put',
        key: op.key,
        value: new DiskValue(this.#log, start + at, op.value.length, crc32(op.value)),
      };
    });
  }

  protected override readRefs(refs: readonly ValueRef[]): Promise<Uint8Array[]> {
    return readDiskValues(refs as readonly DiskValue[]);
  }

  protected override async afterCommit(): Promise<void> {
    if (this.#seq >= this.#compactEvery) await this.#exclusive(() => this.#compact());
  }

  /** Runs `fn` after every earlier log operation; a failure marks the store broken. */
  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#io.then(async () => {
      try {
        return await fn();
      } catch (error) {
        this.#broken = true;
        throw error;
      }
    });
    this.#io = run.then(noop, noop);
    return run;
  }

  #writeSlot(point: DurablePoint): Promise<void> {
    this.#stamp++;
    return writeFully(this.#log.handle, encodeSlot(this.#stamp, point), SLOT_OFFSETS[this.#stamp % 2]);
  }

  /** Claims every record appended so far (one slot write + fdatasync), if any is unclaimed. */
  async #checkpoint(): Promise<void> {
    if (this.#broken || this.#claimed.records === this.#seq) return;
    const point = { records: this.#seq, length: this.#size };
    await this.#writeSlot(point);
    await this.#log.handle.datasync();
    this.#claimed = point;
  }

  #armIdleCheckpoint(): void {
    if (this.#idle !== undefined) return;
    this.#idle = setTimeout(() => {
      this.#idle = undefined;
      this.#exclusive(() => this.#checkpoint()).catch((error: unknown) => {
        this.#checkpointError ??= { error };
      });
    }, CHECKPOINT_IDLE_MS);
    // Never keeps a process alive: an unclaimed last record is still replayed after a crash.
    this.#idle.unref?.();
  }

  /**
   * Snapshot, fresh log, then manifest. Crash points: before the snapshot rename → old snapshot +
   * old log; after it → new snapshot + old log (older generation: ignored, it is inside the
   * snapshot); after the log rename → new snapshot + empty new log (the manifest still names the
   * older generation: rewritten on open). Each state holds every acknowledged write, and nothing is
   * appended to the new log before its rename is durable.
   *
   * The index does not change while this runs (it runs between two commits), so the snapshot is exactly the committed
   * state. The values kept on disk are re-pointed to the new snapshot in one synchronous step once the new log is in
   * place; the old files stay open until the reads that found values in them are done.
   */
  async #compact(): Promise<void> {
    const generation = this.#generation + 1;
    const entries = [...this.index.entries()];
    const snapshot = await writeSnapshot(this.dir, generation, entries, this.#onDiskFrom);
    let log: FileHandle;
    try {
      log = await replaceFile(this.dir, LOG, logHeader(generation));
    } catch (error) {
      this.#retire(snapshot.file); // the values still point at the files they were in
      throw error;
    }
    for (let i = 0; i < entries.length; i++) {
      const moved = snapshot.values[i];
      if (moved) this.index.set(entries[i][0], moved);
    }
    this.#retire(this.#log);
    if (this.#snapshot) this.#retire(this.#snapshot);
    this.#log = new ValueFile(LOG, log);
    this.#snapshot = snapshot.file;
    this.#generation = generation;
    this.#seq = 0;
    this.#size = LOG_HEADER;
    this.#claimed = EMPTY;
    this.#stamp = 1;
    await writeManifest(this.dir, generation);
  }

  /** Closes `file` once no read holds it; close() waits for it. */
  #retire(file: ValueFile): void {
    const closing = file.retire().catch(noop); // a read-only use ends: nothing to lose if its close fails
    this.#retiring.add(closing);
    void closing.then(() => this.#retiring.delete(closing));
  }

  protected async release(): Promise<void> {
    if (this.#idle !== undefined) clearTimeout(this.#idle);
    this.#idle = undefined;
    try {
      // The final checkpoint: after a clean close every record is claimed, so any later damage to
      // the log, its last record included, is reported rather than taken for a torn write.
      await this.#exclusive(() => this.#checkpoint()).catch(noop);
      await this.#io;
      await Promise.all([this.#log.retire(), this.#snapshot?.retire(), ...this.#retiring]);
    } finally {
      await releaseLock(this.#lock);
    }
  }
}

export type { FileStore };

/**
 * Opens (creating if needed) the durable store in `dir`: takes the directory's lock, recovers the
 * state from snapshot + log (dropping a torn tail written after the last durable point), and
 * returns a {@link Store} whose writes resolve only after fsync. One process at a time: a live
 * holder makes this reject with STORE_LOCKED naming its pid; a lock left by a dead process is
 * recovered. Call `close()` to release the lock.
 *
 * @throws STORE_LOCKED another live process (or this one) has the store open.
 * @throws STORE_CORRUPT acknowledged data is damaged or missing (the detail names the file, the
 *   offset and what was expected against what was found); nothing on disk is changed.
 * @throws INVALID_OPTIONS for a bad `compactEvery`, `lockStaleMs` or `valuesOnDiskFrom`.
 * @example
 * import { openFileStore } from 'trainprint/node'
 * const store = await openFileStore('./data', { compactEvery: 10_000 })
 * await store.put('work/1', { title: 'Dune' })      // durable once this resolves
 * await store.scan('work/', { limit: 10 })
 * await store.close()
 */
export async function openFileStore(dir: string, options: FileStoreOptions = {}): Promise<FileStore> {
  if (typeof dir !== 'string' || dir.length === 0)
    throw new TrainprintError('INVALID_INPUT', 'openFileStore needs a directory path');
  const compactEvery = options.compactEvery ?? 10_000;
  const lockStaleMs = options.lockStaleMs ?? 5_000;
  const onDiskFrom = options.valuesOnDiskFrom ?? VALUES_ON_DISK_FROM;
  if (!Number.isSafeInteger(compactEvery) || compactEvery < 1 || compactEvery > 0xffffffff) {
    throw new TrainprintError('INVALID_OPTIONS', `compactEvery must be an integer ≥ 1, got ${String(compactEvery)}`);
  }
  if (!(typeof lockStaleMs === 'number' && lockStaleMs >= 0)) {
    throw new TrainprintError('INVALID_OPTIONS', `lockStaleMs must be a number ≥ 0, got ${String(lockStaleMs)}`);
  }
  if (!(typeof onDiskFrom === 'number' && onDiskFrom >= 0)) {
    const got = String(onDiskFrom);
    throw new TrainprintError('INVALID_OPTIONS', `valuesOnDiskFrom must be a number of bytes ≥ 0, got ${got}`);
  }
  const created = await mkdir(dir, { recursive: true }).catch((e: unknown) => {
    // a path that is a file, or under one, or where nothing may be made: named, not the system's bare message
    const code = (e as { code?: unknown })?.code;
    const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'not a directory' : `cannot be made (${String(code ?? e)})`;
    throw new TrainprintError('INVALID_INPUT', `the store's directory ${dir}: ${why}`);
  });
  // A new directory survives an OS crash only once its parent is flushed too.
  if (created !== undefined) {
    for (let p = resolve(dir); p !== dirname(resolve(created)); ) await syncDir((p = dirname(p)));
  }
  const lock = await acquireLock(dir, lockStaleMs);
  try {
    const recovered = await recover(dir, onDiskFrom);
    // msgpack's Decoder keeps the last bytes it decoded: after a recovery, a view of the last window read (or of
    // the longest record's own buffer). Something of one byte to decode lets it go.
    decoder.decode(NIL);
    return new FileStore({ ...recovered, dir, lock, compactEvery, onDiskFrom });
  } catch (error) {
    await releaseLock(lock);
    throw error;
  }
}

type Opened = Omit<Recovered, 'dir' | 'lock' | 'compactEvery' | 'onDiskFrom'>;

/**
 * Reads and checks every file first, and writes only once the whole state is known to be sound. The values of at
 * least `onDiskFrom` bytes are located in the files they were read from, which stay open for reading.
 */
async function recover(dir: string, onDiskFrom: number): Promise<Opened> {
  const manifestBytes = await readOptional(join(dir, MANIFEST));
  // the snapshot and the log are read a window at a time (./file-window.ts), never held whole
  const snapshotWindow = await FileWindow.open(join(dir, SNAPSHOT));
  try {
    const logWindow = await FileWindow.open(join(dir, LOG));
    try {
      return await recoverFrom(dir, onDiskFrom, manifestBytes, snapshotWindow, logWindow);
    } finally {
      await logWindow?.close();
    }
  } finally {
    await snapshotWindow?.close();
  }
}

/** {@link recover} from the manifest's bytes and the snapshot and log open for reading (each undefined if absent). */
async function recoverFrom(
  dir: string,
  onDiskFrom: number,
  manifestBytes: Uint8Array | undefined,
  snapshotWindow: FileWindow | undefined,
  logWindow: FileWindow | undefined,
): Promise<Opened> {
  const manifest = manifestBytes === undefined ? undefined : decodeManifest(manifestBytes);
  const snapshotFile = snapshotWindow === undefined ? undefined : new ValueFile(SNAPSHOT);
  const snapshot = snapshotWindow && snapshotFile && (await decodeSnapshot(snapshotWindow, snapshotFile, onDiskFrom));
  const generation = snapshot?.generation ?? 0;
  const entries = snapshot?.entries ?? new Map<string, IndexValue>();
  const removeTmp = () => Promise.all([SNAPSHOT, LOG, MANIFEST].map((f) => rm(join(dir, `${f}.tmp`), { force: true })));
  /** Opens the snapshot for reading its values, then runs `write`; closes it if that fails. */
  const withSnapshot = async (write: () => Promise<Opened>): Promise<Opened> => {
    if (snapshotFile) snapshotFile.attach(await open(join(dir, SNAPSHOT), 'r'));
    try {
      return await write();
    } catch (error) {
      await snapshotFile?.retire();
      throw error;
    }
  };
  /** A new empty log of `generation` (log first: a manifest never names a log that is not there). */
  const fresh = (): Promise<Opened> =>
    withSnapshot(async () => {
      await removeTmp();
      const log = await replaceFile(dir, LOG, logHeader(generation));
      try {
        if (manifest?.generation !== generation) await writeManifest(dir, generation);
      } catch (error) {
        await log.close();
        throw error;
      }
      return emptyLog(log, snapshotFile, entries, generation);
    });

  if (logWindow === undefined) {
    if (snapshot) throw corrupt(LOG, `missing, although the snapshot (generation ${generation}) exists`);
    if (manifest) {
      throw corrupt(LOG, `missing, although ${MANIFEST} says a store of generation ${manifest.generation} lives here`);
    }
    return fresh(); // a new store
  }
  const headBytes = Math.min(logWindow.size, LOG_HEADER);
  const head = await logWindow.load(0, headBytes);
  const header = readLogHeader(logWindow.bytes.subarray(head, head + headBytes), logWindow.size);
  const newest = Math.max(header.generation, generation);
  if (manifest && manifest.generation > newest) {
    const found = `found generation ${newest} at most (snapshot and log replaced by older copies?)`;
    throw corrupt(MANIFEST, `expected files of generation ${manifest.generation} or later, ${found}`);
  }
  if (manifest === undefined && header.version !== LOG_VERSION_1) {
    // Only a creation or an upgrade interrupted between the log and the manifest leaves a log
    // without one, and that log is a bare header (no write is acknowledged before the manifest).
    if (logWindow.size !== LOG_HEADER) {
      const found = `${LOG} (generation ${header.generation}, ${logWindow.size} bytes)`;
      throw corrupt(MANIFEST, `missing, although ${found} exists`);
    }
  }
  if (snapshot && header.generation + 1 === generation) return fresh(); // compaction stopped after its snapshot
  if (header.generation !== generation) {
    const after = snapshot ? generation : 'no snapshot';
    throw corrupt(LOG, `generation ${header.generation} does not follow the snapshot's (${after})`);
  }
  const logFile = new ValueFile(LOG);
  // a version-1 log is replaced at once (upgrade): its values are copied, not located in it
  const logOnDiskFrom = header.version === LOG_VERSION_1 ? Infinity : onDiskFrom;
  const { seq, end } = await replayLog(logWindow, header, entries, logFile, logOnDiskFrom);

  // Everything checked: from here on, writes.
  return withSnapshot(async () => {
    await removeTmp();
    if (header.version === LOG_VERSION_1) return upgrade(dir, generation + 1, entries, snapshotFile, onDiskFrom);
    const log = await open(join(dir, LOG), 'r+');
    try {
      if (end < logWindow.size) await log.truncate(end); // the torn tail: a write whose fsync never returned
      // Records replayed from the page cache of a killed process may not be on disk yet; they will be
      // claimed durable by the next slot update, so flush them first.
      await log.datasync();
      if (manifest?.generation !== generation) await writeManifest(dir, generation);
    } catch (error) {
      await log.close();
      throw error;
    }
    logFile.attach(log);
    const { durable: claimed, stamp } = header;
    return { log: logFile, snapshot: snapshotFile, entries, generation, seq, size: end, claimed, stamp };
  });
}

/**
 * A version-1 log, replayed: becomes a snapshot of `generation`, a fresh version-2 log and a manifest. The values
 * the old snapshot held on disk are copied into the new one, and the old one closed.
 */
async function upgrade(
  dir: string,
  generation: number,
  entries: Map<string, IndexValue>,
  oldSnapshot: ValueFile | undefined,
  onDiskFrom: number,
): Promise<Opened> {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const snapshot = await writeSnapshot(dir, generation, sorted, onDiskFrom);
  let log: FileHandle;
  try {
    log = await replaceFile(dir, LOG, logHeader(generation));
    try {
      await writeManifest(dir, generation);
    } catch (error) {
      await log.close();
      throw error;
    }
  } catch (error) {
    await snapshot.file.retire();
    throw error;
  }
  sorted.forEach(([key], i) => {
    const moved = snapshot.values[i];
    if (moved) entries.set(key, moved);
  });
  await oldSnapshot?.retire();
  return emptyLog(log, snapshot.file, entries, generation);
}

/** The state of a store whose log `log` of `generation` is new and empty, its snapshot (if any) `snapshot`. */
function emptyLog(
  log: FileHandle,
  snapshot: ValueFile | undefined,
  entries: Opened['entries'],
  generation: number,
): Opened {
  return {
    log: new ValueFile(LOG, log),
    snapshot,
    entries,
    generation,
    seq: 0,
    size: LOG_HEADER,
    claimed: EMPTY,
    stamp: 1,
  };
}
