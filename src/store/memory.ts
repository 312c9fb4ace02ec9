/**
 * The in-memory store, and the machinery the file store shares with it: key and value checks,
 * value encoding, the ordered index and the write pipeline ({@link StoreCore}).
 *
 * Browser-safe: no `node:*` import. Values are kept msgpack-encoded, so a value read back is a
 * fresh copy and is exactly what the file store would give back after a restart; a value that
 * msgpack cannot round-trip is refused at write time instead of being silently changed.
 *
 * Write pipeline (both stores): every write and every transaction body is *submitted* through one
 * promise chain, in arrival order, so a transaction's read-modify-write never interleaves with
 * another write. A submitted write is staged (visible to later transactions only) and handed to
 * `persist`; several staged writes that queue up while one `persist` is running go out together in
 * the next one (group commit). A write's promise resolves once the `persist` covering it has
 * returned, and only then does the write reach the committed index that `get` and `scan` read —
 * so plain reads never see a write that is not yet acknowledged.
 */
import { Decoder } from '@msgpack/msgpack';
import { TrainprintError } from '../errors.js';
import { isWellFormed } from '../util/validate.js';
import type { BatchOp, Increment, ScanOptions, Store, Transaction } from './types.js';
import { checkIncrement, incrementIn } from './counter.js';
import { arrayHeader, containerHead, mapHeader, ShrinkingEncoder, valueEnd } from './encoding.js';
import { turnsEvery } from '../util/steps.js';
import { wholePairPieces } from '../util/text-pieces.js';

/**
 * Longest key, in UTF-16 code units.
 * @example
 * await store.put('x'.repeat(MAX_KEY_LENGTH + 1), 1) // rejects with INVALID_INPUT
 */
export const MAX_KEY_LENGTH = 1024;

/** Deepest nesting of arrays/objects in a value (also what stops a cyclic value). */
const MAX_DEPTH = 100;

/** Largest amount of value bytes grouped into one `persist` call (one log record in the file store). */
const MAX_GROUP_BYTES = 4 * 1024 * 1024;

/** A write with its value already encoded: the form the index, the pipeline and the log keep. */
export type EncodedOp =
  | { readonly type: 'put'; readonly key: string; readonly value: Uint8Array }
  | { readonly type: 'delete'; readonly key: string };

/**
 * A value a backend keeps out of memory (the file store: where its bytes lie in one of its files), in the index in
 * place of the bytes; the backend reads it back ({@link StoreCore.readRefs}). `length` is the value's byte count.
 */
export interface ValueRef {
  readonly length: number;
}

/** What the index holds for a key: the encoded value, or a {@link ValueRef} to it. */
export type IndexValue = Uint8Array | ValueRef;

/** A committed write as the index applies it: an {@link EncodedOp} whose value may have become a {@link ValueRef}. */
export type IndexedOp =
  | { readonly type: 'put'; readonly key: string; readonly value: IndexValue }
  | { readonly type: 'delete'; readonly key: string };

/** A layer of pending writes over the index: `null` marks a delete. */
type Layer = ReadonlyMap<string, Uint8Array | null>;

// Encoding is synchronous, so one encoder/decoder pair serves every store. maxDepth sits above our
// own MAX_DEPTH check so that check (with its clear message) is the one that fires.
// a ShrinkingEncoder (./encoding.ts): msgpack's own keeps twice the largest value it ever wrote
const encoder = new ShrinkingEncoder({ maxDepth: MAX_DEPTH + 8 });
const decoder = new Decoder();

// msgpack writes UTF-8, which would turn a lone surrogate into U+FFFD: keys and strings are checked (isWellFormed)

/**
 * Throws INVALID_INPUT unless `key` is a non-empty, well-formed string of at most
 * {@link MAX_KEY_LENGTH} UTF-16 code units.
 * @example
 * checkKey('work/42') // ok
 * checkKey('')        // throws TrainprintError INVALID_INPUT
 */
export function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string')
    throw new TrainprintError('INVALID_INPUT', `a store key must be a string, got ${typeof key}`);
  if (key.length === 0) throw new TrainprintError('INVALID_INPUT', 'a store key must not be empty');
  if (key.length > MAX_KEY_LENGTH) {
    throw new TrainprintError(
      'INVALID_INPUT',
      `a store key is at most ${MAX_KEY_LENGTH} characters, got ${key.length}`,
    );
  }
  if (!isWellFormed(key)) throw new TrainprintError('INVALID_INPUT', 'a store key must not contain a lone surrogate');
}

/**
 * Walks a value and throws INVALID_INPUT at the first part msgpack would not give back unchanged. `at` is the path
 * to `value` (member names and indexes), written out only in the error: a result of many datasets has thousands of
 * elements, and a path string made for each of them was most of the check's cost.
 */
function checkValue(value: unknown, at: Array<string | number>, depth: number): void {
  switch (typeof value) {
    case 'boolean':
    case 'number':
      return;
    case 'string':
      if (!isWellFormed(value)) throw invalidValue(at, 'is a string with a lone surrogate');
      return;
    case 'undefined':
      throw invalidValue(at, 'is undefined (use null, or leave the member out)');
    case 'object':
      break;
    default:
      throw invalidValue(at, `is a ${typeof value}`);
  }
  if (value === null) return;
  if (depth >= MAX_DEPTH) throw invalidValue(at, `nests deeper than ${MAX_DEPTH} levels (or is cyclic)`);
  if (value instanceof Uint8Array) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      at.push(i);
      checkValue(value[i], at, depth + 1);
      at.pop();
    }
    return;
  }
  for (const k of memberNames(value, at)) {
    at.push(k);
    checkValue((value as Record<string, unknown>)[k], at, depth + 1);
    at.pop();
  }
}

