/**
 * Dataset snapshots written a piece at a time: the same bytes as `encodeDataset` (./snapshot.ts),
 * without ever holding the whole file. `encodeDataset` keeps the payload's pieces (its texts and
 * documents copied into them) and then copies them behind the header into one buffer, so exporting
 * an index briefly needs about twice its size; here the large columns are read from the dataset a chunk at a time (sorted columns gathered
 * chunk by chunk), so a writer holds one chunk beyond the index itself.
 *
 * The header holds the payload's length and a CRC-32 of everything after it, both known only at
 * the end: the stream leaves those 9 bytes as zeros and `patch()` gives them once the pieces are
 * consumed (the CRC of the streamed payload is combined with the header's by `crc32Combine`).
 */
import { Encoder } from '@msgpack/msgpack';
import { TrainprintError } from '../errors.js';
import { crc32, crc32Combine } from '../util/crc32.js';
import { arrayHeader, binHeader, boundedEncode, mapHeader, textPieces } from './msgpack-pieces.js';
import {
  checkDescriptor,
  checkDocs,
  checkFilters,
  checkLocator,
  checkMinhash,
  checkTexts,
  docsPieces,
  failWith,
  leBytes,
  PORTRAIT_LOCATOR_VERSION,
  snapshotHead,
  unsortedAt,
  withoutUndefined,
  type ExactDatasetData,
  type Fail,
  type PortraitDatasetData,
} from './snapshot.js';

/** Values of one large column, read a range at a time (each read a fresh array or a view that stays valid). */
export interface Chunked<T extends BigUint64Array | Uint32Array | Uint8Array> {
  readonly length: number;
  read(from: number, to: number): T;
}

/** An exact dataset whose index columns are read in chunks (everything else as in {@link ExactDatasetData}). */
export interface ExactDatasetSource extends Omit<ExactDatasetData, 'keys' | 'postDoc' | 'postStart' | 'postEnd'> {
  /** Sorted ascending. */
  readonly keys: Chunked<BigUint64Array>;
  readonly postDoc: Chunked<Uint32Array>;
  /** postStart ≤ postEnd, per posting: the dataset's own invariant (the decoder checks it again). */
  readonly postStart: Chunked<Uint32Array>;
  readonly postEnd: Chunked<Uint32Array>;
}

/** A portrait whose filter bits are read in chunks. */
export interface PortraitDatasetSource extends Omit<PortraitDatasetData, 'filters'> {
  readonly filters: ReadonlyArray<{ readonly keys: number; readonly k: number; readonly bits: Chunked<Uint8Array> }>;
}

export type DatasetSource = ExactDatasetSource | PortraitDatasetSource;

/** Values per read of a column: 8 MiB of u64 keys, 4 MiB of a u32 column. */
const CHUNK_VALUES = 1 << 20;

/** The 9 bytes to write at `offset` once every piece is written: the checksum, the bin32 tag and the payload length. */
export interface SnapshotPatch {
  readonly offset: number;
  readonly bytes: Uint8Array;
}

/**
 * Options of a {@link SnapshotStream}.
 * @example
 * import { crc32 } from 'node:zlib'
 * const stream = engine.exportDatasetStream('books', { crc32 })
 */
export interface SnapshotStreamOptions {
  /**
   * The CRC-32 (IEEE, as zlib) the pieces are checksummed with, continuing from `crc` (0 at the
   * start): e.g. Node's native `zlib.crc32` (Node ≥ 20.15), which is many times faster than the
   * portable one here. It must give the same values. @default the portable slicing-by-8 CRC-32
   */
  readonly crc32?: (bytes: Uint8Array, crc: number) => number;
}

/**
 * A snapshot as pieces. Write every piece of {@link pieces} in order (a piece may be a view that
 * the next one reuses: consume it before taking the next), then write {@link patch}'s bytes at its
 * offset. The result is byte for byte what `encodeDataset` returns for the same dataset.
 */
export class SnapshotStream {
  private payloadCrc = 0;
  private payloadLength = 0;
  private done = false;
  private readonly head: Uint8Array;
  private readonly crc32: (bytes: Uint8Array, crc: number) => number;

