/**
 * Versioned, checksummed binary snapshots of a reference-corpus dataset (kind 'exact' or 'portrait').
 *
 * A snapshot is one msgpack value, a 2-element array `[header, payload]`, laid out exactly as
 *
 * ```text
 * 92                                   fixarray(2)
 * 86 …                                 header: a map of 6 entries, in this order
 *                                        format: 'trainprint.dataset', version: 2 (exact) | 1 (portrait),
 *                                        params: string,
 *                                        kind: 'exact' | 'portrait', counts: { docs, keys },
 *    a8 "checksum" ce XX XX XX XX        checksum: always the last entry, always a uint32 (0xce, big-endian)
 * c6 LL LL LL LL                       payload: always bin32 (length big-endian)
 * …                                    payload bytes: a msgpack map
 *                                        exact:    { descriptor, docs, keys, postDoc, postStart, postEnd, minhash,
 *                                                    texts? }
 *                                        portrait: { descriptor, docs, filters }
 * ```
 *
 * `descriptor` and `docs[i]` are maps (optional fields absent when undefined; `meta` is any
 * msgpack value); `keys` (u64) and `postDoc`/`postStart`/`postEnd` (u32) are `bin` holding the
 * little-endian bytes of the typed arrays. `minhash` is a `bin` of little-endian u32, docs × 128:
 * the one-permutation MinHash signature (k = 128, seed 0) of each document's word 5-grams, in
 * document order (document d at u32 offset d · 128); its length must be exactly docs · 128 · 4
 * bytes. The LSH band maps are not stored: loading rebuilds them from the signatures. `texts`
 * (version 2, optional) is an array with one entry per document: its text as indexed (a str, exactly
 * `chars` UTF-16 units long) or nil when not kept; absent when the dataset keeps no text. A
 * version-1 exact snapshot (no `texts`) restores a dataset that aligns nothing (seed matches only).
 *
 * Portrait payloads (src/datasets/portrait.ts) hold no postings: `filters` is an array of maps
 * `{ keys, k, bits }`, one per filter of the chain: `keys` distinct n-grams stored, `k` bits set per
 * key (1..16), `bits` a `bin` of the blocked-Bloom bits (a positive multiple of 64 bytes, blocks
 * in order, as `MembershipFilter` lays them out). `counts.keys` is the sum of the `keys`. A
 * portrait descriptor may carry `window` (its winnowing window, an integer 1..64).
 *
 * Checksum: CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, init/xorout 0xFFFFFFFF — the
 * zlib/PNG crc32) of every byte of the file except the 4 checksum bytes `XX` themselves, i.e. of
 * `bytes[0, c − 4)` followed by `bytes[c, end)` where `c` is the offset of the payload's `c6` tag.
 * A CRC-32 detects every error burst of up to 32 bits, so any single corrupted byte anywhere in
 * the file is always caught — not just with high probability (corrupting the checksum bytes
 * themselves makes them disagree with the CRC of the rest).
 *
 * Decoding never trusts a length: msgpack's `maxStrLength`/`maxBinLength`/`maxArrayLength`/
 * `maxMapLength` are bounded by the input size, so a hostile file cannot make us allocate more
 * than about its own size. Decoded typed arrays are fresh copies (never views of the input), unless the caller of the
 * lazy decode adopts the input ({@link decodeDatasetLazily}).
 */
import { Decoder, Encoder, ExtData } from '@msgpack/msgpack';
import { TrainprintError, type ErrorCode } from '../errors.js';
import { olderNormalizer } from '../fingerprint/options.js';
import { LITTLE_ENDIAN } from '../util/bytes.js';
import { crc32 } from '../util/crc32.js';
import { readThrough } from '../util/schema-check.js';
import { checkPortraitBackground, type PortraitBackground } from './background.js';
import { commonFault } from './common.js';
import { type PayloadEntry, splitTexts } from './payload-bytes.js';
import {
  arrayHeader,
  binHeader,
  boundedEncode,
  mapHeader,
  packedPieces,
  type PieceOptions,
  textPieces,
} from './msgpack-pieces.js';
import { vouchSpans, wellFormedSpans } from './posting-spans.js';
import { CREATE_DATASET_REQUEST } from './descriptor.js';
import { type LocatorData, locatorFault } from './locator.js';

export { crc32 };

/** The in-memory form of an exact dataset (built by src/datasets/exact.ts). */
export interface ExactDatasetData {
  readonly descriptor: {
    readonly id: string;
    readonly name?: string;
    readonly kind: 'exact';
    readonly models?: readonly string[];
    readonly kb_dataset?: string;
    readonly keep_text?: boolean;
    readonly meta?: unknown;
  };
  /** The fingerprint params id, e.g. 'tp1;nfkccf-u17.0.0.t2;xxh64-rk.v1;word5;seed=0;win=8;mh=off;sh=off'. */
  readonly params: string;
  readonly docs: ReadonlyArray<{
    readonly id: string;
    readonly chars: number;
    readonly tokens: number;
    readonly bytes: number;
    readonly meta?: unknown;
  }>;
  /** Sorted ascending (non-decreasing) winnowed fingerprint hashes. */
  readonly keys: BigUint64Array;
  /** Per key: index into docs. */
  readonly postDoc: Uint32Array;
  /** Per key: UTF-16 start of the shingle in that document. */
  readonly postStart: Uint32Array;
  /** Per key: UTF-16 end (≥ start). */
  readonly postEnd: Uint32Array;
  /** Per document, in order: its {@link EXACT_MINHASH_K}-value MinHash signature (docs × 128 u32). */
  readonly minhash: Uint32Array;
  /** Per document, in order: its text as indexed, or null when not kept (absent: none kept). */
  readonly texts?: ReadonlyArray<string | null>;
}

