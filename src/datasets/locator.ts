/**
 * The locator of a portrait: which document, and which section of it, a hit of the membership filter comes from —
 * without storing document ids per key.
 *
 * **Structure.** A static function over the portrait's distinct keys (a 3-wise binary fuse, Graf & Lemire 2022,
 * "Binary Fuse Filters: Fast and Smaller Than Xor Filters", built by peeling), with no fingerprint: v-bit cells such
 * that for a stored key k, `cell[h₀(k)] ⊕ cell[h₁(k)] ⊕ cell[h₂(k)] = g(c, k)`, where c is the *section* the key was
 * first seen in (a document cut into pieces of {@link LOCATOR_SECTION_WORDS} words, in document order) and g a keyed
 * v-bit hash. About 1.13 · v bits per key (v = 4: 0.57 bytes per stored n-gram, half of the filter's 1.2).
 *
 * **Resolution.** The locator cannot be asked "whose key is this": it can only say whether a section *agrees* with a
 * key (g(c, k) equals the stored value). The true section always agrees with its own keys; any other section agrees
 * by chance with probability 2⁻ᵛ per key, independently from key to key. So a run of hits is resolved by counting,
 * per section, the hits that agree with it: a copied passage has (nearly) all its hits agree with one section, and
 * common phrasing, whose keys belong to many sections, agrees with any one section at the chance rate. Absent keys
 * (a membership false positive) read a random value and agree with nothing in particular. This is
 * `locateChains` (./chains.ts): chains of hits, in query order, that agree with one section (or run on into the next section
 * of the same document), misses and disagreeing hits allowed between them — a gapped run.
 */
import { TrainprintError } from '../errors.js';

/** Bits per stored value (v): a wrong section agrees with a key with probability 2⁻ᵛ. */
export const LOCATOR_BITS = 4;
/** Words per section: the place a match names is a range of this many words of its document. */
export const LOCATOR_SECTION_WORDS = 4096;
/** Peeling attempts (each with the next seed) before giving up. */
const MAX_ATTEMPTS = 64;

/** The locator as stored (snapshot payload `locator`). */
export interface LocatorData {
  /** Bits per value: 1, 2, 4 or 8. */
  readonly bits: number;
  /** Seed of the slot hashes (the first one peeling succeeded with). */
  readonly seed: number;
  readonly segment_length: number;
  readonly segment_count: number;
  /** Words per section. */
  readonly section_words: number;
  /** Keys stored. */
  readonly keys: number;
  /** The cells, `bits` each, packed least significant first. */
  readonly cells: Uint8Array;
  /**
   * Which other documents hold the text of a section ({@link sharedTable}): rows of {@link SHARED_ROW} little-endian
   * u32 — owner section, other document, its first and last section holding the text, share × 10⁴. Absent when no
   * section shares {@link SHARED_MIN} of its n-grams with another document.
   */
  readonly shared?: Uint8Array;
  /**
   * Where each section begins, for documents cut into parts (the articles of a WikiExtractor file): one little-endian
   * u32 per global section, its first word in its document, with {@link SECTION_CONTINUES} set where the section
   * goes on with the part of the section before it (a part longer than `section_words` words). A part starts a
   * section of its own, so a section never holds two parts. Absent when every document is cut every `section_words`
   * words from its start.
   */
  readonly sections?: Uint8Array;
  /**
   * The n-grams many documents (articles) hold, which are no one section's evidence (./common.ts): absent when none
   * is held by `COMMON_MIN_HOLDERS` or more, and in packs built before the table existed.
   */
  readonly common?: Uint8Array;
}

/** Flag of a {@link LocatorData.sections} entry: the section continues the part the section before it is in. */
export const SECTION_CONTINUES = 0x80000000;

/** Where the sections of a locator lie in their documents ({@link sectionLayout}). */
export interface SectionLayout {
  /** Each document's first global section, and the total last. */
  readonly first: Uint32Array;
  /** Each section's first word in its document. */
  readonly start: Uint32Array;
  /** Each section's part in its document (0 for documents not cut into parts). */
  readonly part: Uint32Array;
  /** The first word of each section's part in its document. */
  readonly partStart: Uint32Array;
}

/** u32 fields per row of a locator's shared-text table. */
export const SHARED_ROW = 5;
/**
 * Share of a section's n-grams another document must hold for a match in that section to name it too: a fifth of
 * a section is 800 words of one text in both, more than any quotation and less than any second edition.
 */
