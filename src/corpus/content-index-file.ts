/**
 * The content-word pair index of an exact dataset (./content-words.ts) as a file, so that a process that loads the
 * same dataset again reads its index instead of building it: building it tokenises, stems and pairs every kept text
 * (for the 5 MB of the starter dataset's licences ≈ 0.25 s of CPU, paid by the first reworded search of every
 * process), where reading it is a copy and a check.
 *
 * Layout (all integers little-endian):
 *
 * ```text
 * "tpcindex"            8 bytes, the magic
 * version               u32 (1)
 * header length H       u32
 * header                H bytes of UTF-8 JSON: { pairs, dataset, documents, postings }
 * padding               0–3 zero bytes, to a multiple of 4
 * keys                  postings × u32: the pair hashes, ascending
 * docs                  postings × u32: the document of each posting, ascending within a hash
 * offsets               postings × u32: where the pair's first word starts in the document (UTF-16 units)
 * checksum              u32: CRC-32 (zlib's) of every byte before it
 * ```
 *
 * `pairs` names how the pairs were made ({@link CONTENT_PAIRS_ID}: the pairing's version, its sampling, and the
 * fingerprint parameters, whose tokenizer and normaliser make the words); `dataset` is the dataset's content digest
 * (src/corpus/digest.ts) and `documents` its document count when the index was made. A file whose pairing, digest or
 * count is not the dataset's, or whose columns are not in the index's order or point past a document, is refused:
 * it would find other candidates than the index the dataset's own texts make.
 */
import { DATASET_PARAMS } from '../datasets/params.js';
import { TrainprintError } from '../errors.js';
import { LITTLE_ENDIAN } from '../util/bytes.js';
import { crc32 } from '../util/crc32.js';
import { PAIR_REACH, PAIR_SAMPLE } from './content-pairs.js';
import { ContentWordIndex } from './content-words.js';

/**
 * How the pairs of an index are made, as a file records it. The version goes up whenever the same texts would give
 * other pairs (the stemmer, the stop words, the pair hash): a known-answer test of the pairs
 * (test/unit/content-index-file.test.ts) fails until it does.
 */
export const CONTENT_PAIRS_ID = `content-pairs/1;reach=${PAIR_REACH};sample=${PAIR_SAMPLE};${DATASET_PARAMS}`;

const MAGIC = 'tpcindex';
const VERSION = 1;
/** Bytes before the header: the magic, the version and the header's length. */
const HEAD = 16;
/** The longest header read (a digest and three numbers take about 300 bytes). */
const MAX_HEADER = 4096;

/** What a file's header says. */
interface ContentIndexHeader {
  readonly pairs: string;
  readonly dataset: string;
  readonly documents: number;
  readonly postings: number;
}

/** The dataset a file is read for: its content digest and what each document's text measures. */
export interface ContentIndexTarget {
  readonly digest: string;
  /** Each document's length in UTF-16 units (0 where no text is kept). */
  readonly chars: ArrayLike<number>;
}

const refused = (why: string): TrainprintError =>
  new TrainprintError('SNAPSHOT_INCOMPATIBLE', `content index file refused: ${why}`);

/**
 * The bytes of `index`, made for the dataset whose content digest is `digest`.
 * @example const bytes = encodeContentIndex(index, await corpus.datasetDigest('books'))
 */
export function encodeContentIndex(index: ContentWordIndex, digest: string): Uint8Array {
  const { keys, docs, offsets } = index.columns();
  const n = keys.length;
  const header: ContentIndexHeader = {
    pairs: CONTENT_PAIRS_ID,
    dataset: digest,
    documents: index.documents,
    postings: n,
  };
  const head = new TextEncoder().encode(JSON.stringify(header));
  const at = (HEAD + head.length + 3) & ~3;
  const out = new Uint8Array(at + 12 * n + 4);
  out.set(new TextEncoder().encode(MAGIC), 0);
  const view = new DataView(out.buffer);
  view.setUint32(8, VERSION, true);
  view.setUint32(12, head.length, true);
  out.set(head, HEAD);
  putColumn(out, at, keys);
  putColumn(out, at + 4 * n, docs);
  putColumn(out, at + 8 * n, offsets);
  view.setUint32(at + 12 * n, crc32(out.subarray(0, at + 12 * n)), true);
  return out;
}