/** The in-memory form of a portrait dataset (built by src/datasets/portrait.ts). */
export interface PortraitDatasetData {
  readonly descriptor: {
    readonly id: string;
    readonly name?: string;
    readonly kind: 'portrait';
    readonly window?: number;
    readonly models?: readonly string[];
    readonly kb_dataset?: string;
    readonly meta?: unknown;
    /** The measured null of its runs (src/datasets/background.ts). */
    readonly background?: PortraitBackground;
    /** True when the portrait resolves its hits to documents (it keeps a locator, src/datasets/locator.ts). */
    readonly locate?: boolean;
  };
  /** The fingerprint params id (its `win=` is the portrait's window). */
  readonly params: string;
  readonly docs: ExactDatasetData['docs'];
  /** The chain of filters: distinct keys stored, k, and the filter bits (blocks × 64 bytes). */
  readonly filters: ReadonlyArray<{ readonly keys: number; readonly k: number; readonly bits: Uint8Array }>;
  /** Which document section each stored key was first seen in (version 2; src/datasets/locator.ts). */
  readonly locator?: LocatorData;
}

/** Any dataset snapshot's content. */
export type DatasetData = ExactDatasetData | PortraitDatasetData;

/** The `format` string of a dataset snapshot header. */
export const DATASET_FORMAT = 'trainprint.dataset';
/**
 * The newest snapshot layout version: exact snapshots are written as 2 (1 + `texts` and the
 * descriptor's `keep_text`), portraits as 1 (unchanged). Versions 1 and 2 are read.
 */
export const DATASET_VERSION = 2;
/** The oldest version read: an exact version-1 snapshot restores a dataset that keeps no text. */
const OLDEST_VERSION = 1;
/** The version portrait snapshots without a locator are written as (their layout has not changed since 1). */
export const PORTRAIT_VERSION = 1;
/** The version portrait snapshots with a locator (payload `locator`) are written as. */
export const PORTRAIT_LOCATOR_VERSION = 2;
/** Fields of a portrait's `locator` map (src/datasets/locator.ts). */
export const LOCATOR_KEYS = [
  'bits',
  'seed',
  'segment_length',
  'segment_count',
  'section_words',
  'keys',
  'cells',
] as const;

/** Length of the per-document MinHash signature of exact datasets (u32 values). */
export const EXACT_MINHASH_K = 128;

/** Depth limit for `meta` values (the msgpack encoder refuses deeper values anyway). */
const MAX_META_DEPTH = 100;
const HEADER_KEYS = ['format', 'version', 'params', 'kind', 'counts', 'checksum'] as const;
const PAYLOAD_KEYS = ['descriptor', 'docs', 'keys', 'postDoc', 'postStart', 'postEnd', 'minhash'] as const;
/** Optional payload fields of exact snapshots (version 2). */
const PAYLOAD_OPTIONAL = ['texts'] as const;
const PORTRAIT_PAYLOAD_KEYS = ['descriptor', 'docs', 'filters'] as const;
const FILTER_KEYS = new Set(['keys', 'k', 'bits']);
const MAX_FILTER_K = 16;
const DOC_KEYS = new Set(['id', 'chars', 'tokens', 'bytes', 'meta']);

/** The fixed bytes before the checksum value: fixstr(8) "checksum", uint32 tag. */
const CHECKSUM_TAG = Uint8Array.of(0xa8, 0x63, 0x68, 0x65, 0x63, 0x6b, 0x73, 0x75, 0x6d, 0xce);

/** CRC-32 of a snapshot, skipping the 4 checksum bytes just before the payload tag at `c`. */
function snapshotCrc(bytes: Uint8Array, c: number): number {
  return crc32(bytes.subarray(c), crc32(bytes.subarray(0, c - 4)));
}

// ---------------------------------------------------------------------------------------------
// Validation shared by encode (INVALID_INPUT) and decode (SNAPSHOT_INCOMPATIBLE).

export type Fail = (detail: string) => never;