export const SHARED_MIN = 0.2;

/** Another document holding (most of) the text of a section: what a match in that section names beside its own. */
export interface SharedText {
  /** Index of the other document. */
  readonly doc: number;
  /** Its first and last global section holding the text. */
  readonly first_section: number;
  readonly last_section: number;
  /** Share of the owner section's n-grams the other document holds (0..1). */
  readonly share: number;
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** 32-bit digest of a key (its two halves), independent of the seed: what the value hash reads. */
export function keyDigest(lo: number, hi: number): number {
  return fmix((lo ^ Math.imul(hi ^ 0x165667b1, 0x9e3779b1)) >>> 0);
}

/** Per-section seeds of the value hash g. */
export function sectionSeeds(sections: number): Uint32Array {
  const out = new Uint32Array(sections);
  for (let c = 0; c < sections; c++) out[c] = fmix((Math.imul(c + 1, 0x9e3779b1) ^ 0x27d4eb2f) >>> 0);
  return out;
}

/** g(c, k): the v-bit value section c has for the key with digest `digest`. */
export function sectionValue(seed: number, digest: number, bits: number): number {
  return fmix((digest ^ seed) >>> 0) >>> (32 - bits);
}

/** Binary fuse sizing (arity 3) for n keys. */
export function fuseSizing(n: number): { segment_length: number; segment_count: number } {
  const segment_length = n <= 1 ? 4 : Math.min(1 << 18, 2 ** Math.floor(Math.log(n) / Math.log(3.33) + 2.25));
  const factor = n <= 1 ? 0 : Math.max(1.125, 0.875 + (0.25 * Math.log(1e6)) / Math.log(n));
  const capacity = Math.round(n * factor);
  const init = Math.max(0, Math.floor((capacity + segment_length - 1) / segment_length) - 2);
  const length = (init + 2) * segment_length;
  let segment_count = Math.floor((length + segment_length - 1) / segment_length);
  segment_count = segment_count <= 2 ? 1 : segment_count - 2;
  return { segment_length, segment_count };
}

/** The three cells of a key. */
function slots(
  lo: number,
  hi: number,
  seed: number,
  segmentLength: number,
  segmentCountLength: number,
  out: Uint32Array,
): void {
  const a = fmix((lo ^ Math.imul((hi ^ seed) >>> 0, 0x9e3779b1)) >>> 0);
  const b = fmix((hi ^ Math.imul((a + seed) >>> 0, 0x7feb352d)) >>> 0);
  const mask = segmentLength - 1;
  // a / 2³² · length: exact in IEEE doubles' determinism (the same cell on every machine)
  const h0 = Math.floor((a / 4294967296) * segmentCountLength);
  out[0] = h0;
  out[1] = (h0 + segmentLength) ^ (b & mask);
  out[2] = (h0 + 2 * segmentLength) ^ ((b >>> 14) & mask);
}

function readCell(cells: Uint8Array, i: number, bits: number): number {
  if (bits === 16) return cells[2 * i] | (cells[2 * i + 1] << 8);
  const bit = i * bits;
  return (cells[bit >>> 3] >>> (bit & 7)) & ((1 << bits) - 1);
}

function writeCell(cells: Uint8Array, i: number, bits: number, v: number): void {
  if (bits === 16) {
    cells[2 * i] = v & 0xff;
    cells[2 * i + 1] = (v >>> 8) & 0xff;
    return;
  }
  const bit = i * bits;
  const sh = bit & 7;
  const mask = ((1 << bits) - 1) << sh;
  cells[bit >>> 3] = (cells[bit >>> 3] & ~mask) | ((v << sh) & mask);
}

/**
 * Build a locator. `lo`/`hi` are the halves of the distinct keys, `values` their v-bit values (`bits` each).
 * @throws INTERNAL when peeling fails MAX_ATTEMPTS times (duplicate keys)
 * @example
 * const d = buildLocator(Uint32Array.of(1, 2), Uint32Array.of(0, 0), Uint8Array.of(3, 9), 4, 4096)
 * locatorValue(d, 2, 0) // 9
 */
export function buildLocator(
  lo: Uint32Array,
  hi: Uint32Array,
  values: ArrayLike<number>,
  bits: number,
  sectionWords: number,
): LocatorData {
  const n = lo.length;
  const { segment_length, segment_count } = fuseSizing(n);
  const length = (segment_count + 2) * segment_length;
  const scl = segment_count * segment_length;
  const count = new Uint32Array(length);
  const xorIdx = new Uint32Array(length);
  const stackKey = new Uint32Array(n);
  const stackSlot = new Uint32Array(n);
  const queue = new Uint32Array(length);
  const s = new Uint32Array(3);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const seed = attempt;
    count.fill(0);
    xorIdx.fill(0);
    for (let i = 0; i < n; i++) {
      slots(lo[i], hi[i], seed, segment_length, scl, s);
      for (let j = 0; j < 3; j++) {
        count[s[j]]++;
        xorIdx[s[j]] ^= i;
      }
    }
    let qn = 0;
    for (let p = 0; p < length; p++) if (count[p] === 1) queue[qn++] = p;
    let sn = 0;
    while (qn > 0) {
      const p = queue[--qn];
      if (count[p] !== 1) continue;
      const i = xorIdx[p];
      stackKey[sn] = i;
      stackSlot[sn++] = p;
      slots(lo[i], hi[i], seed, segment_length, scl, s);
      for (let j = 0; j < 3; j++) {
        const q = s[j];
        count[q]--;
        xorIdx[q] ^= i;
        if (count[q] === 1) queue[qn++] = q;
      }
    }
    if (sn !== n) continue;
    const cells = new Uint8Array(Math.ceil((length * bits) / 8));
    for (let t = n - 1; t >= 0; t--) {
      const i = stackKey[t];
      const p = stackSlot[t];
      slots(lo[i], hi[i], seed, segment_length, scl, s);
      let v = values[i];
      for (let j = 0; j < 3; j++) if (s[j] !== p) v ^= readCell(cells, s[j], bits);
      writeCell(cells, p, bits, v);
    }
    return { bits, seed, segment_length, segment_count, section_words: sectionWords, keys: n, cells };
  }
  throw new TrainprintError('INTERNAL', `the locator could not be built over ${n} keys (duplicate keys?)`);
}