/** The member names of a stored object (at `at`), once it is a plain object with storable names. */
function memberNames(value: object, at: ReadonlyArray<string | number>): string[] {
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    const name = (proto as { constructor?: { name?: string } }).constructor?.name ?? 'unknown';
    throw invalidValue(at, `is an instance of ${name}; only plain objects, arrays and Uint8Array are stored`);
  }
  if (Object.getOwnPropertySymbols(value).length > 0) throw invalidValue(at, 'has symbol keys');
  const names = Object.keys(value);
  // msgpack's decoder refuses a __proto__ key, so storing one would make the record unreadable.
  for (const k of names)
    if (k === '__proto__' || !isWellFormed(k))
      throw invalidValue(at, `has an unstorable member name ${JSON.stringify(k)}`);
  return names;
}

/** The error for the part of a stored value at path `at`, named as in code: `.a[2].b`. */
function invalidValue(at: ReadonlyArray<string | number>, why: string): TrainprintError {
  const path = at.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('');
  return new TrainprintError('INVALID_INPUT', `the stored value${path} ${why}`);
}

/**
 * Checks a value and msgpack-encodes it (a copy: later changes to `value` do not reach the store).
 * Throws INVALID_INPUT for undefined members, bigint, functions, symbols, class instances
 * (Date, Map, typed arrays other than Uint8Array…), lone surrogates and nesting over 100 levels.
 * A Buffer is stored as bytes and reads back as a plain Uint8Array; -0 reads back as 0.
 * @example
 * decodeValue(encodeValue({ a: [1, 'x'] })) // { a: [1, 'x'] }
 * encodeValue({ a: undefined })             // throws TrainprintError INVALID_INPUT
 */
export function encodeValue(value: unknown): Uint8Array {
  const prepared = typeof value === 'object' && value !== null ? PREPARED.get(value) : undefined;
  if (prepared) return prepared;
  checkValue(value, [], 0);
  return encodeChecked(value);
}

/** The bytes of each value {@link prepareValue} made, by the token it returned. */
const PREPARED = new WeakMap<object, Uint8Array>();

/**
 * What {@link prepareValue} returns: a value checked and encoded ahead, which a store's `put` (in a transaction, a
 * batch or alone) writes as those bytes when it is the whole value put. Only its size is readable; inside another
 * value it is refused, as any class instance is.
 */
export class PreparedValue {
  /** @param bytes The encoded value's length in bytes. */
  constructor(readonly bytes: number) {
    Object.freeze(this);
  }
}

/**
 * `value` checked and encoded now, with a turn of the event loop every few ms ({@link encodeValueSliced}), for a later
 * put of any of the library's stores (`Store.prepare` gives it): the 10 MB text of a registered work, checked and
 * encoded inside the registry's transaction, held a server's thread 20–35 ms in one step. The same errors as a put of
 * `value` (INVALID_INPUT), raised here; the bytes written are the same.
 * @example const text = await prepareValue(longText); await store.transaction((tx) => tx.put('work-text/1', text))
 */
export async function prepareValue(value: unknown): Promise<PreparedValue> {
  const bytes = await encodeValueSliced(value);
  const token = new PreparedValue(bytes.byteLength);
  PREPARED.set(token, bytes);
  return token;
}

/**
 * The values that msgpack writes in one byte (nil, true, false, −32…127), one shared array each: an index entry's
 * value is often one of them (an audit's text index holds 100,000 `1`s), and a Uint8Array of its own, with its
 * ArrayBuffer, is about 200 bytes of heap an entry. Stored bytes are never written to nor transferred, so sharing one
 * array among entries is safe.
 */
const ONE_BYTE_VALUES: Array<Uint8Array | undefined> = new Array(256);

/** `value`, checked, as msgpack. */
function encodeChecked(value: unknown): Uint8Array {
  if (typeof value === 'string' && value.length >= LONG_STRING) return encodeLongString(value);
  try {
    const bytes = encoder.encode(value);
    if (bytes.byteLength !== 1) return bytes;
    const shared = ONE_BYTE_VALUES[bytes[0]];
    if (shared) return shared;
    ONE_BYTE_VALUES[bytes[0]] = bytes;
    return bytes;
  } catch (cause) {
    throw new TrainprintError('INVALID_INPUT', `the stored value cannot be encoded: ${(cause as Error).message}`, {
      cause,
    });
  }
}

/** Strings of at least this many UTF-16 units, stored as a value of their own, are encoded by {@link encodeLongString}. */
const LONG_STRING = 1 << 16;

const utf8Encoder = new TextEncoder();

