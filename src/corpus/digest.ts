/**
 * The content digest of an exact dataset (`engine.datasetDigest`): a SHA-256 that is the same for the same
 * documents whether the dataset was built in memory, imported from a dataset file or attached from PostgreSQL, so
 * that processes sharing work can check they search the same thing (a scan worker refuses a job made against other
 * datasets).
 *
 * What it hashes (version 1): the params id of the fingerprints, the counts of documents and fingerprints, and per
 * document, in document order, its id, its length in UTF-16 units, UTF-8 bytes and words, and its MinHash signature
 * (128 values over all its word 5-grams: a summary of its text that every kind of storage keeps). The documents are
 * hashed in blocks of {@link BLOCK} (SHA-256 of each block), then the header and the blocks' digests together, so a
 * large dataset is read and hashed a block at a time. A dataset kept in a database is read once (the documents'
 * rows without their texts, about 0.6 KB each) and its digest kept until it grows.
 */
import { NEAR_K, type ExactDataset } from '../datasets/exact.js';
import type { DocInfo } from '../datasets/types.js';
import { sha256Hex } from '../fingerprint/sha256.js';
import { concatBytes, LITTLE_ENDIAN } from '../util/bytes.js';
import type { ExactStorage } from '../datasets/stored.js';
import type { DatasetStats } from '../datasets/types.js';

/** Documents hashed per block. */
const BLOCK = 1024;
/** What the digest's header begins with (the version of what is hashed). */
const HEADER = 'trainprint-dataset-digest/1';

const utf8 = new TextEncoder();

/** One document's bytes in a block: id length, id, chars, bytes, tokens (u32 little-endian), signature. */
function documentBytes(info: DocInfo, sig: Uint32Array): Uint8Array {
  const id = utf8.encode(info.id);
  const out = new Uint8Array(16 + id.length + NEAR_K * 4);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, id.length, true);
  out.set(id, 4);
  let at = 4 + id.length;
  for (const n of [info.chars, info.bytes, info.tokens]) {
    dv.setUint32(at, n >>> 0, true);
    at += 4;
  }
  // the signature's bytes as they lie where the host is little-endian (a loop of writes runs interpreted at a
  // process's first digest: 93,000 of them for the starter's 727 documents)
  if (LITTLE_ENDIAN && sig.length === NEAR_K) out.set(new Uint8Array(sig.buffer, sig.byteOffset, NEAR_K * 4), at);
  else for (let k = 0; k < NEAR_K; k++) dv.setUint32(at + 4 * k, sig[k] ?? 0, true);
  return out;
}

/** SHA-256 (hex) of the documents of one block. */
function blockDigest(docs: ReadonlyArray<{ info: DocInfo; sig: Uint32Array }>): Promise<string> {
  return sha256Hex(concatBytes(docs.map((d) => documentBytes(d.info, d.sig))));
}

/** The digest of the header (params and counts) and the blocks' digests. */
function finalDigest(
  params: string,
  documents: number,
  fingerprints: number,
  blocks: readonly string[],
): Promise<string> {
  return sha256Hex(`${HEADER}\n${params}\n${documents}\n${fingerprints}\n${blocks.join('\n')}`);
}

/**
 * The content digest of an exact dataset in memory (see the module comment).
 * @example await exactDigest(dataset) // '3f0c…' (64 hex digits)
 */
export async function exactDigest(d: ExactDataset): Promise<string> {
  const n = d.docs.length;
  const blocks: string[] = [];
  for (let from = 0; from < n; from += BLOCK) {
    const docs = [];
    for (let i = from; i < Math.min(n, from + BLOCK); i++) docs.push({ info: d.docs[i], sig: d.signature(i) });
    blocks.push(await blockDigest(docs));
  }
  const stats = d.stats();
  return finalDigest(d.params, n, stats.fingerprints, blocks);
}

/**
 * The content digest of an exact dataset kept in a database (see the module comment): its documents' rows are read
 * a block at a time (ids, sizes, signatures; never the texts).
 * @throws (rejects) STORE_UNAVAILABLE as the storage does
 * @example await storedDigest(dataset)
 */
export async function storedDigest(d: {
  readonly storage: ExactStorage;
  readonly params: string;
  stats(): DatasetStats;
}): Promise<string> {
  const stats = d.stats();
  const n = stats.documents;
  const blocks: string[] = [];
  const none = new Uint32Array(0);
  for (let from = 0; from < n; from += BLOCK) {
    const numbers = Uint32Array.from({ length: Math.min(n, from + BLOCK) - from }, (_, k) => from + k);
    const got = await d.storage.documents({ docs: numbers, signatures: numbers, texts: none, commonPairs: none });
    const docs = Array.from(numbers, (doc) => {
      const f = got.docs.get(doc);
      return { info: f?.info ?? { id: '', chars: 0, bytes: 0, tokens: 0 }, sig: f?.minhash ?? none };
    });
    blocks.push(await blockDigest(docs));
  }
  return finalDigest(d.params, n, stats.fingerprints, blocks);
}