/** The stored value of a key (meaningful only for a stored key). */
export function locatorValue(d: LocatorData, lo: number, hi: number): number {
  const s = new Uint32Array(3);
  slots(lo, hi, d.seed, d.segment_length, d.segment_count * d.segment_length, s);
  return readCell(d.cells, s[0], d.bits) ^ readCell(d.cells, s[1], d.bits) ^ readCell(d.cells, s[2], d.bits);
}

/** Values of many keys (halves interleaved lo, hi as a BigUint64Array's little-endian words). */
export function locatorValues(d: LocatorData, words: Uint32Array, at: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(at.length);
  const s = new Uint32Array(3);
  const scl = d.segment_count * d.segment_length;
  for (let j = 0; j < at.length; j++) {
    const i = at[j];
    slots(words[2 * i], words[2 * i + 1], d.seed, d.segment_length, scl, s);
    out[j] = readCell(d.cells, s[0], d.bits) ^ readCell(d.cells, s[1], d.bits) ^ readCell(d.cells, s[2], d.bits);
  }
  return out;
}

/**
 * The shared-text table of a portrait, from its key occurrences grouped by key (each group in document order, its
 * first occurrence the owner: the section the locator names). An n-gram first stored in section c of document A and
 * seen again in section c' of another document B counts once for the pair (c, c'); a section c names B when B holds
 * at least {@link SHARED_MIN} of the distinct n-grams c owns. The locator cannot tell identical text apart (every
 * n-gram has one value: its first section's), so a match in c names every such document beside A.
 * `pairs` are the codes owner · C + other of every such occurrence (in any order), `owned` the n-grams each section
 * owns, `first` each document's first section (C = the last entry).
 * @example
 * // section 0 (document 0) owns 10 n-grams; document 1 (section 1) holds 9 of them
 * decodeShared(sharedTable(Float64Array.from({ length: 9 }, () => 0 * 2 + 1), Uint32Array.of(10, 0), Uint32Array.of(0, 1, 2))).get(0)
 * // [{ doc: 1, first_section: 1, last_section: 1, share: 0.9 }]
 */