/**
 * A string of {@link LONG_STRING} units or more as msgpack writes it, byte for byte: str 32 (0xdb, the UTF-8's length
 * as a big-endian u32, the UTF-8; such a string has at least 65,536 bytes, past str 16), the UTF-8 encoded natively.
 * msgpack's encoder counts the UTF-8 first in a loop of its own, which for the 10 MB text of a registered work held a
 * server's thread 70–90 ms of the store write, where the runtime's encoder takes about 6 ms. The string was checked
 * (well-formed), so its UTF-8 is the one msgpack writes.
 * @example decodeValue(encodeLongString('a'.repeat(70_000))) // 'aaa…'
 */
function encodeLongString(s: string): Uint8Array {
  const utf8 = utf8Encoder.encode(s);
  const out = str32Room(utf8.length);
  out.set(utf8, 5);
  return out;
}

/** Room for a msgpack str 32 of `length` UTF-8 bytes, its header written (0xdb, the length as a big-endian u32). */
function str32Room(length: number): Uint8Array {
  const out = new Uint8Array(5 + length);
  out[0] = 0xdb;
  new DataView(out.buffer).setUint32(1, length);
  return out;
}

/** Arrays of at least this many items, in a value's first {@link SLICED_LEVELS} levels, are encoded item by item. */
const SLICED_ITEMS = 1024;
const SLICED_LEVELS = 3;
/** Milliseconds of encoding between two turns of the event loop. */
const SLICE_MS = 5;

/**
 * Whether `v` holds an array of {@link SLICED_ITEMS} or more, or a string of {@link LONG_STRING} units or more, within
 * its first levels (from `level`).
 */
function hasLargeParts(v: unknown, level: number): boolean {
  if (typeof v === 'string') return v.length >= LONG_STRING;
  if (v === null || typeof v !== 'object' || v instanceof Uint8Array || level >= SLICED_LEVELS) return false;
  if (Array.isArray(v)) return v.length >= SLICED_ITEMS || v.some((x) => hasLargeParts(x, level + 1));
  return Object.values(v).some((x) => hasLargeParts(x, level + 1));
}

/** UTF-16 units of a piece of a long string's check and encoding in {@link encodeLongStringSliced}. */
const STRING_PIECE_UNITS = 1 << 16;

/**
 * {@link encodeLongString} of `s` (at `at` in the value), the same bytes, a piece of {@link STRING_PIECE_UNITS} units at
 * a time with `pause` between: each piece checked for a lone surrogate and encoded, then the pieces copied after the
 * header. No piece ends between the halves of a pair, so a piece is well-formed exactly where the whole is there, and
 * the pieces' UTF-8 is the whole's.
 */
async function encodeLongStringSliced(
  s: string,
  at: ReadonlyArray<string | number>,
  pause: () => Promise<void> | void,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let length = 0;
  for (const piece of wholePairPieces(s, STRING_PIECE_UNITS)) {
    if (!isWellFormed(piece)) throw invalidValue(at, 'is a string with a lone surrogate');
    const utf8 = utf8Encoder.encode(piece);
    parts.push(utf8);
    length += utf8.length;
    await pause();
  }
  const out = str32Room(length);
  let offset = 5;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
    await pause();
  }
  return out;
}

/**
 * {@link encodeValue}, byte for byte, with a turn of the event loop every few ms: the levels of the value above its
 * large arrays are written as msgpack headers and keys, each item of those arrays checked and encoded on its own (a
 * job's catalogue of 100,000 works, 40 MB, held the thread 0.3–0.5 s in one encode), and a long string a piece at a
 * time ({@link encodeLongStringSliced}). A value with neither is encoded as encodeValue does, in one step.
 * @example const bytes = await encodeValueSliced({ works }) // equal to encodeValue({ works })
 */
export async function encodeValueSliced(value: unknown): Promise<Uint8Array> {
  if (!hasLargeParts(value, 0)) return encodeValue(value);
  const pieces: Uint8Array[] = [];
  const pause = turnsEvery(SLICE_MS);
  const at: Array<string | number> = [];
  const put = async (v: unknown, depth: number): Promise<void> => {
    if (typeof v === 'string' && v.length >= LONG_STRING) {
      pieces.push(await encodeLongStringSliced(v, at, pause));
      return;
    }
    if (!hasLargeParts(v, depth)) {
      checkValue(v, at, depth);
      pieces.push(encodeChecked(v));
      return pause();
    }
    const items = Array.isArray(v) ? v : null;
    const names = items ? null : memberNames(v as object, at);
    pieces.push(items ? arrayHeader(items.length) : mapHeader((names as string[]).length));
    const n = items ? items.length : (names as string[]).length;
    for (let i = 0; i < n; i++) {
      const k = items ? i : (names as string[])[i];
      if (!items) pieces.push(encodeChecked(k));
      at.push(k);
      await put(items ? items[i] : (v as Record<string, unknown>)[k], depth + 1);
      at.pop();
    }
  };
  await put(value, 0);
  const out = new Uint8Array(pieces.reduce((t, p) => t + p.byteLength, 0));
  let offset = 0;
  for (const p of pieces) {
    out.set(p, offset);
    offset += p.byteLength;
  }
  return out;
}

/**
 * Decodes bytes made by {@link encodeValue} into a fresh value. Binary members are copied, never
 * views of `bytes`, so mutating the result cannot reach the stored bytes.
 * @example
 * decodeValue(encodeValue(new Uint8Array([1, 2]))) // Uint8Array [1, 2]
 */
export function decodeValue(bytes: Uint8Array): unknown {
  return detachBinaries(decoder.decode(bytes));
}