/**
 * The index in `bytes` (from {@link encodeContentIndex}), checked against the dataset `target` it is for.
 * @throws SNAPSHOT_INCOMPATIBLE (not such a file, truncated or corrupted, made another way or for other documents)
 * @example const index = decodeContentIndex(bytes, { digest, chars: docs.map((d) => d.chars) })
 */
export function decodeContentIndex(bytes: Uint8Array, target: ContentIndexTarget): ContentWordIndex {
  if (!(bytes instanceof Uint8Array)) throw new TrainprintError('INVALID_INPUT', 'bytes must be a Uint8Array');
  if (bytes.length < HEAD + 4 || new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC)
    throw refused('not a content index file');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== VERSION) throw refused(`version ${version}, this library reads ${VERSION}`);
  const headLength = view.getUint32(12, true);
  if (headLength > MAX_HEADER || HEAD + headLength + 4 > bytes.length) throw refused('truncated');
  const header = readHeader(bytes.subarray(HEAD, HEAD + headLength));
  const at = (HEAD + headLength + 3) & ~3;
  const n = header.postings;
  if (bytes.length !== at + 12 * n + 4) throw refused('truncated or with bytes after its end');
  if (view.getUint32(at + 12 * n, true) !== crc32(bytes.subarray(0, at + 12 * n))) throw refused('checksum mismatch');
  if (header.pairs !== CONTENT_PAIRS_ID)
    throw refused(`its pairs were made as ${header.pairs}, this library makes ${CONTENT_PAIRS_ID}`);
  if (header.dataset !== target.digest || header.documents !== target.chars.length)
    throw refused('it was made for other documents than this dataset holds');
  const keys = takeColumn(bytes, at, n),
    docs = takeColumn(bytes, at + 4 * n, n),
    offsets = takeColumn(bytes, at + 8 * n, n);
  checkOrder(keys, docs, offsets, target.chars);
  return ContentWordIndex.fromSortedColumns(keys, docs, offsets, header.documents);
}

function readHeader(bytes: Uint8Array): ContentIndexHeader {
  let h: unknown;
  try {
    h = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw refused('its header is not JSON');
  }
  const o = h as Partial<ContentIndexHeader> | null;
  const count = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
  if (
    o === null ||
    typeof o !== 'object' ||
    typeof o.pairs !== 'string' ||
    typeof o.dataset !== 'string' ||
    !count(o.documents) ||
    !count(o.postings)
  )
    throw refused('its header lacks pairs, dataset, documents or postings');
  return o as ContentIndexHeader;
}

/**
 * The order {@link ContentWordIndex.fromColumns} leaves: keys ascending, documents ascending within a key (a query's
 * postings of one pair are searched by document), each offset inside its document's text.
 */
function checkOrder(keys: Uint32Array, docs: Uint32Array, offsets: Uint32Array, chars: ArrayLike<number>): void {
  const documents = chars.length;
  for (let i = 0; i < keys.length; i++) {
    const doc = docs[i];
    if (doc >= documents || offsets[i] >= chars[doc]) throw refused(`posting ${i} lies outside the documents`);
    if (i > 0 && (keys[i] < keys[i - 1] || (keys[i] === keys[i - 1] && doc < docs[i - 1])))
      throw refused(`posting ${i} is out of order`);
  }
}

function putColumn(out: Uint8Array, at: number, column: Uint32Array): void {
  if (LITTLE_ENDIAN) {
    out.set(new Uint8Array(column.buffer, column.byteOffset, column.byteLength), at);
    return;
  }
  const view = new DataView(out.buffer, out.byteOffset + at, column.length * 4);
  for (let i = 0; i < column.length; i++) view.setUint32(4 * i, column[i], true);
}

/** A fresh copy of the u32 column of `n` values at `at` (little-endian on every host). */
function takeColumn(bytes: Uint8Array, at: number, n: number): Uint32Array {
  const from = bytes.byteOffset + at;
  // one native copy of the bytes as they lie, where a loop of reads runs interpreted in a fresh process
  if (LITTLE_ENDIAN) return new Uint32Array(bytes.buffer.slice(from, from + 4 * n));
  const out = new Uint32Array(n);
  const view = new DataView(bytes.buffer, from, 4 * n);
  for (let i = 0; i < n; i++) out[i] = view.getUint32(4 * i, true);
  return out;
}
