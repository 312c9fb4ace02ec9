/**
 * SHA-256 of bytes: `node:crypto` where the runtime lends it (in place, one pass), WebCrypto when the
 * runtime has it (Node ≥ 20, Deno, browsers in a secure context), otherwise a small FIPS 180-4
 * implementation so that `work_hash` is available everywhere (e.g. a page served over plain http
 * from a LAN address has no `crypto.subtle`).
 */

import { TrainprintError } from '../errors.js';
import { builtinModule } from '../util/builtin.js';
import { wholePairPieces } from '../util/text-pieces.js';

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/** Plain-TS SHA-256 (FIPS 180-4). Used when WebCrypto is missing; tested against node:crypto. */
export function sha256Portable(data: Uint8Array): Uint8Array {
  const H = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const bitLen = data.length * 8;
  const padded = new Uint8Array(((data.length + 9 + 63) >> 6) << 6);
  padded.set(data);
  padded[data.length] = 0x80;
  const dv = new DataView(padded.buffer);
  dv.setUint32(padded.length - 8, Math.floor(bitLen / 0x1_0000_0000));
  dv.setUint32(padded.length - 4, bitLen >>> 0);
  const W = new Uint32Array(64);
  for (let off = 0; off < padded.length; off += 64) {
    for (let t = 0; t < 16; t++) W[t] = dv.getUint32(off + t * 4);
    for (let t = 16; t < 64; t++) {
      const a = W[t - 15],
        b = W[t - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      W[t] = (W[t - 16] + s0 + W[t - 7] + s1) >>> 0;
    }
    let a = H[0],
      b = H[1],
      c = H[2],
      d = H[3],
      e = H[4],
      f = H[5],
      g = H[6],
      h = H[7];
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[t] + W[t]) >>> 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    H[0] += a;
    H[1] += b;
    H[2] += c;
    H[3] += d;
    H[4] += e;
    H[5] += f;
    H[6] += g;
    H[7] += h;
  }
  const out = new Uint8Array(32);
  const odv = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) odv.setUint32(i * 4, H[i]);
  return out;
}

/** Lower-case hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += bytes[i].toString(16).padStart(2, '0');
  return s;
}

/** The part of `node:crypto` used here. */
interface NodeHashes {
  createHash(algorithm: 'sha256'): NodeHash;
}
/** A `node:crypto` hash: updated in parts, then digested. */
interface NodeHash {
  update(data: Uint8Array | string): NodeHash;
  digest(encoding: 'hex'): string;
}

/** `node:crypto` once looked up (undefined where the runtime does not lend it), or null before the first hash. */
let nodeCrypto: NodeHashes | undefined | null = null;

/**
 * `node:crypto` where the runtime lends it synchronously (`process.getBuiltinModule`: Node ≥ 20.16, Deno, Bun),
 * else undefined (browsers, Workers). A WebCrypto digest is a job on the thread pool — tens of microseconds
 * however small the input, which showed up as 5 % of a server's CPU hashing API keys and short contents. Looked up at
 * the first hash, not at the library's load: loading `node:crypto` costs a Node process ≈ 3.5 ms of CPU, which a
 * command that hashes nothing (`trainprint scan`) need not pay.
 */
function nodeHashes(): NodeHashes | undefined {
  if (nodeCrypto !== null) return nodeCrypto;
  const m = builtinModule<NodeHashes>('node:crypto');
  nodeCrypto = m && typeof m.createHash === 'function' ? (m as NodeHashes) : undefined;
  return nodeCrypto;
}

/**
 * SHA-256 of `data`, lower-case hex, at once in the caller's thread: `node:crypto` where the runtime lends it, else
 * the portable implementation (for many small inputs, where a pending WebCrypto digest each would cost more).
 * @example sha256HexNow(new TextEncoder().encode('abc')) // 'ba7816bf…'
 */
export function sha256HexNow(data: Uint8Array): string {
  const node = nodeHashes();
  return node ? node.createHash('sha256').update(data).digest('hex') : toHex(sha256Portable(data));
}

/**
 * Start hashing `data` now and return the pending hex digest; the caller may overwrite `data` (e.g. a view of wasm
 * memory) as soon as this returns. Where `node:crypto` is at hand the bytes are hashed at once, where they lie, in
 * one pass: WebCrypto's `digest` first copies its input (fresh memory) in the caller's thread and then hashes the copy
 * on the thread pool — for the 10 MB of a fingerprint that copy alone was 2,450 page faults and 13–36 ms of CPU on
 * the machines measured, against 5 ms and no fault for the whole hash in place (SHA-NI). Elsewhere WebCrypto, else the
 * portable implementation on a copy.
 * @example await startSha256Hex(new TextEncoder().encode('abc')) // 'ba7816bf…'
 */
export function startSha256Hex(data: Uint8Array): Promise<string> {
  const node = nodeHashes();
  if (node) return Promise.resolve(node.createHash('sha256').update(data).digest('hex'));
  const subtle = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (subtle && typeof subtle.digest === 'function') {
    return subtle.digest('SHA-256', data as BufferSource).then((d) => toHex(new Uint8Array(d)));
  }
  const copy = data.slice();
  return Promise.resolve().then(() => toHex(sha256Portable(copy)));
}

/**
 * SHA-256 of `data` (bytes, or a string's UTF-8), lower-case hex: the algorithm of a `work_hash`
 * (`'sha256:' + hex` of the content as sent). Hashed at once where `node:crypto` is at hand, else by WebCrypto off
 * the caller's thread; a plain-TS implementation where neither exists.
 * @example await sha256Hex('abc') // 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
 */