/** Values of at least this many bytes are decoded by {@link decodeValueSliced} item by item. */
const SLICED_DECODE_BYTES = 1 << 20;

/**
 * {@link decodeValue}, the same value, with a turn of the event loop every few ms: the arrays and maps of the value's
 * first {@link SLICED_LEVELS} levels are read from their msgpack headers and each of their items decoded on its own
 * (a job's item of 100,000 works, 40 MB, held the thread 0.18–0.27 s in one decode when a runner claimed it). A value
 * under {@link SLICED_DECODE_BYTES} is decoded in one step.
 * @example const value = await decodeValueSliced(bytes) // deep-equal to decodeValue(bytes)
 */
export async function decodeValueSliced(bytes: Uint8Array): Promise<unknown> {
  if (bytes.byteLength < SLICED_DECODE_BYTES) return decodeValue(bytes);
  const pause = turnsEvery(SLICE_MS);
  let pos = 0;
  const one = (): unknown => {
    const end = valueEnd(bytes, pos);
    const value = decodeValue(bytes.subarray(pos, end));
    pos = end;
    return value;
  };
  const read = async (level: number): Promise<unknown> => {
    const head = level < SLICED_LEVELS ? containerHead(bytes, pos) : undefined;
    if (!head) {
      const value = one();
      await pause();
      return value;
    }
    pos += head.headerBytes;
    if (head.kind === 'array') {
      const items = new Array<unknown>(head.size);
      for (let i = 0; i < head.size; i++) items[i] = await read(level + 1);
      return items;
    }
    const members: Record<string, unknown> = {};
    for (let i = 0; i < head.size; i++) {
      // as msgpack's decoder: a member name is a string or a number, never __proto__
      const name = one();
      if ((typeof name !== 'string' && typeof name !== 'number') || name === '__proto__')
        throw new TrainprintError('STORE_CORRUPT', `a stored value has a member named ${JSON.stringify(name)}`);
      members[name] = await read(level + 1);
    }
    return members;
  };
  try {
    const value = await read(0);
    if (pos !== bytes.byteLength) throw new RangeError('bytes after the msgpack value');
    return value;
  } catch (cause) {
    if (cause instanceof TrainprintError) throw cause;
    throw new TrainprintError('STORE_CORRUPT', `a stored value cannot be decoded: ${(cause as Error).message}`, {
      cause,
    });
  } finally {
    // msgpack's Decoder keeps the last bytes it decoded, here a view of this value: read from disk, the value's own
    // buffer (megabytes) would stay reachable until the next decode
    decoder.decode(NIL);
  }
}

/** msgpack's nil, decoded to make the shared decoder let go of the bytes it last decoded. */
const NIL = Uint8Array.of(0xc0);

// msgpack decodes `bin` as a subarray of its input; replace each with its own copy.
function detachBinaries(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Uint8Array) return new Uint8Array(v); // a copy, and a plain Uint8Array even if msgpack was fed a Buffer
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = detachBinaries(v[i]);
    return v;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) o[k] = detachBinaries(o[k]);
  return o;
}

/**
 * Checks and encodes the ops of a batch. Throws INVALID_INPUT for a malformed op.
 * @example
 * encodeBatch([{ type: 'put', key: 'a', value: 1 }, { type: 'delete', key: 'b' }])
 */
export function encodeBatch(ops: readonly BatchOp[], encoded?: ReadonlyMap<number, Uint8Array>): EncodedOp[] {
  if (!Array.isArray(ops)) throw new TrainprintError('INVALID_INPUT', 'a batch must be an array of ops');
  return ops.map((op, i) => {
    if (op === null || typeof op !== 'object')
      throw new TrainprintError('INVALID_INPUT', `batch op ${i} is not an object`);
    checkKey(op.key);
    if (op.type === 'put') return { type: 'put', key: op.key, value: encoded?.get(i) ?? encodeValue(op.value) };
    if (op.type === 'delete') return { type: 'delete', key: op.key };
    throw new TrainprintError(
      'INVALID_INPUT',
      `batch op ${i} has type ${JSON.stringify((op as { type?: unknown }).type)}; expected 'put' or 'delete'`,
    );
  });
}

/**
 * {@link encodeBatch}, the values holding a large array encoded first with turns of the event loop
 * ({@link encodeValueSliced}); the same ops, byte for byte.
 * @example const encoded = await encodeBatchSliced([{ type: 'put', key: 'job-items/1', value: [{ works }] }])
 */
export async function encodeBatchSliced(ops: readonly BatchOp[]): Promise<EncodedOp[]> {
  const large = Array.isArray(ops)
    ? ops.flatMap((op, i) => (op?.type === 'put' && hasLargeParts(op.value, 0) ? [i] : []))
    : [];
  if (large.length === 0) return encodeBatch(ops);
  const encoded = new Map<number, Uint8Array>();
  for (const i of large) encoded.set(i, await encodeValueSliced((ops[i] as { value: unknown }).value));
  return encodeBatch(ops, encoded);
}

/**
 * Checks a scan's prefix and options; returns `after` and the limit (Infinity for none).
 * @example checkScan('work/', { limit: 10 }) // { after: undefined, limit: 10 }
 */
