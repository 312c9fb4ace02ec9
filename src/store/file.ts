/**
 * The durable store: a directory holding an append-only log, a periodic snapshot and a lock file.
 * Node-only (node:fs, node:os, node:path) — exported from `trainprint/node`, never from the
 * browser-safe entry.
 *
 * Files in the directory:
 *
 * - `store.log` — a 16-byte header `"TPLG" version:u32 generation:u32 crc:u32` (little-endian;
 *   crc = CRC-32 of the first 12 bytes), then records
 *   `length:u32 seq:u32 crc:u32 payload[length]`, where `seq` counts 1, 2, 3… within the log,
 *   `crc` = CRC-32 of the 8 bytes `length seq` followed by the payload, and the payload is msgpack
 *   `{ ops: [{ type: 'put', key, value: bin } | { type: 'delete', key }] }` with each value kept
 *   in its encoded form (bin), so replay hands the index the very bytes it stored. One record per
 *   group commit: all the writes acknowledged by one fsync, applied all or nothing.
 * - `snapshot` — `"TPSN" version:u32 generation:u32 length:u32 crc:u32 payload[length]`, crc =
 *   CRC-32 of the first 16 bytes followed by the payload, payload = msgpack
 *   `{ entries: [[key, bin], …] }` in key order: the whole state when log `generation` began.
 * - `LOCK` — JSON `{ pid, hostname, started, bootId, token }`, created with O_EXCL.
 * - `*.tmp` — a compaction or log creation in progress; removed on open.
 *
 * Durability: every acknowledged write has been appended and `fdatasync`ed before its promise
 * resolves (fdatasync also flushes the file size, which an append needs to be readable). Files
 * are replaced only by write tmp → fsync → rename → fsync the directory. That protects
 * acknowledged writes against the process crashing or being killed, and against an OS crash or
 * power loss on a disk that honours flushes. It does NOT protect against a disk or virtual disk
 * that acknowledges flushes it has not done (some consumer SSDs, `nobarrier` mounts, VM caches
 * configured as unsafe), against two hosts sharing the directory over a network filesystem (the
 * lock is only checked on this host), or against the directory being deleted or edited.
 *
 * Recovery on open: read the snapshot (if any), then the log.
 * - Log generation = snapshot generation (0 when there is no snapshot): replay the log on it.
 * - Log generation = snapshot generation − 1: a compaction stopped after its snapshot was in place;
 *   the snapshot already holds every record of that log, which is replaced by an empty one.
 * - Records are read in order. The first damaged one (cut short, CRC mismatch, bad seq) is a torn
 *   write from a crash if no intact record with a later seq exists anywhere after it: the file is
 *   truncated back to the last good record (that write was never acknowledged — its fsync had not
 *   returned). If an intact later record does exist, acknowledged data was damaged: STORE_CORRUPT.
 * - Anything else (bad header, CRC-valid but malformed payload, unknown version, generations that
 *   do not fit, a log missing beside a snapshot) is STORE_CORRUPT. Nothing is repaired silently.
 */
import { mkdir, open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Decoder, Encoder } from '@msgpack/msgpack';
import { TrainprintError } from '../errors.js';
import { crc32 } from '../util/crc32.js';
import { SortedIndex, StoreCore, type EncodedOp } from './memory.js';
import { errno, writeFully } from './fsutil.js';
import { acquireLock, releaseLock, type HeldLock } from './lock.js';

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
}

const LOG = 'store.log';
const SNAPSHOT = 'snapshot';
const VERSION = 1;
const LOG_MAGIC = [0x54, 0x50, 0x4c, 0x47]; // "TPLG"
const SNAPSHOT_MAGIC = [0x54, 0x50, 0x53, 0x4e]; // "TPSN"
const LOG_HEADER = 16;
const RECORD_HEADER = 12;
const SNAPSHOT_HEADER = 20;

const encoder = new Encoder();
const decoder = new Decoder();

function corrupt(file: string, why: string): TrainprintError {
  return new TrainprintError('STORE_CORRUPT', `${file}: ${why}`);
}