export function sha256Hex(data: string | Uint8Array): Promise<string> {
  if (typeof data === 'string') return startSha256HexOfText(data);
  if (data instanceof Uint8Array) return startSha256Hex(data);
  const got = data === null ? 'null' : typeof data;
  return Promise.reject(new TrainprintError('INVALID_INPUT', `sha256Hex needs a string or a Uint8Array, got ${got}`));
}

/**
 * SHA-256 of the UTF-8 of the concatenation of `parts`, lower-case hex: the digest of `[...parts].join('')`, hashed part
 * by part with `pause` awaited between them where `node:crypto` is at hand (a long text, such as a catalogue of
 * 100,000 works as JSON, is tens of MB: encoded and hashed in one step it holds the thread for a few hundred ms), so
 * neither the whole text nor its bytes are ever made. Each part must end on a whole character (no lone half of a
 * surrogate pair at its end). Elsewhere the parts are joined and hashed at once.
 * @example await sha256HexOfParts(['ab', 'c'], () => undefined) // sha256 of 'abc': 'ba7816bf…'
 */
export async function sha256HexOfParts(parts: Iterable<string>, pause: () => Promise<void> | void): Promise<string> {
  const node = nodeHashes();
  if (!node) return sha256HexNow(encoder.encode([...parts].join('')));
  return hashedPartByPart(node, parts, pause);
}

/** The digest of `parts` (strings as UTF-8) hashed one after another by `node:crypto`, `pause` awaited after each. */
async function hashedPartByPart(
  node: NodeHashes,
  parts: Iterable<string | Uint8Array>,
  pause: () => Promise<void> | void,
): Promise<string> {
  const hash = node.createHash('sha256');
  for (const part of parts) {
    hash.update(part);
    await pause();
  }
  return hash.digest('hex');
}

/** Bytes of a piece of {@link sha256HexOfBytesSliced}: 2–3 ms of hashing (SHA-NI). */
const BYTES_PIECE = 4 << 20;

/**
 * {@link sha256Hex} of `bytes`, the same digest, hashed a piece of `pieceBytes` at a time with `pause` awaited between
 * pieces where `node:crypto` is at hand, else at once: a registered file (epub, pdf, docx: up to 64 MiB) held a server's
 * thread for its whole hash in one update, ≈ 35 ms at SHA-NI speed. `bytes` must not change until the digest settles.
 * @example await sha256HexOfBytesSliced(fileBytes, nextMacrotask) // === await sha256Hex(fileBytes)
 */
export function sha256HexOfBytesSliced(
  bytes: Uint8Array,
  pause: () => Promise<void> | void,
  pieceBytes = BYTES_PIECE,
): Promise<string> {
  const node = nodeHashes();
  if (!node || bytes.length <= pieceBytes) return startSha256Hex(bytes);
  return hashedPartByPart(node, bytePieces(bytes, pieceBytes), pause);
}

/** `bytes` as views of `size` bytes each (the last one shorter). */
function* bytePieces(bytes: Uint8Array, size: number): Generator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, Math.min(bytes.length, at + size));
}

/** UTF-16 units of a piece of {@link sha256HexOfTextSliced}: 1–3 MB of UTF-8, 2–7 ms of hashing (SHA-NI). */
const TEXT_PIECE_UNITS = 1 << 20;

/**
 * {@link sha256Hex} of `text`, the same digest, hashed a piece of `pieceUnits` UTF-16 units at a time with `pause`
 * awaited between pieces where `node:crypto` is at hand (never between the halves of a pair; a lone surrogate is
 * U+FFFD either way): the 10 MB text of a registered work held a server's thread 23 ms in one update.
 * @example await sha256HexOfTextSliced(text, nextMacrotask) // === await sha256Hex(text)
 */
export function sha256HexOfTextSliced(
  text: string,
  pause: () => Promise<void> | void,
  pieceUnits = TEXT_PIECE_UNITS,
): Promise<string> {
  if (text.length <= pieceUnits) return startSha256HexOfText(text);
  return sha256HexOfParts(wholePairPieces(text, pieceUnits), pause);
}

/** Texts up to this many UTF-16 units are encoded into one reused buffer (3 bytes a unit at most). */
const SCRATCH_UNITS = 1 << 16;
let scratch: Uint8Array | undefined;
const encoder = new TextEncoder();

/**
 * {@link startSha256Hex} of the UTF-8 of `text`. Texts of up to 65,536 UTF-16 units go through one
 * buffer kept for the purpose instead of a fresh one per call: the digest takes its copy of the bytes
 * when it is called (WebCrypto copies its input; the fallback slices it), so the next call may reuse
 * the buffer at once, and a service hashing every request allocates nothing for it.
 * @example await startSha256HexOfText('abc') // 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
 */
export function startSha256HexOfText(text: string): Promise<string> {
  // node:crypto encodes a string as UTF-8 itself (a lone surrogate as U+FFFD, as TextEncoder does): no buffer at all
  const node = nodeHashes();
  if (node) return Promise.resolve(node.createHash('sha256').update(text).digest('hex'));
  if (text.length > SCRATCH_UNITS) return startSha256Hex(encoder.encode(text));
  scratch ??= new Uint8Array(SCRATCH_UNITS * 3);
  const { written } = encoder.encodeInto(text, scratch);
  return startSha256Hex(scratch.subarray(0, written));
}