export function checkScan(
  prefix: unknown,
  options: ScanOptions | undefined,
): { after: string | undefined; limit: number } {
  if (typeof prefix !== 'string') throw new TrainprintError('INVALID_INPUT', 'a scan prefix must be a string');
  const after = options?.after;
  const limit = options?.limit ?? Infinity;
  if (after !== undefined && typeof after !== 'string')
    throw new TrainprintError('INVALID_INPUT', 'scan option `after` must be a string');
  if (limit !== Infinity && !(Number.isSafeInteger(limit) && limit >= 0)) {
    throw new TrainprintError(
      'INVALID_INPUT',
      `scan option \`limit\` must be a non-negative integer, got ${String(limit)}`,
    );
  }
  return { after, limit };
}

/**
 * An ordered map of key → encoded value: a `Map` for lookups plus a sorted key array for scans.
 * Scans find their start by binary search, so a prefix scan costs O(log n + results). Inserting a
 * new key splices the array (a memmove: ~50 µs at 10⁵ keys); appending in key order is O(1). A
 * B-tree would make inserts O(log n) if stores outgrow that.
 * @example
 * const index = new SortedIndex()
 * index.set('b', encodeValue(2)); index.set('a', encodeValue(1))
 * [...index.keysFrom('')] // ['a', 'b']
 */
export class SortedIndex {
  readonly #map: Map<string, IndexValue>;
  #keys: string[];

  constructor(entries?: Map<string, IndexValue>) {
    this.#map = entries ?? new Map();
    // Bulk load (recovery) sorts once; JS default sort compares strings by UTF-16 code units.
    this.#keys = [...this.#map.keys()].sort();
  }

  /** Number of keys. */
  get size(): number {
    return this.#map.size;
  }

  get(key: string): IndexValue | undefined {
    return this.#map.get(key);
  }