function hasMagic(bytes: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

// ---------------------------------------------------------------------------------------------
// Encoding of the two file formats

function logHeader(generation: number): Uint8Array {
  const out = new Uint8Array(LOG_HEADER);
  const dv = new DataView(out.buffer);
  out.set(LOG_MAGIC, 0);
  dv.setUint32(4, VERSION, true);
  dv.setUint32(8, generation, true);
  dv.setUint32(12, crc32(out.subarray(0, 12)), true);
  return out;
}

function frameRecord(seq: number, ops: readonly EncodedOp[]): Uint8Array {
  const payload = encoder.encode({ ops: ops.map((op) => (op.type === 'put' ? { type: 'put', key: op.key, value: op.value } : { type: 'delete', key: op.key })) });
  const out = new Uint8Array(RECORD_HEADER + payload.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, payload.length, true);
  dv.setUint32(4, seq, true);
  out.set(payload, RECORD_HEADER);
  dv.setUint32(8, crc32(payload, crc32(out.subarray(0, 8))), true);
  return out;
}

function encodeSnapshot(generation: number, index: SortedIndex): Uint8Array {
  const payload = encoder.encode({ entries: [...index.entries()] });
  const out = new Uint8Array(SNAPSHOT_HEADER + payload.length);
  const dv = new DataView(out.buffer);
  out.set(SNAPSHOT_MAGIC, 0);
  dv.setUint32(4, VERSION, true);
  dv.setUint32(8, generation, true);
  dv.setUint32(12, payload.length, true);
  out.set(payload, SNAPSHOT_HEADER);
  dv.setUint32(16, crc32(payload, crc32(out.subarray(0, 16))), true);
  return out;
}

function decodeSnapshot(bytes: Uint8Array): { generation: number; entries: Map<string, Uint8Array> } {
  if (bytes.length < SNAPSHOT_HEADER || !hasMagic(bytes, SNAPSHOT_MAGIC)) throw corrupt(SNAPSHOT, 'not a trainprint store snapshot');
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = dv.getUint32(4, true);
  if (version !== VERSION) throw corrupt(SNAPSHOT, `written by unsupported format version ${version}`);
  const length = dv.getUint32(12, true);
  if (length !== bytes.length - SNAPSHOT_HEADER) throw corrupt(SNAPSHOT, `${bytes.length} bytes, the header says ${SNAPSHOT_HEADER + length}`);
  const payload = bytes.subarray(SNAPSHOT_HEADER);
  if (crc32(payload, crc32(bytes.subarray(0, 16))) !== dv.getUint32(16, true)) throw corrupt(SNAPSHOT, 'CRC mismatch');
  let decoded: unknown;
  try {
    decoded = decoder.decode(payload);
  } catch (cause) {
    throw corrupt(SNAPSHOT, `unreadable payload (${(cause as Error).message})`);
  }
  const list = (decoded as { entries?: unknown } | null)?.entries;
  if (!Array.isArray(list)) throw corrupt(SNAPSHOT, 'payload has no entries');
  const entries = new Map<string, Uint8Array>();
  for (const e of list) {
    if (!Array.isArray(e) || typeof e[0] !== 'string' || !(e[1] instanceof Uint8Array)) throw corrupt(SNAPSHOT, 'malformed entry');
    entries.set(e[0], new Uint8Array(e[1])); // own copy: a view would pin the whole file buffer
  }
  return { generation: dv.getUint32(8, true), entries };
}

function readLogGeneration(bytes: Uint8Array): number {
  if (bytes.length < LOG_HEADER || !hasMagic(bytes, LOG_MAGIC)) throw corrupt(LOG, 'not a trainprint store log');
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (crc32(bytes.subarray(0, 12)) !== dv.getUint32(12, true)) throw corrupt(LOG, 'header CRC mismatch');
  const version = dv.getUint32(4, true);
  if (version !== VERSION) throw corrupt(LOG, `written by unsupported format version ${version}`);
  return dv.getUint32(8, true);
}

/** The payload of the intact record at `offset` with a seq above `minSeq`, else undefined. */
function recordAt(bytes: Uint8Array, dv: DataView, offset: number, minSeq: number): { seq: number; payload: Uint8Array } | undefined {
  if (offset + RECORD_HEADER > bytes.length) return undefined;
  const length = dv.getUint32(offset, true);
  const seq = dv.getUint32(offset + 4, true);
  if (length === 0 || seq <= minSeq || offset + RECORD_HEADER + length > bytes.length) return undefined;
  const payload = bytes.subarray(offset + RECORD_HEADER, offset + RECORD_HEADER + length);
  if (crc32(payload, crc32(bytes.subarray(offset, offset + 8))) !== dv.getUint32(offset + 8, true)) return undefined;
  return { seq, payload };
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
    if (typeof op?.key === 'string' && op.type === 'put' && op.value instanceof Uint8Array) return { type: 'put', key: op.key, value: new Uint8Array(op.value) };
    throw corrupt(LOG, `record ${seq} has a malformed op`);
  });
}