  /**
   * @throws INVALID_INPUT when the dataset is malformed (the checks of `encodeDataset`, with the
   *   column checks made chunk by chunk while streaming); INVALID_OPTIONS (`crc32` not a function)
   */
  constructor(
    private readonly source: DatasetSource,
    options: SnapshotStreamOptions = {},
  ) {
    if (options === null || typeof options !== 'object') {
      throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
    }
    if (options.crc32 !== undefined && typeof options.crc32 !== 'function') {
      throw new TrainprintError('INVALID_OPTIONS', 'crc32 must be a function');
    }
    this.crc32 = options.crc32 ?? crc32;
    const fail = failWith('INVALID_INPUT');
    if (source === null || typeof source !== 'object') fail('dataset must be an object');
    if (typeof source.params !== 'string' || source.params.length === 0) fail('params must be a non-empty string');
    const portrait = (source.descriptor as { kind?: unknown })?.kind === 'portrait';
    checkDescriptor(source.descriptor, fail, portrait ? 'portrait' : 'exact');
    const docs = checkDocs(source.docs, fail);
    let keys: number;
    if (portrait) {
      const filters = (source as PortraitDatasetSource).filters;
      keys = checkFilters(filters, fail, (bits) => {
        const length = (bits as Partial<Chunked<Uint8Array>>)?.length;
        const readable = typeof (bits as Partial<Chunked<Uint8Array>>)?.read === 'function';
        return readable && typeof length === 'number' ? length : null;
      });
    } else {
      const s = source as ExactDatasetSource;
      const n = s.keys.length;
      if (s.postDoc.length !== n || s.postStart.length !== n || s.postEnd.length !== n) {
        const lengths = `postDoc ${s.postDoc.length}, postStart ${s.postStart.length}, postEnd ${s.postEnd.length}`;
        fail(`column lengths differ (keys ${n}, ${lengths})`);
      }
      if (!(s.minhash instanceof Uint32Array)) fail('minhash must be a Uint32Array');
      checkMinhash(s.minhash, docs.length, fail);
      if (s.texts !== undefined) checkTexts(s.texts, docs, fail);
      keys = n;
    }
    const locator = portrait ? (source as PortraitDatasetSource).locator : undefined;
    if (locator !== undefined) checkLocator(locator, fail);
    this.head = snapshotHead(
      source.params,
      portrait ? 'portrait' : 'exact',
      { docs: docs.length, keys },
      locator === undefined ? undefined : PORTRAIT_LOCATOR_VERSION,
    );
  }

  /** The snapshot's bytes, in order (the checksum and payload length as zeros; see {@link patch}). */
  *pieces(): Generator<Uint8Array, void, undefined> {
    if (this.done) throw new TrainprintError('INVALID_INPUT', 'a snapshot stream can be read once');
    yield this.head;
    const fail = failWith('INVALID_INPUT');
    const encoder = new Encoder({ ignoreUndefined: true });
    const payload =
      (this.source.descriptor as { kind?: unknown }).kind === 'portrait'
        ? portraitPayload(this.source as PortraitDatasetSource, encoder)
        : exactPayload(this.source as ExactDatasetSource, encoder, fail);
    let crc = 0,
      length = 0;
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = payload.next();
      } catch (e) {
        if (e instanceof TrainprintError) throw e;
        const reason = (e as Error).message;
        throw new TrainprintError('INVALID_INPUT', `dataset cannot be serialised (${reason})`, { cause: e });
      }
      if (next.done) break;
      const piece = next.value;
      crc = this.crc32(piece, crc);
      length += piece.length;
      if (length > 0xffffffff) fail('dataset too large for one snapshot (payload ≥ 4 GiB)');
      yield piece;
    }
    this.payloadCrc = crc;
    this.payloadLength = length;
    this.done = true;
  }

  /** Total bytes of the snapshot (after {@link pieces} is exhausted). */
  get length(): number {
    return this.head.length + this.payloadLength;
  }

  /** The checksum, tag and payload length, to write at `offset` after every piece (once they are all read). */
  patch(): SnapshotPatch {
    if (!this.done) throw new TrainprintError('INVALID_INPUT', 'the snapshot stream is not finished');
    const c = this.head.length - 5; // the payload's bin32 tag
    const tail = Uint8Array.of(0xc6, 0, 0, 0, 0);
    new DataView(tail.buffer).setUint32(1, this.payloadLength, false);
    const before = crc32(tail, crc32(this.head.subarray(0, c - 4)));
    const bytes = new Uint8Array(9);
    const dv = new DataView(bytes.buffer);
    dv.setUint32(0, crc32Combine(before, this.payloadCrc, this.payloadLength), false);
    bytes.set(tail, 4);
    return { offset: c - 4, bytes };
  }
}