export function failWith(code: ErrorCode): Fail {
  return (detail) => {
    throw new TrainprintError(code, detail);
  };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || ArrayBuffer.isView(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function checkKeys(obj: Record<string, unknown>, allowed: ReadonlySet<string>, what: string, fail: Fail): void {
  for (const k of Object.keys(obj)) if (!allowed.has(k)) fail(`${what} has unknown field ${JSON.stringify(k)}`);
}

/** A file's descriptor of `kind` read through its contract, refused with `fail`; no `common` (a build's option). */
export function checkDescriptor(
  d: unknown,
  fail: Fail,
  kind: 'exact' | 'portrait' = 'exact',
): ExactDatasetData['descriptor'] {
  if (!isPlainObject(d)) fail('descriptor must be an object');
  if (d.kind !== kind) fail(`descriptor.kind must be '${kind}', got ${JSON.stringify(d.kind)}`);
  if (d.common !== undefined) fail('descriptor has unknown field "common"');
  try {
    readThrough(CREATE_DATASET_REQUEST, d, undefined);
  } catch (e) {
    fail(`descriptor.${(e as TrainprintError).detail}`); // the contract refuses with TrainprintError only
  }
  return d as unknown as ExactDatasetData['descriptor'];
}

export function checkDocs(docs: unknown, fail: Fail): ExactDatasetData['docs'] {
  if (!Array.isArray(docs)) fail('docs must be an array');
  for (let i = 0; i < docs.length; i++) {
    const doc: unknown = docs[i];
    if (!isPlainObject(doc)) fail(`docs[${i}] must be an object`);
    checkKeys(doc, DOC_KEYS, `docs[${i}]`, fail);
    if (typeof doc.id !== 'string') fail(`docs[${i}].id must be a string`);
    if (!isCount(doc.chars)) fail(`docs[${i}].chars must be a non-negative integer`);
    if (!isCount(doc.tokens)) fail(`docs[${i}].tokens must be a non-negative integer`);
    if (!isCount(doc.bytes)) fail(`docs[${i}].bytes must be a non-negative integer`);
  }
  return docs as ExactDatasetData['docs'];
}

/** Index of the first key smaller than its predecessor, or −1 (compares u32 halves, no BigInt). */
export function unsortedAt(keys: BigUint64Array): number {
  const w = new Uint32Array(keys.buffer, keys.byteOffset, keys.length * 2);
  const hi = LITTLE_ENDIAN ? 1 : 0;
  const lo = 1 - hi;
  for (let i = 1; i < keys.length; i++) {
    const h0 = w[2 * i - 2 + hi];
    const h1 = w[2 * i + hi];
    if (h1 < h0 || (h1 === h0 && w[2 * i + lo] < w[2 * i - 2 + lo])) return i;
  }
  return -1;
}

/**
 * The postings' columns against the documents: one pass that only says whether all is well (and vouches for the
 * columns to the index laid out from them, ./posting-spans.ts), then, where it is not, the checks that name the fault.
 */
function checkColumns(
  data: Pick<ExactDatasetData, 'keys' | 'postDoc' | 'postStart' | 'postEnd' | 'docs'>,
  docCount: number,
  fail: Fail,
): void {
  if (data.docs.length === docCount) {
    const extent = wellFormedSpans(data);
    if (extent !== null) {
      vouchSpans(data, extent);
      return;
    }
  }
  columnFaults(data, docCount, fail);
}

/** The first fault of the columns, named (a span past its document's end is the index's to refuse: exact.ts). */
function columnFaults(
  data: Pick<ExactDatasetData, 'keys' | 'postDoc' | 'postStart' | 'postEnd'>,
  docCount: number,
  fail: Fail,
): void {
  const { keys, postDoc, postStart, postEnd } = data;
  const n = keys.length;
  if (postDoc.length !== n || postStart.length !== n || postEnd.length !== n) {
    fail(
      `column lengths differ (keys ${n}, postDoc ${postDoc.length}, postStart ${postStart.length}, postEnd ${postEnd.length})`,
    );
  }
  for (let i = 0; i < n; i++) {
    if (postDoc[i] >= docCount) fail(`postDoc[${i}] = ${postDoc[i]} is not a document index (${docCount} documents)`);
    if (postStart[i] > postEnd[i]) fail(`posting ${i} starts after it ends (${postStart[i]} > ${postEnd[i]})`);
  }
  const bad = unsortedAt(keys);
  if (bad >= 0) fail(`keys are not sorted ascending (keys[${bad}] < keys[${bad - 1}])`);
}

/** `texts`: one string (exactly `chars` UTF-16 units long) or null per document. */
export function checkTexts(texts: unknown, docs: ExactDatasetData['docs'], fail: Fail): void {
  if (!Array.isArray(texts)) fail('texts must be an array');
  if (texts.length !== docs.length) {
    fail(`texts has ${texts.length} entries, expected one per document (${docs.length})`);
  }
  for (let i = 0; i < texts.length; i++) {
    const t: unknown = texts[i];
    if (t === null) continue;
    if (typeof t !== 'string') fail(`texts[${i}] must be a string or nil`);
    if (t.length !== docs[i].chars) {
      fail(`texts[${i}] has ${t.length} characters, docs[${i}].chars says ${docs[i].chars}`);
    }
  }
}

export function checkMinhash(minhash: Uint32Array, docCount: number, fail: Fail): void {
  if (minhash.length !== docCount * EXACT_MINHASH_K) {
    fail(
      `minhash has ${minhash.length} values, expected ${docCount} documents × ${EXACT_MINHASH_K} = ${docCount * EXACT_MINHASH_K}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Typed arrays ↔ little-endian bytes.

/** Little-endian bytes of a typed array: a view on little-endian hosts, a swapped copy otherwise. */
export function leBytes(a: BigUint64Array | Uint32Array): Uint8Array {
  const view = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  if (LITTLE_ENDIAN) return view;
  const w = a.BYTES_PER_ELEMENT;
  const out = new Uint8Array(view.length);
  for (let i = 0; i < view.length; i += w) for (let j = 0; j < w; j++) out[i + j] = view[i + w - 1 - j];
  return out;
}

/** Fresh typed array from little-endian bytes (length already checked to be a multiple of the width). */
function fromLE<T extends BigUint64Array | Uint32Array>(bin: Uint8Array, make: (n: number) => T): T {
  const out = make(bin.length / make(0).BYTES_PER_ELEMENT);
  const view = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  if (LITTLE_ENDIAN) view.set(bin);
  else {
    const w = out.BYTES_PER_ELEMENT;
    for (let i = 0; i < bin.length; i += w) for (let j = 0; j < w; j++) view[i + j] = bin[i + w - 1 - j];
  }
  return out;
}

/**
 * A column of an adopted file as a typed array of the file's own bytes, on a little-endian host (else null: a copy).
 * Its bytes are moved back onto the element's alignment first, by at most 7 bytes, over the column's own bin header
 * and key (≥ 7 bytes: the shortest key, "keys", and a bin8's header), which the decode has read already: no fresh
 * pages for the ≈ 20 bytes a posting takes, where a copy of an archive's columns cost more page faults than all the
 * rest of the decode.
 */
function adopted<T extends BigUint64Array | Uint32Array>(
  bin: Uint8Array,
  make: { new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; readonly BYTES_PER_ELEMENT: number },
  adopt: boolean,
): T | null {
  if (!adopt || !LITTLE_ENDIAN) return null;
  const width = make.BYTES_PER_ELEMENT;
  const at = bin.byteOffset - (bin.byteOffset % width);
  if (at !== bin.byteOffset) new Uint8Array(bin.buffer).copyWithin(at, bin.byteOffset, bin.byteOffset + bin.length);
  return new make(bin.buffer, at, bin.length / width);
}

// ---------------------------------------------------------------------------------------------
// Encode.

export function withoutUndefined<T extends Record<string, unknown>>(o: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as Partial<T>;
}

/**
 * Serialise an exact dataset to a snapshot (layout in the module comment). Checks the same
 * invariants as {@link decodeDataset}, so it never writes a file that would be refused. The payload is written in
 * pieces, its texts a bounded piece at a time (./msgpack-pieces.ts: no `encodeInto` view of 2 GiB, where Node 20
 * writes nothing), then copied behind the header into one buffer; `pieces` sets their size (tests pass a small one).
 * @throws INVALID_INPUT when the dataset is malformed (wrong types, unknown descriptor/doc fields,
 *   column lengths differ, postDoc out of range, start > end, keys unsorted, minhash not docs × 128 u32,
 *   meta not msgpack-serialisable, a descriptor or a document's entry of 1 GiB or more,
 *   payload ≥ 4 GiB)
 * @example const bytes = encodeDataset(data); const copy = decodeDataset(bytes, { params: data.params })
 */
export function encodeDataset(data: DatasetData, pieces: PieceOptions = {}): Uint8Array {
  const fail: Fail = failWith('INVALID_INPUT');
  if (data === null || typeof data !== 'object') fail('dataset must be an object');
  if (typeof data.params !== 'string' || data.params.length === 0) fail('params must be a non-empty string');
  if (isPlainObject(data.descriptor) && data.descriptor.kind === 'portrait')
    return encodePortrait(data as PortraitDatasetData, fail, pieces);
  data = data as ExactDatasetData;
  const d = checkDescriptor(data.descriptor, fail);
  const docs = checkDocs(data.docs, fail);
  if (!(data.keys instanceof BigUint64Array)) fail('keys must be a BigUint64Array');
  for (const k of ['postDoc', 'postStart', 'postEnd', 'minhash'] as const) {
    if (!(data[k] instanceof Uint32Array)) fail(`${k} must be a Uint32Array`);
  }
  checkColumns(data, docs.length, fail);
  checkMinhash(data.minhash, docs.length, fail);
  if (data.texts !== undefined) checkTexts(data.texts, docs, fail);
  const exact = data;
  const counts = { docs: docs.length, keys: data.keys.length };
  return frame(() => exactPayload(exact, d, docs, { ...pieces, fresh: true }), data.params, 'exact', counts, fail);
}

/** An exact payload's map (layout in the module comment) as pieces that stay valid: large columns as views. */
function* exactPayload(
  data: ExactDatasetData,
  d: ExactDatasetData['descriptor'],
  docs: ExactDatasetData['docs'],
  pieces: PieceOptions,
): Generator<Uint8Array> {
  const encoder = new Encoder({ ignoreUndefined: true });
  const { id, name, kind, models, kb_dataset, keep_text, meta } = d;
  yield mapHeader(data.texts === undefined ? 7 : 8);
  yield encoder.encode('descriptor');
  yield boundedEncode(
    encoder,
    withoutUndefined({ id, name, kind, models, kb_dataset, keep_text, meta }),
    'descriptor',
  ).slice();
  yield encoder.encode('docs');
  yield* docsPieces(docs, encoder, pieces);
  for (const k of ['keys', 'postDoc', 'postStart', 'postEnd', 'minhash'] as const) {
    yield encoder.encode(k);
    const bytes = leBytes(data[k]);
    yield binHeader(bytes.length);
    yield bytes;
  }
  if (data.texts === undefined) return;
  yield encoder.encode('texts');
  yield arrayHeader(data.texts.length);
  yield* textPieces(data.texts, encoder, pieces);
}

/**
 * The documents' array: its header, then each entry's map as `Encoder` writes it, packed into pieces (one
 * encoding at a time, so that no encoder's buffer grows with the list).
 * @example for (const piece of docsPieces(data.docs, new Encoder({ ignoreUndefined: true }))) write(piece)
 */
export function* docsPieces(
  docs: ExactDatasetData['docs'],
  encoder: Encoder,
  pieces: PieceOptions = {},
): Generator<Uint8Array> {
  yield arrayHeader(docs.length);
  function* maps(): Generator<Uint8Array> {
    for (let i = 0; i < docs.length; i++) {
      const { id, chars, tokens, bytes, meta } = docs[i];
      yield boundedEncode(encoder, withoutUndefined({ id, chars, tokens, bytes, meta }), `docs[${i}]`);
    }
  }
  yield* packedPieces(maps(), pieces);
}

/** Check a portrait's filter chain (same rules for encode and decode). Returns the total keys. */
export function checkFilters(
  filters: unknown,
  fail: Fail,
  bitsLength: (bits: unknown) => number | null = (bits) => (bits instanceof Uint8Array ? bits.length : null),
): number {
  if (!Array.isArray(filters)) fail('filters must be an array');
  let total = 0;
  for (let i = 0; i < filters.length; i++) {
    const f: unknown = filters[i];
    if (!isPlainObject(f)) fail(`filters[${i}] must be a map { keys, k, bits }`);
    checkKeys(f, FILTER_KEYS, `filters[${i}]`, fail);
    if (!isCount(f.keys)) fail(`filters[${i}].keys must be a non-negative integer`);
    if (!(Number.isInteger(f.k) && (f.k as number) >= 1 && (f.k as number) <= MAX_FILTER_K))
      fail(`filters[${i}].k must be an integer in 1..${MAX_FILTER_K}`);
    const bits = bitsLength(f.bits);
    if (bits === null) fail(`filters[${i}].bits must be bin`);
    if (bits === 0 || bits % 64 !== 0) fail(`filters[${i}].bits has ${bits} bytes, not a positive multiple of 64`);
    total += f.keys as number;
  }
  return total;
}

function encodePortrait(data: PortraitDatasetData, fail: Fail, pieces: PieceOptions): Uint8Array {
  const d = checkDescriptor(data.descriptor, fail, 'portrait') as unknown as PortraitDatasetData['descriptor'];
  const docs = checkDocs(data.docs, fail);
  const keys = checkFilters(data.filters, fail);
  const locator = data.locator === undefined ? undefined : checkLocator(data.locator, fail);
  return frame(
    () => portraitPayload(data, d, docs, locator, { ...pieces, fresh: true }),
    data.params,
    'portrait',
    { docs: docs.length, keys },
    fail,
    locator === undefined ? PORTRAIT_VERSION : PORTRAIT_LOCATOR_VERSION,
  );
}

/** A portrait payload's map (layout in the module comment) as pieces that stay valid: the filters' bits as they are. */
function* portraitPayload(
  data: PortraitDatasetData,
  d: PortraitDatasetData['descriptor'],
  docs: PortraitDatasetData['docs'],
  locator: LocatorData | undefined,
  pieces: PieceOptions,
): Generator<Uint8Array> {
  const encoder = new Encoder({ ignoreUndefined: true });
  const { id, name, kind, window, models, kb_dataset, meta, background, locate } = d;
  const descriptor = withoutUndefined({ id, name, kind, window, models, kb_dataset, meta, background, locate });
  yield mapHeader(locator === undefined ? 3 : 4);
  yield encoder.encode('descriptor');
  yield boundedEncode(encoder, descriptor, 'descriptor').slice();
  yield encoder.encode('docs');
  yield* docsPieces(docs, encoder, pieces);
  yield encoder.encode('filters');
  yield arrayHeader(data.filters.length);
  for (const f of data.filters) {
    yield mapHeader(3);
    yield encoder.encode('keys');
    yield encoder.encode(f.keys);
    yield encoder.encode('k');
    yield encoder.encode(f.k);
    yield encoder.encode('bits');
    yield binHeader(f.bits.length);
    yield f.bits;
  }
  if (locator === undefined) return;
  yield encoder.encode('locator');
  // integers and bins only (checkLocator): no string for `encodeInto`, so an encoder's buffer of any size writes it
  yield encoder.encode(locator);
}

/**
 * The bytes of a snapshot before its payload (layout in the module comment): the header with the
 * checksum value and the payload length (its last 4 bytes) left 0 for the caller to fill in.
 * The bin32 tag of the payload is at `length − 5`.
 */
export function snapshotHead(
  params: string,
  kind: 'exact' | 'portrait',
  counts: { docs: number; keys: number },
  version: number = kind === 'portrait' ? PORTRAIT_VERSION : DATASET_VERSION,
): Uint8Array {
  const head = new Encoder().encode({ format: DATASET_FORMAT, version, params, kind, counts });
  // head is a fixmap of 5 entries (0x85); the checksum entry is appended by hand so that it has a
  // fixed encoding and position.
  const c = 1 + head.length + CHECKSUM_TAG.length + 4;
  const out = new Uint8Array(c + 5);
  out[0] = 0x92; // fixarray of 2
  out.set(head, 1);
  out[1] = 0x86; // fixmap of 6
  out.set(CHECKSUM_TAG, 1 + head.length);
  out[c] = 0xc6; // bin32
  return out;
}

/**
 * The header + checksum + payload framing shared by every kind (layout in the module comment): the payload's pieces
 * gathered, then copied behind the header into one buffer of the file's exact size.
 */
function frame(
  payload: () => Iterable<Uint8Array>,
  params: string,
  kind: 'exact' | 'portrait',
  counts: { docs: number; keys: number },
  fail: Fail,
  version?: number,
): Uint8Array {
  const pieces: Uint8Array[] = [];
  let length = 0;
  try {
    for (const piece of payload()) {
      pieces.push(piece);
      length += piece.length;
    }
  } catch (e) {
    if (e instanceof TrainprintError) throw e;
    throw new TrainprintError('INVALID_INPUT', `dataset cannot be serialised (${(e as Error).message})`, { cause: e });
  }
  if (length > 0xffffffff) fail('dataset too large for one snapshot (payload ≥ 4 GiB)');

  const head = snapshotHead(params, kind, counts, version);
  const c = head.length - 5; // offset of the payload's bin32 tag
  const out = new Uint8Array(head.length + length);
  out.set(head);
  new DataView(out.buffer).setUint32(c + 1, length, false);
  let at = head.length;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  new DataView(out.buffer).setUint32(c - 4, snapshotCrc(out, c), false);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Decode.

/**
 * The dataset id a dataset file declares (`payload.descriptor.id`), or null when the file cannot be read that far —
 * read before anything is loaded under it. Decoding gives views of the bytes, not copies, so a large file costs
 * little more than its document list.
 * @example declaredDatasetId(engine.exportDataset('books')) // 'books'
 */
export function declaredDatasetId(bytes: Uint8Array): string | null {
  try {
    const top = decodeBounded(bytes, 'snapshot');
    if (!Array.isArray(top) || top.length !== 2 || !(top[1] instanceof Uint8Array)) return null;
    const payload = decodeBounded(top[1], 'payload') as { descriptor?: { id?: unknown } } | null;
    const id = payload?.descriptor?.id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/** msgpack decode with every length bounded by the input size; msgpack errors become `fail`. */
function decodeBounded(bytes: Uint8Array, what: string): unknown {
  try {
    return boundedDecoder(bytes.length).decode(bytes);
  } catch (e) {
    throw decodeFailure(e, what);
  }
}

/** A msgpack decoder that refuses any length over `max` (the input's size). */
function boundedDecoder(max: number): Decoder {
  return new Decoder({
    maxStrLength: max,
    maxBinLength: max,
    maxArrayLength: max,
    maxMapLength: max,
    maxExtLength: max,
  });
}

/** msgpack's error `e` in decoding `what` as the snapshot's refusal. */
function decodeFailure(e: unknown, what: string): TrainprintError {
  const msg = e instanceof Error ? e.message : String(e);
  let detail: string;
  if (msg.startsWith('Insufficient data')) detail = `${what} is truncated (${msg})`;
  else if (msg.startsWith('Extra ')) detail = `${what} has trailing bytes (${msg})`;
  else detail = `${what} is not valid msgpack (${msg})`;
  return new TrainprintError('SNAPSHOT_INCOMPATIBLE', detail, { cause: e });
}

/** A checked descriptor, copied (meta detached from the input); `extra` holds the kind's own fields. */
function copyDescriptor(
  d: { id: string; name?: string; models?: readonly string[]; kb_dataset?: string; meta?: unknown },
  extra: Record<string, unknown>,
  fail: Fail,
): Record<string, unknown> {
  return withoutUndefined({
    id: d.id,
    name: d.name,
    ...extra,
    models: d.models === undefined ? undefined : [...d.models],
    kb_dataset: d.kb_dataset,
    meta: 'meta' in d ? detach(d.meta, 0, fail) : undefined,
  });
}

/** Checked document records, copied (meta detached from the input). */
function copyDocs(
  docs: ReadonlyArray<{ id: string; chars: number; tokens: number; bytes: number; meta?: unknown }>,
  fail: Fail,
) {
  return docs.map((x) =>
    'meta' in x
      ? { id: x.id, chars: x.chars, tokens: x.tokens, bytes: x.bytes, meta: detach(x.meta, 0, fail) }
      : { id: x.id, chars: x.chars, tokens: x.tokens, bytes: x.bytes },
  );
}

/** Deep copy of a decoded meta value so that no Uint8Array in it aliases the input. */
function detach(v: unknown, depth: number, fail: Fail): unknown {
  if (depth > MAX_META_DEPTH) fail('meta is nested too deeply');
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Uint8Array) return v.slice();
  if (v instanceof ExtData) return new ExtData(v.type, v.data instanceof Uint8Array ? v.data.slice() : v.data);
  if (Array.isArray(v)) return v.map((x) => detach(x, depth + 1, fail));
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = detach(x, depth + 1, fail);
    return out;
  }
  return v; // Date (msgpack timestamp) and other immutable-enough values
}

function column(payload: Record<string, unknown>, name: string, width: number, count: number, fail: Fail): Uint8Array {
  const bin = payload[name];
  if (!(bin instanceof Uint8Array)) fail(`payload.${name} must be bin`);
  if (bin.length !== count * width)
    fail(`payload.${name} has ${bin.length} bytes, expected ${count} × ${width} = ${count * width}`);
  return bin;
}

/**
 * Restore a dataset written by {@link encodeDataset}. The result shares no memory with `bytes`.
 * @param expect `params`: the fingerprint params id the caller requires; a different one is refused.
 * @throws INVALID_INPUT when `bytes` is not a Uint8Array; INVALID_OPTIONS when `expect` is malformed;
 *   SNAPSHOT_INCOMPATIBLE when the bytes are empty, truncated, have trailing bytes, fail the checksum,
 *   have another format, version or params, or are internally inconsistent
 * @example const data = decodeDataset(bytes, { params: engine.params })
 */
export function decodeDataset(bytes: Uint8Array, expect?: { params?: string; kind?: 'exact' }): ExactDatasetData;
export function decodeDataset(bytes: Uint8Array, expect: { params?: string; kind: 'portrait' }): PortraitDatasetData;
export function decodeDataset(bytes: Uint8Array, expect: { params?: string; kind: 'any' }): DatasetData;
export function decodeDataset(
  bytes: Uint8Array,
  expect?: { params?: string; kind?: 'exact' | 'portrait' | 'any' },
): DatasetData {
  return decodeWith(bytes, expect, false);
}

/**
 * {@link decodeDataset} of a portrait whose bytes the caller hands to an import and then drops, as a reference pack is
 * loaded (src/packs/pack.ts, with {@link withDecodedAhead}): the same checks and data, but each filter's bits are a
 * view of `bytes` rather than a copy, since the import copies them into the core at once and keeps no view of them.
 * The default packs' filters are about 30 MB, copied once instead of twice on each `trainprint analyze`; on a guest
 * whose page faults cost 13 µs, the copy's fresh pages alone cost about 0.1 s. Nothing else of the data aliases
 * `bytes` (the documents and the locator are copies, as the dataset keeps them), and the caller must not change
 * `bytes` before the import has read them, as for any import.
 * @example await withDecodedAhead(bytes, decodePortraitForImport(bytes), () => engine.importDataset(bytes))
 */
export function decodePortraitForImport(bytes: Uint8Array): PortraitDatasetData {
  return decodeWith(bytes, { kind: 'portrait' }, false, true) as PortraitDatasetData;
}

/**
 * {@link decodeDataset} of any kind for a dataset loaded into memory: an exact dataset's kept texts stay UTF-8
 * ({@link LazyTexts}, decoded one document at a time when it is first aligned) instead of being decoded whole —
 * a scan aligns a few of its documents, and decoding them all was most of an import's time after the CRC.
 * Everything else is checked as {@link decodeDataset} checks it; a text's length in UTF-16 units is checked when
 * it is decoded. With `adopt` the caller hands `bytes` over (it will neither read nor change them again): the
 * columns and the texts are then the file's own bytes (the columns moved onto their alignment in place) instead of
 * copies of all but a few bytes of the file, whose fresh pages cost a one-shot scan more than the rest of the decode.
 * @example const data = decodeDatasetLazily(bytes); ExactDataset.fromData(core, data) // texts decoded on use
 */
export function decodeDatasetLazily(
  bytes: Uint8Array,
  options: { readonly adopt?: boolean } = {},
): DatasetData & { readonly lazyTexts?: LazyTexts } {
  const ahead = decodedAhead.get(bytes);
  if (ahead !== undefined) {
    decodedAhead.delete(bytes);
    return ahead;
  }
  return decodeWith(bytes, { kind: 'any' }, true, options.adopt === true);
}

/** Portraits decoded by {@link withDecodedAhead}, for the one {@link decodeDatasetLazily} of the same bytes. */
const decodedAhead = new WeakMap<Uint8Array, PortraitDatasetData>();

/**
 * Runs `run` with `data`, the portrait that {@link decodeDataset} made of `bytes`, handed to the first
 * {@link decodeDatasetLazily} of the same bytes in it, which takes it instead of decoding them again (a portrait
 * decodes the same either way); not taken by then, it is dropped when `run` settles. For a caller that decoded a file
 * to check it and then imports it, as a reference pack is loaded (src/packs/pack.ts): the default packs' 36 MB were
 * decoded twice on each `trainprint analyze`. The caller must not change `bytes` meanwhile, as for any import.
 * @example await withDecodedAhead(bytes, decodeDataset(bytes, { kind: 'portrait' }), () => engine.importDataset(bytes))
 */
export async function withDecodedAhead<T>(
  bytes: Uint8Array,
  data: PortraitDatasetData,
  run: () => Promise<T>,
): Promise<T> {
  decodedAhead.set(bytes, data);
  try {
    return await run();
  } finally {
    decodedAhead.delete(bytes);
  }
}

function decodeWith(
  bytes: Uint8Array,
  expect: { params?: string; kind?: 'exact' | 'portrait' | 'any' } | undefined,
  lazy: boolean,
  adopt = false,
): DatasetData & { readonly lazyTexts?: LazyTexts } {
  if (!(bytes instanceof Uint8Array))
    throw new TrainprintError('INVALID_INPUT', 'a dataset snapshot must be a Uint8Array');
  if (
    expect !== undefined &&
    (expect === null ||
      typeof expect !== 'object' ||
      (expect.params !== undefined && typeof expect.params !== 'string') ||
      (expect.kind !== undefined && expect.kind !== 'exact' && expect.kind !== 'portrait' && expect.kind !== 'any'))
  ) {
    throw new TrainprintError(
      'INVALID_OPTIONS',
      "expect must be { params?: string, kind?: 'exact' | 'portrait' | 'any' }",
    );
  }
  const wanted = expect?.kind ?? 'exact';
  const fail: Fail = failWith('SNAPSHOT_INCOMPATIBLE');
  if (bytes.length === 0) fail('empty input');
  if (bytes[0] !== 0x92) fail('not a trainprint dataset snapshot (does not start with a 2-element msgpack array)');

  const top = decodeBounded(bytes, 'snapshot');
  if (!Array.isArray(top) || top.length !== 2)
    fail('not a trainprint dataset snapshot (top level is not [header, payload])');
  const [header, payload] = top as [unknown, unknown];
  if (!isPlainObject(header)) fail('header is not a map');
  if (header.format !== DATASET_FORMAT)
    fail(`not a trainprint dataset snapshot (format ${JSON.stringify(header.format)}, expected "${DATASET_FORMAT}")`);
  const version = header.version;
  if (typeof version !== 'number' || !Number.isInteger(version)) fail('header.version must be an integer');
  if (version > DATASET_VERSION)
    fail(`snapshot version ${version} is newer than this library supports (${DATASET_VERSION}); upgrade trainprint`);
  if (version < OLDEST_VERSION) {
    fail(`snapshot version ${version} is older than this library supports (${OLDEST_VERSION}); rebuild the dataset`);
  }
  checkKeys(header, new Set(HEADER_KEYS), 'header', fail);
  for (const k of HEADER_KEYS) if (!(k in header)) fail(`header.${k} is missing`);
  const { params, kind, counts, checksum } = header;
  if (typeof params !== 'string' || params.length === 0) fail('header.params must be a non-empty string');
  if (kind !== 'exact' && kind !== 'portrait')
    fail(`dataset kind ${JSON.stringify(kind)} is not supported (expected "exact" or "portrait")`);
  if (wanted !== 'any' && kind !== wanted) fail(`dataset kind ${JSON.stringify(kind)} is not the expected "${wanted}"`);
  if (!isPlainObject(counts)) fail('header.counts must be a map');
  checkKeys(counts, new Set(['docs', 'keys']), 'header.counts', fail);
  const docCount = counts.docs;
  const keyCount = counts.keys;
  if (!isCount(docCount) || !isCount(keyCount))
    fail('header.counts.docs and header.counts.keys must be non-negative integers');
  if (typeof checksum !== 'number' || !Number.isInteger(checksum) || checksum < 0 || checksum > 0xffffffff)
    fail('header.checksum must be a u32');
  if (!(payload instanceof Uint8Array)) fail('payload must be bin');

  const c = bytes.length - payload.length - 5; // the payload is last: its bin32 tag is here
  const at = c - 4 - CHECKSUM_TAG.length;
  if (at < 1 || bytes[c] !== 0xc6 || CHECKSUM_TAG.some((b, i) => bytes[at + i] !== b)) {
    fail('checksum is not where it belongs (last header entry as uint32, followed by the payload as bin32)');
  }
  const stored = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(c - 4, false);
  const actual = snapshotCrc(bytes, c);
  if (stored !== checksum || actual !== checksum) {
    fail(
      `checksum mismatch (stored CRC-32 0x${checksum.toString(16).padStart(8, '0')}, computed 0x${actual.toString(16).padStart(8, '0')}): the snapshot is corrupted`,
    );
  }
  if (expect?.params !== undefined && expect.params !== params) {
    const older = olderNormalizer(params, expect.params);
    fail(`params mismatch: snapshot has ${JSON.stringify(params)}, expected ${JSON.stringify(expect.params)}${older}`);
  }

  const split = lazy && kind === 'exact' ? splitTexts(payload, adopt) : null;
  const body = split ? decodeEntries(payload, split.entries) : decodeBounded(payload, 'payload');
  if (!isPlainObject(body)) fail('payload is not a map');
  if (kind === 'portrait') return decodePortrait(body, params, docCount, keyCount, fail, version, adopt);
  checkKeys(body, new Set([...PAYLOAD_KEYS, ...(version >= 2 ? PAYLOAD_OPTIONAL : [])]), 'payload', fail);
  for (const k of PAYLOAD_KEYS) if (!(k in body)) fail(`payload.${k} is missing`);
  const d = checkDescriptor(body.descriptor, fail);
  const docs = checkDocs(body.docs, fail);
  if (docs.length !== docCount) fail(`header says ${docCount} documents, payload has ${docs.length}`);
  const keysBin = column(body, 'keys', 8, keyCount, fail);
  const docBin = column(body, 'postDoc', 4, keyCount, fail);
  const startBin = column(body, 'postStart', 4, keyCount, fail);
  const endBin = column(body, 'postEnd', 4, keyCount, fail);
  const minhashBin = column(body, 'minhash', 4, docCount * EXACT_MINHASH_K, fail);

  const data: ExactDatasetData = {
    descriptor: copyDescriptor(
      d,
      { kind: 'exact' as const, keep_text: d.keep_text },
      fail,
    ) as ExactDatasetData['descriptor'],
    params,
    docs: copyDocs(docs, fail),
    keys: adopted(keysBin, BigUint64Array, adopt) ?? fromLE(keysBin, (n) => new BigUint64Array(n)),
    postDoc: adopted(docBin, Uint32Array, adopt) ?? fromLE(docBin, (n) => new Uint32Array(n)),
    postStart: adopted(startBin, Uint32Array, adopt) ?? fromLE(startBin, (n) => new Uint32Array(n)),
    postEnd: adopted(endBin, Uint32Array, adopt) ?? fromLE(endBin, (n) => new Uint32Array(n)),
    minhash: adopted(minhashBin, Uint32Array, adopt) ?? fromLE(minhashBin, (n) => new Uint32Array(n)),
  };
  checkColumns(data, docCount, fail);
  checkMinhash(data.minhash, docCount, fail);
  if (split) {
    if (split.starts.length !== docs.length) {
      fail(`texts has ${split.starts.length} entries, expected one per document (${docs.length})`);
    }
    return { ...data, lazyTexts: new LazyTexts(split.bytes, split.starts, split.ends, docs) };
  }
  if (body.texts === undefined) return data;
  checkTexts(body.texts, docs, fail);
  return { ...data, texts: (body.texts as Array<string | null>).slice() };
}

/**
 * The kept texts of an exact dataset as the msgpack strs of its file: text d is decoded when {@link get} first asks for it
 * (the caller keeps the string), and its length checked against `docs[d].chars` then.
 * @example lazy.has(3) && lazy.get(3).length === docs[3].chars
 */
export class LazyTexts {
  constructor(
    /** The texts' msgpack strs, one after another (a copy, so the rest of the file is not kept; a view of an adopted file). */
    private readonly bytes: Uint8Array,
    /** Per document: where its text's msgpack str (header and UTF-8) starts in `bytes`, or −1 for nil (not kept). */
    private readonly starts: Float64Array,
    private readonly ends: Float64Array,
    private readonly docs: ExactDatasetData['docs'],
  ) {}

  /** Whether document `d` has a kept text. */
  has(d: number): boolean {
    return d >= 0 && d < this.starts.length && this.starts[d] >= 0;
  }

  /**
   * Document `d`'s text (null when not kept).
   * @throws SNAPSHOT_INCOMPATIBLE when its length is not the `chars` of its entry in `docs`
   */
  get(d: number): string | null {
    if (!this.has(d)) return null;
    // the msgpack str as a whole, by the decoder decodeDataset uses: the same string (a lone surrogate too)
    const text = decodeBounded(this.bytes.subarray(this.starts[d], this.ends[d]), `texts[${d}]`) as string;
    if (text.length !== this.docs[d].chars) {
      failWith('SNAPSHOT_INCOMPATIBLE')(
        `texts[${d}] has ${text.length} characters, docs[${d}].chars says ${this.docs[d].chars}`,
      );
    }
    return text;
  }
}

/**
 * The payload map's entries other than `texts` (./payload-bytes.ts) as the object msgpack's decode of the whole map
 * makes without them: each value not read already decoded in place, so that its bins are views of `payload` (the
 * columns, copied once, by {@link fromLE}).
 */
function decodeEntries(payload: Uint8Array, entries: readonly PayloadEntry[]): Record<string, unknown> {
  const decoder = boundedDecoder(entries.length === 0 ? 0 : entries[entries.length - 1].to - entries[0].keyFrom);
  const body: Record<string, unknown> = {};
  try {
    for (const e of entries) {
      const key = decoder.decode(payload.subarray(e.keyFrom, e.from)) as string;
      body[key] = 'value' in e ? e.value : decoder.decode(payload.subarray(e.from, e.to));
    }
  } catch (e) {
    throw decodeFailure(e, 'payload');
  }
  return body;
}

function decodePortrait(
  body: Record<string, unknown>,
  params: string,
  docCount: number,
  keyCount: number,
  fail: Fail,
  version = PORTRAIT_VERSION,
  adopt = false,
): PortraitDatasetData {
  checkKeys(
    body,
    new Set<string>([...PORTRAIT_PAYLOAD_KEYS, ...(version >= PORTRAIT_LOCATOR_VERSION ? ['locator'] : [])]),
    'payload',
    fail,
  );
  for (const k of PORTRAIT_PAYLOAD_KEYS) if (!(k in body)) fail(`payload.${k} is missing`);
  const d = checkDescriptor(body.descriptor, fail, 'portrait') as unknown as PortraitDatasetData['descriptor'];
  const docs = checkDocs(body.docs, fail);
  if (docs.length !== docCount) fail(`header says ${docCount} documents, payload has ${docs.length}`);
  const keys = checkFilters(body.filters, fail);
  if (keys !== keyCount) fail(`header says ${keyCount} keys, the filters hold ${keys}`);
  const filters = body.filters as PortraitDatasetData['filters'];
  return {
    descriptor: copyDescriptor(
      d,
      {
        kind: 'portrait' as const,
        window: d.window,
        background: d.background === undefined ? undefined : checkPortraitBackground(d.background),
        locate: d.locate,
      },
      fail,
    ) as PortraitDatasetData['descriptor'],
    params,
    docs: copyDocs(docs, fail),
    // an adopted file's filters are its own bytes: an import copies them into the core and keeps no view of them
    filters: filters.map((f) => ({ keys: f.keys, k: f.k, bits: adopt ? f.bits : f.bits.slice() })),
    ...(body.locator === undefined ? {} : { locator: checkLocator(body.locator, fail, true) }),
  };
}

/** Check a portrait's locator map (same rules for encode and decode); `copy` returns fresh cells. */
export function checkLocator(v: unknown, fail: Fail, copy = false): LocatorData {
  if (!isPlainObject(v)) fail('locator must be a map');
  const o = v as Record<string, unknown>;
  checkKeys(o, new Set([...LOCATOR_KEYS, 'shared', 'sections', 'common']), 'locator', fail);
  for (const k of LOCATOR_KEYS) if (!(k in o)) fail(`locator.${k} is missing`);
  if (!(o.cells instanceof Uint8Array)) fail('locator.cells must be bin');
  if (o.shared !== undefined && !(o.shared instanceof Uint8Array)) fail('locator.shared must be bin');
  if (o.sections !== undefined && !(o.sections instanceof Uint8Array)) fail('locator.sections must be bin');
  if (o.common !== undefined && !(o.common instanceof Uint8Array)) fail('locator.common must be bin');
  for (const k of LOCATOR_KEYS.slice(0, 6)) if (!isCount(o[k])) fail(`locator.${k} must be a non-negative integer`);
  const d: LocatorData = {
    bits: o.bits as number,
    seed: o.seed as number,
    segment_length: o.segment_length as number,
    segment_count: o.segment_count as number,
    section_words: o.section_words as number,
    keys: o.keys as number,
    cells: copy ? (o.cells as Uint8Array).slice() : (o.cells as Uint8Array),
    // optional, last: a locator without a shared-text table encodes as it did before there was one
    ...(o.shared === undefined ? {} : { shared: copy ? (o.shared as Uint8Array).slice() : (o.shared as Uint8Array) }),
    // optional, after it: a locator of documents not cut into parts encodes as before
    ...(o.sections === undefined
      ? {}
      : { sections: copy ? (o.sections as Uint8Array).slice() : (o.sections as Uint8Array) }),
    // optional, after it: a locator without common n-grams encodes as before
    ...(o.common === undefined ? {} : { common: copy ? (o.common as Uint8Array).slice() : (o.common as Uint8Array) }),
  };
  const fault = locatorFault(d) ?? (d.common === undefined ? null : commonFault(d.common));
  if (fault) fail(fault);
  return d;
}