/**
 * Replays the records of a log onto `entries`. Returns the last seq (= the number of records) and
 * the end of the last good record (the caller truncates a torn tail there). Throws STORE_CORRUPT when a
 * damaged record has an intact later record after it.
 */
function replayLog(bytes: Uint8Array, entries: Map<string, Uint8Array>): { seq: number; end: number } {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = LOG_HEADER;
  let seq = 0;
  while (offset < bytes.length) {
    const record = recordAt(bytes, dv, offset, seq);
    if (record === undefined || record.seq !== seq + 1) {
      // A damaged record: a torn write only if nothing intact follows. The scan is byte by byte
      // because the damaged length field cannot be trusted; it runs only on this rare path.
      for (let o = offset + 1; o + RECORD_HEADER < bytes.length; o++) {
        if (recordAt(bytes, dv, o, seq) !== undefined) {
          throw corrupt(LOG, `the record at byte ${offset} (after seq ${seq}) is damaged but an intact later record follows at byte ${o}`);
        }
      }
      break;
    }
    for (const op of decodeOps(record.payload, record.seq)) {
      if (op.type === 'put') entries.set(op.key, op.value);
      else entries.delete(op.key);
    }
    seq = record.seq;
    offset += RECORD_HEADER + record.payload.length;
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

/** Writes a whole file durably under `name` via `name.tmp` → fsync → rename → fsync dir; returns it open. */
async function replaceFile(dir: string, name: string, bytes: Uint8Array): Promise<FileHandle> {
  const tmp = join(dir, `${name}.tmp`);
  const handle = await open(tmp, 'w');
  try {
    await writeFully(handle, bytes, 0);
    await handle.sync();
    await rename(tmp, join(dir, name));
    await syncDir(dir);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// The lock

interface Recovered {
  readonly dir: string;
  readonly lock: HeldLock;
  readonly log: FileHandle;
  readonly entries: Map<string, Uint8Array>;
  readonly generation: number;
  /** Seq of the last record = records in the log. */
  readonly seq: number;
  readonly size: number;
  readonly compactEvery: number;
}

/**
 * A {@link Store} kept in a directory; see the module comment for formats and guarantees. Made
 * by {@link openFileStore} only. Inside a transaction callback use `tx`, never the store (a store
 * write issued there waits for the transaction, so awaiting it inside never resolves).
 * @example
 * const store: FileStore = await openFileStore('./data')
 * console.log(store.dir)
 */
class FileStore extends StoreCore {
  /** The store's directory. */
  readonly dir: string;
  readonly #lock: HeldLock;
  readonly #compactEvery: number;
  #log: FileHandle;
  #generation: number;
  #seq: number;
  #size: number;

  constructor(r: Recovered) {
    super(new SortedIndex(r.entries));
    this.dir = r.dir;
    this.#lock = r.lock;
    this.#compactEvery = r.compactEvery;
    this.#log = r.log;
    this.#generation = r.generation;
    this.#seq = r.seq;
    this.#size = r.size;
  }

  protected async persist(ops: readonly EncodedOp[]): Promise<void> {
    const record = frameRecord(this.#seq + 1, ops);
    await writeFully(this.#log, record, this.#size);
    await this.#log.datasync();
    this.#seq++;
    this.#size += record.length;
  }

  protected override async afterCommit(): Promise<void> {
    if (this.#seq >= this.#compactEvery) await this.#compact();
  }

  /**
   * Snapshot then fresh log. Crash points: before the snapshot rename → old snapshot + old log;
   * after it → new snapshot + old log (older generation: ignored, it is inside the snapshot);
   * after the log rename → new snapshot + empty new log. Each state holds every acknowledged
   * write, and nothing is appended to the new log before its rename is durable.
   */
  async #compact(): Promise<void> {
    const generation = this.#generation + 1;
    // Encoded synchronously, so it is exactly the committed state = the log's content.
    const snapshot = await replaceFile(this.dir, SNAPSHOT, encodeSnapshot(generation, this.index));
    await snapshot.close();
    const log = await replaceFile(this.dir, LOG, logHeader(generation));
    const old = this.#log;
    this.#log = log;
    this.#generation = generation;
    this.#seq = 0;
    this.#size = LOG_HEADER;
    await old.close();
  }

  protected async release(): Promise<void> {
    try {
      await this.#log.close();
    } finally {
      await releaseLock(this.#lock);
    }
  }
}

export type { FileStore };

/**
 * Opens (creating if needed) the durable store in `dir`: takes the directory's lock, recovers the
 * state from snapshot + log (dropping a torn tail), and returns a {@link Store} whose writes
 * resolve only after fsync. One process at a time: a live holder makes this reject with
 * STORE_LOCKED naming its pid; a lock left by a dead process is recovered. Call `close()` to
 * release the lock.
 *
 * @throws STORE_LOCKED another live process (or this one) has the store open.
 * @throws STORE_CORRUPT the files are damaged beyond a torn last write.
 * @throws INVALID_OPTIONS for a bad `compactEvery` or `lockStaleMs`.
 * @example
 * import { openFileStore } from 'trainprint/node'
 * const store = await openFileStore('./data', { compactEvery: 10_000 })
 * await store.put('work/1', { title: 'Dune' })      // durable once this resolves
 * await store.scan('work/', { limit: 10 })
 * await store.close()
 */
export async function openFileStore(dir: string, options: FileStoreOptions = {}): Promise<FileStore> {
  if (typeof dir !== 'string' || dir.length === 0) throw new TrainprintError('INVALID_INPUT', 'openFileStore needs a directory path');
  const compactEvery = options.compactEvery ?? 10_000;
  const lockStaleMs = options.lockStaleMs ?? 5_000;
  if (!Number.isSafeInteger(compactEvery) || compactEvery < 1 || compactEvery > 0xffffffff) {
    throw new TrainprintError('INVALID_OPTIONS', `compactEvery must be an integer ≥ 1, got ${String(compactEvery)}`);
  }
  if (!(typeof lockStaleMs === 'number' && lockStaleMs >= 0)) {
    throw new TrainprintError('INVALID_OPTIONS', `lockStaleMs must be a number ≥ 0, got ${String(lockStaleMs)}`);
  }
  const created = await mkdir(dir, { recursive: true });
  // A new directory survives an OS crash only once its parent is flushed too.
  if (created !== undefined) {
    for (let p = resolve(dir); p !== dirname(resolve(created)); ) await syncDir((p = dirname(p)));
  }
  const lock = await acquireLock(dir, lockStaleMs);
  try {
    return new FileStore({ ...(await recover(dir)), dir, lock, compactEvery });
  } catch (error) {
    await releaseLock(lock);
    throw error;
  }
}

async function recover(dir: string): Promise<Omit<Recovered, 'dir' | 'lock' | 'compactEvery'>> {
  await Promise.all([rm(join(dir, `${SNAPSHOT}.tmp`), { force: true }), rm(join(dir, `${LOG}.tmp`), { force: true })]);
  const snapshotBytes = await readOptional(join(dir, SNAPSHOT));
  const logBytes = await readOptional(join(dir, LOG));
  const { generation, entries } = snapshotBytes ? decodeSnapshot(snapshotBytes) : { generation: 0, entries: new Map<string, Uint8Array>() };
  const fresh = async () => ({ log: await replaceFile(dir, LOG, logHeader(generation)), entries, generation, seq: 0, size: LOG_HEADER });
  if (logBytes === undefined) {
    if (snapshotBytes) throw corrupt(LOG, 'missing although a snapshot exists');
    return fresh();
  }
  const logGeneration = readLogGeneration(logBytes);
  if (snapshotBytes && logGeneration + 1 === generation) return fresh(); // compaction stopped after its snapshot
  if (logGeneration !== generation) {
    throw corrupt(LOG, `generation ${logGeneration} does not follow the snapshot's (${snapshotBytes ? generation : 'no snapshot'})`);
  }
  const { seq, end } = replayLog(logBytes, entries);
  const log = await open(join(dir, LOG), 'r+');
  try {
    if (end < logBytes.length) {
      await log.truncate(end); // the torn tail: a write whose fsync never returned
      await log.sync();
    }
  } catch (error) {
    await log.close();
    throw error;
  }
  return { log, entries, generation, seq, size: end };
}