  set(key: string, value: IndexValue): void {
    if (!this.#map.has(key)) {
      const keys = this.#keys;
      if (keys.length === 0 || keys[keys.length - 1] < key) keys.push(key);
      else keys.splice(this.#bound(key, false), 0, key);
    }
    this.#map.set(key, value);
  }

  /** True when the key existed. */
  delete(key: string): boolean {
    if (!this.#map.delete(key)) return false;
    this.#keys.splice(this.#bound(key, false), 1);
    return true;
  }

  /** Drops everything. */
  clear(): void {
    this.#map.clear();
    this.#keys = [];
  }

  /** Keys starting with `prefix` and greater than `after` (when given), in order. */
  *keysFrom(prefix: string, after?: string): Generator<string> {
    const keys = this.#keys;
    let i = after !== undefined && after >= prefix ? this.#bound(after, true) : this.#bound(prefix, false);
    for (; i < keys.length && keys[i].startsWith(prefix); i++) yield keys[i];
  }

  /** Every entry in key order. */
  *entries(): Generator<[string, IndexValue]> {
    for (const key of this.#keys) yield [key, this.#map.get(key)!];
  }

  /** Applies one encoded write. */
  apply(op: IndexedOp): void {
    if (op.type === 'put') this.set(op.key, op.value);
    else this.delete(op.key);
  }

  /**
   * Applies a group of writes, in order. Each new or deleted key out of key order is a splice of the sorted keys (a
   * memmove of all after it): a group of hundreds of new keys at random places (texts indexed by their SHA-256) was
   * hundreds of memmoves of a few hundred thousand keys, 0.3–0.6 s in one go. Past {@link BULK_KEYS} such keys, the
   * keys leaving are filtered out and those arriving merged in, in one pass: O(n + k log k).
   */
  applyAll(ops: readonly IndexedOp[]): void {
    if (ops.length < BULK_KEYS) {
      for (const op of ops) this.apply(op);
      return;
    }
    // whether each key written was in the index before the group
    const was = new Map<string, boolean>();
    for (const op of ops) {
      if (!was.has(op.key)) was.set(op.key, this.#map.has(op.key));
      if (op.type === 'put') this.#map.set(op.key, op.value);
      else this.#map.delete(op.key);
    }
    const arriving: string[] = [];
    const leaving = new Set<string>();
    for (const [key, before] of was) if (this.#map.has(key) !== before) before ? leaving.add(key) : arriving.push(key);
    const kept = leaving.size ? this.#keys.filter((k) => !leaving.has(k)) : this.#keys;
    this.#keys = arriving.length ? mergeSorted(kept, arriving.sort()) : kept;
  }

  /**
   * First index whose key is > `key` (`past`), or ≥ it: a binary search of the sorted keys (strings: the numeric
   * `lowerBound` of src/util/sorted.ts stays on numbers, so its call sites in the kernels stay monomorphic).
   */
  #bound(key: string, past: boolean): number {
    const keys = this.#keys;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < key || (past && keys[mid] === key)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Writes of a group past which {@link SortedIndex.applyAll} merges its new keys in one pass, not one splice each. */
const BULK_KEYS = 64;

/**
 * Two sorted arrays of distinct strings as one sorted array, `b` the short one (a group's new keys): each of its keys
 * placed by a binary search of `a` from the last one's place, the keys of `a` between copied without a comparison.
 * A compare-each-pair merge compared every key of the index once a group (20M comparisons of keys sharing their first
 * 30 characters, 4.4 s, while a 100,000-work audit indexed its texts in 391 groups); this is k·log n comparisons
 * (measured: 50 groups of 1,024 new keys merged into 150,000, 4.9 s pair by pair, 0.9 s so, on a machine at load 40).
 */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let k = 0;
  for (const key of b) {
    let hi = a.length;
    for (let lo = i; lo < hi; ) {
      const mid = (lo + hi) >>> 1;
      if (a[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    while (i < hi) out[k++] = a[i++];
    out[k++] = key;
  }
  while (i < a.length) out[k++] = a[i++];
  return out;
}

/** Reads a key through the layers (last wins) down to the index. */
function lookup(index: SortedIndex, layers: readonly Layer[], key: string): IndexValue | undefined {
  for (let i = layers.length - 1; i >= 0; i--) {
    const v = layers[i].get(key);
    if (v !== undefined) return v ?? undefined;
  }
  return index.get(key);
}

/** Reads a backend's {@link ValueRef}s, in one call for all the values a read needs. */
type RefReader = (refs: readonly ValueRef[]) => Promise<Uint8Array[]>;

/** The encoded bytes of `value` (read through `read` when it is a {@link ValueRef}), decoded. */
async function decodeIndexed(value: IndexValue, read: RefReader): Promise<unknown> {
  return decodeValueSliced(value instanceof Uint8Array ? value : (await read([value]))[0]);
}

/**
 * Ordered scan of the index seen through layers of pending writes: the entries are taken in one step (a consistent
 * view, as a synchronous scan was), then the values kept out of memory read in one call of `read`, then decoded.
 */
async function scanLayers(
  index: SortedIndex,
  layers: readonly Layer[],
  read: RefReader,
  prefix: string,
  after: string | undefined,
  limit: number,
): Promise<Array<[string, unknown]>> {
  const found = collectLayers(index, layers, prefix, after, limit);
  const refs: ValueRef[] = [];
  for (const [, v] of found) if (!(v instanceof Uint8Array)) refs.push(v);
  const bytes = refs.length > 0 ? await read(refs) : [];
  let r = 0;
  return found.map(([key, v]) => [key, decodeValue(v instanceof Uint8Array ? v : bytes[r++])]);
}

/**
 * The entries of an ordered scan, values as the index and layers hold them. The layers are small (pending writes,
 * one transaction's writes), so their matching keys are sorted per call and merged with the index's ordered keys.
 */
function collectLayers(
  index: SortedIndex,
  layers: readonly Layer[],
  prefix: string,
  after: string | undefined,
  limit: number,
): Array<[string, IndexValue]> {
  const out: Array<[string, IndexValue]> = [];
  if (limit === 0) return out;
  const extra = new Set<string>();
  for (const layer of layers) {
    for (const key of layer.keys()) if (key.startsWith(prefix) && (after === undefined || key > after)) extra.add(key);
  }
  const layered = [...extra].sort();
  const base = index.keysFrom(prefix, after);
  let next = base.next();
  let j = 0;
  while (out.length < limit) {
    let key: string;
    if (next.done) {
      if (j >= layered.length) break;
      key = layered[j++];
    } else if (j < layered.length && layered[j] <= next.value) {
      key = layered[j++];
      if (key === next.value) next = base.next();
    } else {
      key = next.value;
      next = base.next();
    }
    const v = lookup(index, layers, key);
    if (v !== undefined) out.push([key, v]);
  }
  return out;
}

/** A queued write: its ops and the settle functions of its promise. */
interface Group {
  readonly ops: readonly EncodedOp[];
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const noop = (): void => {};

/**
 * The shared implementation of {@link Store}: validation, the committed {@link SortedIndex}, the
 * submission chain, staging and group commit. A backend supplies `persist` (make a group of
 * writes durable), optionally `afterCommit` (e.g. compaction) and `release` (on close).
 *
 * If `persist` or `afterCommit` throws, that group's writes reject with the error, every later
 * queued write rejects, and the store refuses all further calls with STORE_CLOSED (after a failed
 * fsync the on-disk state is unknown; reopening recovers it from the files).
 * @example
 * class NullStore extends StoreCore {
 *   protected async persist() { return undefined }
 *   protected async release() {}
 * }
 */
export abstract class StoreCore implements Store {
  /** The committed state: every acknowledged write, nothing else. */
  protected readonly index: SortedIndex;
  /** Effect of staged writes not yet committed; read by transactions only. */
  readonly #pending = new Map<string, Uint8Array | null>();
  #queue: Group[] = [];
  #flushing = false;
  /** The running group-commit loop, awaited by close(). */
  #flushRun: Promise<void> = Promise.resolve();
  /** Serialises submissions (write bodies and transaction callbacks) in arrival order. */
  #chain: Promise<unknown> = Promise.resolve();
  /** Settles when everything staged so far is committed. */
  #lastStaged: Promise<void> = Promise.resolve();
  #state: 'open' | 'closing' | 'closed' = 'open';
  #closing: Promise<void> | undefined;
  #failure: { error: unknown } | undefined;

  protected constructor(index: SortedIndex = new SortedIndex()) {
    this.index = index;
  }

  /**
   * Makes `ops` (several writes, in order) durable as one unit. Never called concurrently. May return the ops as the
   * index is to keep them, some values replaced by {@link ValueRef}s (the file store: to their bytes in its log).
   */
  protected abstract persist(ops: readonly EncodedOp[]): Promise<readonly IndexedOp[] | undefined>;

  /**
   * The bytes of values the index holds as {@link ValueRef}s, in order. Called synchronously from the read that found
   * the references (no await in between), so a backend can hold their files open until the reads are done. A store
   * that makes no references never calls it.
   */
  protected readRefs(_refs: readonly ValueRef[]): Promise<Uint8Array[]> {
    return Promise.reject(new Error('this store keeps no values out of memory'));
  }

  readonly #read: RefReader = (refs) => this.readRefs(refs);

  /** Runs after a group is committed and acknowledged, before the next `persist`. */
  protected afterCommit(): Promise<void> | void {}

  /** Frees resources on close, after the last write has settled. */
  protected abstract release(): Promise<void>;

  async get(key: string): Promise<unknown | undefined> {
    this.#checkOpen();
    checkKey(key);
    const v = this.index.get(key);
    return v === undefined ? undefined : decodeIndexed(v, this.#read);
  }

  async scan(prefix: string, options?: ScanOptions): Promise<Array<[string, unknown]>> {
    this.#checkOpen();
    const { after, limit } = checkScan(prefix, options);
    return scanLayers(this.index, [], this.#read, prefix, after, limit);
  }

  async prepare(value: unknown): Promise<PreparedValue> {
    this.#checkOpen();
    return prepareValue(value);
  }

  async put(key: string, value: unknown): Promise<void> {
    this.#checkOpen();
    checkKey(key);
    const op: EncodedOp = { type: 'put', key, value: encodeValue(value) };
    return this.#submit(() => ({ ops: [op], result: undefined }));
  }

  async delete(key: string): Promise<boolean> {
    this.#checkOpen();
    checkKey(key);
    // Existence is decided at the write's turn in the chain, after every earlier write.
    return this.#submit(() => {
      const existed = lookup(this.index, [this.#pending], key) !== undefined;
      return { ops: existed ? [{ type: 'delete', key }] : [], result: existed };
    });
  }

  async batch(ops: readonly BatchOp[]): Promise<void> {
    this.#checkOpen();
    const encoded = await encodeBatchSliced(ops);
    return this.#submit(() => ({ ops: encoded, result: undefined }));
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T> | T): Promise<T> {
    this.#checkOpen();
    if (typeof fn !== 'function') throw new TrainprintError('INVALID_INPUT', 'transaction() needs a function');
    return this.#submit(async () => {
      const tx = new StoreTransaction(this.index, this.#pending, this.#read);
      let result: T;
      try {
        result = await fn(tx);
      } finally {
        tx.end();
      }
      return { ops: tx.ops(), result };
    });
  }

  /** Adds to a count in a transaction (see {@link Store.increment}). */
  async increment(key: string, by: number, max?: number): Promise<Increment> {
    this.#checkOpen();
    checkKey(key);
    const cap = checkIncrement(by, max);
    return this.transaction((tx) => incrementIn(tx, key, by, cap));
  }

  /** Waits for queued writes, then releases the backend. Calling it again returns the same promise. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#state = 'closing';
      await this.#chain;
      await this.#lastStaged.catch(noop);
      await this.#flushRun; // a compaction may still be running after the last acknowledgement
      this.#state = 'closed';
      this.#pending.clear();
      await this.release();
    })();
    return this.#closing;
  }

  #checkOpen(): void {
    if (this.#state !== 'open') throw new TrainprintError('STORE_CLOSED');
    if (this.#failure) this.#throwFailed();
  }

  #throwFailed(): never {
    const cause = this.#failure!.error;
    throw new TrainprintError(
      'STORE_CLOSED',
      `an earlier write failed (${(cause as Error)?.message ?? String(cause)}); reopen the store`,
      { cause },
    );
  }

  /**
   * Runs `body` at its turn in the chain, stages its ops and resolves once they are committed.
   * A body without ops (read-only transaction, delete of a missing key) still waits for the
   * writes staged before it: what it read may be one of them and must not escape before it is durable.
   */
  #submit<T>(
    body: () => Promise<{ ops: readonly EncodedOp[]; result: T }> | { ops: readonly EncodedOp[]; result: T },
  ): Promise<T> {
    const staged = this.#chain.then(async () => {
      if (this.#failure) this.#throwFailed();
      const { ops, result } = await body();
      if (this.#failure) this.#throwFailed();
      return { committed: ops.length > 0 ? this.#stage(ops) : this.#lastStaged, result };
    });
    this.#chain = staged.then(noop, noop);
    return staged.then(async ({ committed, result }) => {
      await committed;
      return result;
    });
  }

  #stage(ops: readonly EncodedOp[]): Promise<void> {
    let bytes = 0;
    for (const op of ops) {
      this.#pending.set(op.key, op.type === 'put' ? op.value : null);
      bytes += op.key.length + (op.type === 'put' ? op.value.length : 0);
    }
    const committed = new Promise<void>((resolve, reject) => this.#queue.push({ ops, bytes, resolve, reject }));
    committed.catch(noop); // the submitter observes it; this only keeps an unobserved copy quiet
    this.#lastStaged = committed;
    if (!this.#flushing) this.#flushRun = this.#flush();
    return committed;
  }

  /** The group-commit loop: everything queued while one persist runs goes into the next. */
  async #flush(): Promise<void> {
    this.#flushing = true;
    try {
      while (this.#queue.length > 0) {
        let n = 0;
        let bytes = 0;
        while (n < this.#queue.length && (n === 0 || bytes + this.#queue[n].bytes <= MAX_GROUP_BYTES))
          bytes += this.#queue[n++].bytes;
        const groups = this.#queue.slice(0, n);
        this.#queue = this.#queue.slice(n);
        const ops = groups.length === 1 ? groups[0].ops : groups.flatMap((g) => g.ops);
        let indexed: readonly IndexedOp[] | undefined;
        try {
          indexed = await this.persist(ops);
        } catch (error) {
          this.#fail(error, groups);
          return;
        }
        this.index.applyAll(indexed ?? ops);
        for (const op of ops) {
          // Drop the pending entry unless a later staged write replaced it (identity: each
          // encoded value is a distinct array; a later delete leaves `null`, equally shadowed).
          if (this.#pending.get(op.key) === (op.type === 'put' ? op.value : null)) this.#pending.delete(op.key);
        }
        for (const g of groups) g.resolve();
        try {
          await this.afterCommit();
        } catch (error) {
          this.#fail(error, []);
          return;
        }
      }
    } finally {
      this.#flushing = false;
    }
  }

  #fail(error: unknown, groups: readonly Group[]): void {
    this.#failure = { error };
    for (const g of groups) g.reject(error);
    const rest = this.#queue;
    this.#queue = [];
    this.#pending.clear();
    const closed = new TrainprintError(
      'STORE_CLOSED',
      `an earlier write failed (${(error as Error)?.message ?? String(error)})`,
      { cause: error },
    );
    for (const g of rest) g.reject(closed);
  }
}

/**
 * What every store's transaction view shares: writes are kept in the view (a delete as null), encoded and
 * checked as they are made, until the store sends them; after `end` every call throws. The stores differ in how
 * they read (`get`, `scan`) and send the writes.
 */
export abstract class BufferedTransaction implements Transaction {
  /** The writes kept so far, the last one per key (null: a delete). */
  protected writes = new Map<string, Uint8Array | null>();
  #done = false;

  abstract get(key: string): Promise<unknown | undefined>;
  abstract scan(prefix: string, options?: ScanOptions): Promise<Array<[string, unknown]>>;

  put(key: string, value: unknown): void {
    this.checkActive();
    checkKey(key);
    this.writes.set(key, encodeValue(value));
  }

  delete(key: string): void {
    this.checkActive();
    checkKey(key);
    this.writes.set(key, null);
  }

  /** Ends the transaction: later calls on it throw. */
  end(): void {
    this.#done = true;
  }

  protected checkActive(): void {
    // A callback that forgot an `await` would otherwise write after the commit, silently lost.
    if (this.#done) throw new TrainprintError('STORE_CLOSED', 'the transaction has already finished');
  }
}

/** The view a transaction callback gets: its own writes over the staged writes over the index. */
class StoreTransaction extends BufferedTransaction {
  readonly #index: SortedIndex;
  readonly #read: RefReader;
  /**
   * What lies over the index, the later first in a look-up: the staged writes, then this transaction's own (the
   * map itself: this view never swaps it for another).
   */
  readonly #layers: readonly Layer[];

  constructor(index: SortedIndex, pending: Layer, read: RefReader) {
    super();
    this.#index = index;
    this.#read = read;
    this.#layers = [pending, this.writes];
  }

  async get(key: string): Promise<unknown | undefined> {
    this.checkActive();
    checkKey(key);
    const v = lookup(this.#index, this.#layers, key);
    return v === undefined ? undefined : decodeIndexed(v, this.#read);
  }

  async scan(prefix: string, options?: ScanOptions): Promise<Array<[string, unknown]>> {
    this.checkActive();
    const { after, limit } = checkScan(prefix, options);
    return scanLayers(this.#index, this.#layers, this.#read, prefix, after, limit);
  }

  /** The transaction's writes, the last one per key. */
  ops(): EncodedOp[] {
    const ops: EncodedOp[] = [];
    for (const [key, value] of this.writes)
      ops.push(value === null ? { type: 'delete', key } : { type: 'put', key, value });
    return ops;
  }
}

/**
 * A {@link Store} held in memory: for tests, browsers, Deno and short-lived processes. Same
 * semantics as the file store (copies in and out, INVALID_INPUT for unstorable values, serialised
 * transactions), nothing survives the process.
 *
 * Inside a transaction callback use `tx`, never the store: a store write issued there is queued
 * behind the transaction, so awaiting it inside the callback never resolves.
 * @example
 * const store = new MemoryStore()
 * await store.put('work/1', { title: 'Dune' })
 * await store.transaction(async (tx) => {
 *   const n = ((await tx.get('count')) as number | undefined) ?? 0
 *   tx.put('count', n + 1)
 * })
 * await store.scan('work/') // [['work/1', { title: 'Dune' }]]
 */
export class MemoryStore extends StoreCore {
  // biome-ignore lint/complexity/noUselessConstructor: public, where StoreCore's is protected
  constructor() {
    super();
  }

  protected async persist(): Promise<undefined> {
    return undefined; // nothing to write; the index keeps the values themselves
  }

  protected async release(): Promise<void> {
    this.index.clear();
  }
}