export function sharedTable(pairs: Float64Array, owned: Uint32Array, first: Uint32Array): Uint8Array | undefined {
  const C = first[first.length - 1];
  const sorted = pairs.slice().sort();
  const rows: number[] = [];
  // one owner section at a time: the other sections it shares n-grams with, and their counts
  for (let i = 0; i < sorted.length; ) {
    const owner = Math.floor(sorted[i] / C);
    const others: Array<[number, number]> = [];
    while (i < sorted.length && Math.floor(sorted[i] / C) === owner) {
      const other = sorted[i] - owner * C;
      let n = 0;
      while (i < sorted.length && sorted[i] === owner * C + other) {
        n++;
        i++;
      }
      others.push([other, n]);
    }
    if (owned[owner] === 0) continue;
    const byDoc = new Map<number, Array<[number, number]>>();
    for (const o of others) {
      const d = sectionDoc(first, o[0]);
      const list = byDoc.get(d);
      if (list) list.push(o);
      else byDoc.set(d, [o]);
    }
    for (const [doc, list] of byDoc) {
      const total = list.reduce((a, o) => a + o[1], 0);
      const share = total / owned[owner];
      if (share < SHARED_MIN) continue;
      // the range: sections holding a real part of the text, not the stray common phrases of the rest
      const real = list.filter((o) => o[1] >= 0.05 * owned[owner]);
      const range = real.length > 0 ? real : [list.reduce((a, o) => (o[1] > a[1] ? o : a))];
      rows.push(owner, doc, range[0][0], range[range.length - 1][0], Math.min(10000, Math.round(share * 10000)));
    }
  }
  if (rows.length === 0) return undefined;
  const out = new Uint8Array(rows.length * 4);
  const view = new DataView(out.buffer);
  for (let j = 0; j < rows.length; j++) view.setUint32(4 * j, rows[j], true);
  return out;
}

/** The shared-text table as a map from owner section to the other documents holding its text, best first. */
export function decodeShared(shared: Uint8Array | undefined): Map<number, SharedText[]> {
  const out = new Map<number, SharedText[]>();
  if (shared === undefined) return out;
  const view = new DataView(shared.buffer, shared.byteOffset, shared.byteLength);
  for (let at = 0; at + 4 * SHARED_ROW <= shared.byteLength; at += 4 * SHARED_ROW) {
    const owner = view.getUint32(at, true);
    const row: SharedText = {
      doc: view.getUint32(at + 4, true),
      first_section: view.getUint32(at + 8, true),
      last_section: view.getUint32(at + 12, true),
      share: view.getUint32(at + 16, true) / 10000,
    };
    const list = out.get(owner);
    if (list) list.push(row);
    else out.set(owner, [row]);
  }
  for (const list of out.values()) list.sort((x, y) => y.share - x.share || x.doc - y.doc);
  return out;
}

/** Check a locator read from a snapshot: sizes consistent with its key count. Returns the detail of a fault. */
export function locatorFault(d: LocatorData): string | null {
  if (![1, 2, 4, 8].includes(d.bits)) return 'locator.bits must be 1, 2, 4 or 8';
  if (!Number.isSafeInteger(d.keys) || d.keys < 0) return 'locator.keys must be an integer ≥ 0';
  if (!Number.isInteger(d.seed) || d.seed < 0 || d.seed > 0xffff) return 'locator.seed must be an integer 0..65535';
  if (!Number.isInteger(d.section_words) || d.section_words < 1 || d.section_words > 1 << 24)
    return 'locator.section_words must be an integer 1..16777216';
  const want = fuseSizing(d.keys);
  if (d.segment_length !== want.segment_length || d.segment_count !== want.segment_count)
    return `locator sizing does not match its ${d.keys} keys`;
  const length = (d.segment_count + 2) * d.segment_length;
  if (d.cells.length !== Math.ceil((length * d.bits) / 8))
    return `locator.cells has ${d.cells.length} bytes, expected ${Math.ceil((length * d.bits) / 8)}`;
  if (d.shared !== undefined) {
    if (d.shared.length === 0 || d.shared.length % (4 * SHARED_ROW) !== 0)
      return `locator.shared must hold rows of ${4 * SHARED_ROW} bytes`;
    const view = new DataView(d.shared.buffer, d.shared.byteOffset, d.shared.byteLength);
    for (let at = 0; at < d.shared.length; at += 4 * SHARED_ROW) {
      const lo = view.getUint32(at + 8, true),
        hi = view.getUint32(at + 12, true);
      if (lo > hi || view.getUint32(at + 16, true) > 10000) return 'locator.shared has a row out of range';
    }
  }
  if (d.sections !== undefined && (d.sections.length === 0 || d.sections.length % 4 !== 0))
    return 'locator.sections must hold u32 entries';
  return null;
}