// ---------------------------------------------------------------------------------------------
// The payload's pieces (msgpack framing written by hand where `Encoder` would need the whole value: ./msgpack-pieces.ts).

/** A column as bin: its header, then its little-endian bytes a chunk at a time, checked as they pass. */
function* columnPieces<T extends BigUint64Array | Uint32Array>(
  col: Chunked<T>,
  width: number,
  check: (values: T, from: number) => void,
): Generator<Uint8Array> {
  yield binHeader(col.length * width);
  for (let from = 0; from < col.length; from += CHUNK_VALUES) {
    const to = Math.min(col.length, from + CHUNK_VALUES);
    const values = col.read(from, to);
    if (values.length !== to - from) {
      throw new TrainprintError('INVALID_INPUT', `column read ${values.length} values, expected ${to - from}`);
    }
    check(values, from);
    yield leBytes(values);
  }
}

function* exactPayload(s: ExactDatasetSource, encoder: Encoder, fail: Fail): Generator<Uint8Array> {
  const d = s.descriptor;
  const docCount = s.docs.length;
  yield mapHeader(s.texts === undefined ? 7 : 8);
  yield encoder.encodeSharedRef('descriptor');
  const { id, name, kind, models, kb_dataset, keep_text, meta } = d;
  yield boundedEncode(encoder, withoutUndefined({ id, name, kind, models, kb_dataset, keep_text, meta }), 'descriptor');
  yield encoder.encodeSharedRef('docs');
  yield* docsPieces(s.docs, encoder);
  yield encoder.encodeSharedRef('keys');
  let last: bigint | null = null;
  yield* columnPieces(s.keys, 8, (keys, from) => {
    const bad = unsortedAt(keys);
    if (bad >= 0 || (last !== null && keys.length > 0 && keys[0] < last)) {
      fail(`keys are not sorted ascending (keys[${from + Math.max(bad, 0)}])`);
    }
    if (keys.length > 0) last = keys[keys.length - 1];
  });
  yield encoder.encodeSharedRef('postDoc');
  yield* columnPieces(s.postDoc, 4, (docs, from) => {
    for (let i = 0; i < docs.length; i++) {
      if (docs[i] >= docCount) fail(`postDoc[${from + i}] = ${docs[i]} is not a document index (${docCount} docs)`);
    }
  });
  yield encoder.encodeSharedRef('postStart');
  yield* columnPieces(s.postStart, 4, () => {});
  yield encoder.encodeSharedRef('postEnd');
  yield* columnPieces(s.postEnd, 4, () => {});
  yield encoder.encodeSharedRef('minhash');
  yield binHeader(s.minhash.byteLength);
  yield leBytes(s.minhash);
  if (s.texts !== undefined) {
    yield encoder.encodeSharedRef('texts');
    yield arrayHeader(s.texts.length);
    yield* textPieces(s.texts, encoder);
  }
}

function* portraitPayload(s: PortraitDatasetSource, encoder: Encoder): Generator<Uint8Array> {
  const d = s.descriptor;
  yield mapHeader(s.locator === undefined ? 3 : 4);
  yield encoder.encodeSharedRef('descriptor');
  const { id, name, kind, window, models, kb_dataset, meta, background, locate } = d;
  const descriptor = withoutUndefined({ id, name, kind, window, models, kb_dataset, meta, background, locate });
  yield boundedEncode(encoder, descriptor, 'descriptor');
  yield encoder.encodeSharedRef('docs');
  yield* docsPieces(s.docs, encoder);
  yield encoder.encodeSharedRef('filters');
  yield arrayHeader(s.filters.length);
  for (const f of s.filters) {
    yield mapHeader(3);
    yield encoder.encodeSharedRef('keys');
    yield encoder.encodeSharedRef(f.keys);
    yield encoder.encodeSharedRef('k');
    yield encoder.encodeSharedRef(f.k);
    yield encoder.encodeSharedRef('bits');
    yield binHeader(f.bits.length);
    for (let from = 0; from < f.bits.length; from += 8 * CHUNK_VALUES) {
      yield f.bits.read(from, Math.min(f.bits.length, from + 8 * CHUNK_VALUES));
    }
  }
  if (s.locator !== undefined) {
    yield encoder.encodeSharedRef('locator');
    yield encoder.encodeSharedRef(checkLocator(s.locator, failWith('INVALID_INPUT')));
  }
}