/** Sections of documents of `tokens` words: the first global section of each document, and the total. */
export function sectionIndex(tokens: ArrayLike<number>, sectionWords: number): Uint32Array {
  const first = new Uint32Array(tokens.length + 1);
  for (let d = 0; d < tokens.length; d++) first[d + 1] = first[d] + Math.max(1, Math.ceil(tokens[d] / sectionWords));
  return first;
}

/** The document holding global section c (binary search over `first`). */
export function sectionDoc(first: Uint32Array, c: number): number {
  let lo = 0,
    hi = first.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (first[mid] <= c) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The sections of documents of `tokens` words: every `sectionWords` words from the start of each document, or, with a
 * sections table ({@link LocatorData.sections}), where it says. Returns the detail of a fault instead when the table
 * does not fit the documents (a document start that is not at word 0, or offsets out of order or past the end).
 * @example
 * sectionLayout([5000], 4096).start // Uint32Array [0, 4096]
 */
export function sectionLayout(
  tokens: ArrayLike<number>,
  sectionWords: number,
  sections?: Uint8Array,
): SectionLayout | string {
  if (sections === undefined) {
    const first = sectionIndex(tokens, sectionWords);
    const C = first[first.length - 1];
    const start = new Uint32Array(C);
    for (let d = 0; d < tokens.length; d++)
      for (let c = first[d]; c < first[d + 1]; c++) start[c] = (c - first[d]) * sectionWords;
    return { first, start, part: new Uint32Array(C), partStart: new Uint32Array(C) };
  }
  if (sections.length % 4 !== 0) return 'locator.sections must hold u32 entries';
  const C = sections.length / 4;
  const view = new DataView(sections.buffer, sections.byteOffset, sections.byteLength);
  const first = new Uint32Array(tokens.length + 1);
  const start = new Uint32Array(C);
  const part = new Uint32Array(C);
  const partStart = new Uint32Array(C);
  let d = -1;
  for (let c = 0; c < C; c++) {
    const v = view.getUint32(4 * c, true);
    const at = (v & ~SECTION_CONTINUES) >>> 0;
    const continues = (v & SECTION_CONTINUES) !== 0;
    if (at === 0 && !continues) {
      // a document's first section
      if (++d >= tokens.length) return 'locator.sections has more documents than the portrait';
      first[d] = c;
      part[c] = 0;
      partStart[c] = 0;
    } else {
      if (d < 0) return 'locator.sections does not start with a document';
      if (at <= start[c - 1] || at >= Math.max(1, tokens[d])) return 'locator.sections has an entry out of order';
      if (continues) {
        if (at - start[c - 1] !== sectionWords) return 'locator.sections has a continued section of the wrong length';
        part[c] = part[c - 1];
        partStart[c] = partStart[c - 1];
      } else {
        part[c] = part[c - 1] + 1;
        partStart[c] = at;
      }
    }
    start[c] = at;
  }
  if (d !== tokens.length - 1) return 'locator.sections has fewer documents than the portrait';
  first[tokens.length] = C;
  return { first, start, part, partStart };
}

/**
 * The sections table of documents cut into parts: `parts[d]` holds the first word of each part of document d
 * (ascending, the first 0), or is empty for a document cut every `sectionWords` words. Each part is cut every
 * `sectionWords` words from its own start.
 * @example
 * sectionLayout([100], 4096, sectionTable([100], [[0, 40]], 4096)).part // Uint32Array [0, 1]
 */
export function sectionTable(
  tokens: ArrayLike<number>,
  parts: ReadonlyArray<ArrayLike<number>>,
  sectionWords: number,
): Uint8Array {
  const out: number[] = [];
  for (let d = 0; d < tokens.length; d++) {
    const starts = parts[d] !== undefined && parts[d].length > 0 ? parts[d] : [0];
    for (let j = 0; j < starts.length; j++) {
      const end = j + 1 < starts.length ? starts[j + 1] : tokens[d];
      const n = Math.max(1, Math.ceil((end - starts[j]) / sectionWords));
      out.push(starts[j]);
      for (let k = 1; k < n; k++) out.push((starts[j] + k * sectionWords + SECTION_CONTINUES) >>> 0);
    }
  }
  const bytes = new Uint8Array(out.length * 4);
  const view = new DataView(bytes.buffer);
  for (let c = 0; c < out.length; c++) view.setUint32(4 * c, out[c], true);
  return bytes;
}
