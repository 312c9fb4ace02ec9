/**
 * The walk of src/align/copies.ts over two windows' words as ids: for each seed region of the query, the first copy
 * through a 4-gram of its words that covers it — walked forward and back while the words agree, stepping over up to
 * three words replaced, inserted or dropped on each side where three words agree after them. {@link walkCopiesInCore}
 * runs it in the core (assembly/copywalk.ts); {@link walkCopies} is its plain-TS reference, the same walk step for
 * step (property-tested against each other: test/unit/property/copy-walk.test.ts).
 *
 * Why the core: the walk runs for each output a scan searches, a few hundred times a process, where JavaScript runs
 * it as baseline code (each array read a call to a generic load builtin); the core's code is compiled before its
 * first call.
 */
import type { Core } from '../core/abi.js';
import { GramIndex } from '../util/exact-runs.js';
import type { WindowSpans } from './window-words.js';

/** Words of a key of the document's index (the walk starts where `KEY` words agree). */
const KEY = 4;
/** Positions kept per key (bounds the work on repetitive text). */
const KEY_POSITIONS = 16;
/** Most words replaced in a row that the walk steps over. */
const MAX_REPLACED = 3;
/** Words that must agree after replaced words for the walk to step over them. */
const RESUME = 3;

/** One copy: words [a0, a1) of the query window equal (but for `replaced` of them) to [b0, b1) of the document's. */
export interface Copy {
  a0: number;
  a1: number;
  b0: number;
  b1: number;
  replaced: number;
  /**
   * From the core: the words of [a0, a1) inside a run of three words that [b0, b1) holds too (`runShare` of
   * src/align/reuse.ts times the copy's words, counted); the reference leaves it out.
   */
  shared?: number;
}

/** A seed region's span of the query (UTF-16 offsets). */
export interface QuerySpan {
  readonly query_start: number;
  readonly query_end: number;
}

/** Whether `n` words agree from i of Q and j of S (all inside both). */
function agree(Q: Int32Array, S: Int32Array, i: number, j: number, n: number): boolean {
  if (i < 0 || j < 0 || i + n > Q.length || j + n > S.length) return false;
  for (let k = 0; k < n; k++) if (Q[i + k] !== S[j + k]) return false;
  return true;
}

/**
 * The gaps a walk steps over, (words of Q, words of S): the fewest words on the longer side first, then in all; as
 * two columns read in a plain loop. assembly/copywalk.ts holds the same order as literals.
 */
const GAPS: { readonly q: Int8Array; readonly s: Int8Array } = (() => {
  const gaps: Array<[number, number]> = [];
  for (let gq = 0; gq <= MAX_REPLACED; gq++)
    for (let gs = 0; gs <= MAX_REPLACED; gs++) if (gq + gs > 0) gaps.push([gq, gs]);
  gaps.sort((x, y) => Math.max(...x) - Math.max(...y) || x[0] + x[1] - (y[0] + y[1]) || y[0] - x[0]);
  return { q: Int8Array.from(gaps, (g) => g[0]), s: Int8Array.from(gaps, (g) => g[1]) };
})();

/** The copy through words i of Q and j of S (equal): walked forward and back, stepping over edits. */
function walk(Q: Int32Array, S: Int32Array, i: number, j: number): Copy {
  const nq = Q.length,
    ns = S.length,
    gapQ = GAPS.q,
    gapS = GAPS.s,
    gaps = gapQ.length;
  let replaced = 0;
  let x = i,
    y = j; // forward: the next words to compare
  while (x < nq && y < ns) {
    if (Q[x] === S[y]) {
      x++;
      y++;
      continue;
    }
    let g = 0;
    while (g < gaps && !agree(Q, S, x + gapQ[g], y + gapS[g], RESUME)) g++;
    if (g === gaps) break;
    replaced += Math.max(gapQ[g], gapS[g]);
    x += gapQ[g];
    y += gapS[g];
  }
  let u = i,
    v = j; // back: the first words of the copy so far
  while (u > 0 && v > 0) {
    if (Q[u - 1] === S[v - 1]) {
      u--;
      v--;
      continue;
    }
    let g = 0;
    while (g < gaps && !agree(Q, S, u - gapQ[g] - RESUME, v - gapS[g] - RESUME, RESUME)) g++;
    if (g === gaps) break;
    replaced += Math.max(gapQ[g], gapS[g]);
    u -= gapQ[g];
    v -= gapS[g];
  }
  return { a0: u, a1: x, b0: v, b1: y, replaced };
}

/**
 * Whether copy `c` holds region `r`'s span of the query (its span of the document may take in a chance hit elsewhere
 * in it: a phrase the document repeats).
 */
export function covers(q: WindowSpans, c: Copy, r: QuerySpan): boolean {
  return q.start[c.a0] <= r.query_start && q.end[c.a1 - 1] >= r.query_end;
}

/**
 * The copies that explain `regions` in the words Q of the query's window (spans `q`) and S of the document's (ids:
 * equal words equal, a document word the query lacks negative): for each region in order that no copy found for an
 * earlier one covers, the first copy through a 4-gram of the region's words (the document's first 16 places of
 * each, ascending) that covers it; null when a region has none.
 * @example
 * walkCopies(Int32Array.of(0, 1, 2, 3, 4), { start, end }, Int32Array.of(-1, 0, 1, 2, 3, 4), regions) // [{ a0: 0, a1: 5, b0: 1, b1: 6, replaced: 0 }]
 */
export function walkCopies(Q: Int32Array, q: WindowSpans, S: Int32Array, regions: readonly QuerySpan[]): Copy[] | null {
  // the document window's keys (KEY word ids in a row, all of them the query's): the first KEY_POSITIONS of each
  const index = new GramIndex(S, KEY, KEY_POSITIONS);
  const copies: Copy[] = [];
  for (const r of regions) {
    if (copies.some((c) => covers(q, c, r))) continue;
    let found: Copy | null = null;
    for (let i = 0; i + KEY <= Q.length && found === null; i++) {
      if (q.start[i] < r.query_start) continue;
      if (q.end[i] > r.query_end) break;
      const key = index.key(Q, i);
      for (let n = index.start(key), to = index.end(key); n < to; n++) {
        const c = walk(Q, S, i, index.at(n));
        if (covers(q, c, r)) {
          found = c;
          break;
        }
      }
    }
    if (found === null) return null;
    copies.push(found);
  }
  return copies;
}

/** The smallest power of two ≥ 2n (at least 16), as the kernel sizes its tables. */
function tableSize(n: number): number {
  let size = 16;
  while (size < 2 * n) size *= 2;
  return size;
}

/** Bytes of scratch the kernel needs for a document window of `ns` words (its index and its runs' table). */
export const copyWalkScratch = (ns: number): number => 4 * (2 * tableSize(ns) + 5 * ns + 8);

/** Six i32 a region in the kernel's output: a0, a1, b0, b1, replaced, shared. */
const OUT_FIELDS = 6;

/**
 * {@link walkCopies} run by the core, each copy with its words in shared runs (`shared`). Throws the core's
 * WASM_ABORT if the core traps.
 * @example
 * walkCopiesInCore(core, Q, q, S, regions) // what walkCopies(Q, q, S, regions) gives, with `shared`
 */
export function walkCopiesInCore(
  core: Core,
  Q: Int32Array,
  q: WindowSpans,
  S: Int32Array,
  regions: readonly QuerySpan[],
): Copy[] | null {
  return core.guard(() => {
    const nq = Q.length,
      ns = S.length,
      nr = regions.length;
    const L = core.layout();
    const qPtr = L.take(4 * nq),
      sPtr = L.take(4 * ns),
      startPtr = L.take(4 * nq),
      endPtr = L.take(4 * nq),
      regPtr = L.take(8 * nr),
      scratch = L.take(copyWalkScratch(ns)),
      outPtr = L.take(4 * OUT_FIELDS * nr);
    L.commit();
    const buffer = core.u8.buffer;
    new Int32Array(buffer, qPtr, nq).set(Q);
    new Int32Array(buffer, sPtr, ns).set(S);
    new Uint32Array(buffer, startPtr, nq).set(q.start);
    new Uint32Array(buffer, endPtr, nq).set(q.end);
    const reg = new Uint32Array(buffer, regPtr, 2 * nr);
    for (let r = 0; r < nr; r++) {
      reg[2 * r] = regions[r].query_start;
      reg[2 * r + 1] = regions[r].query_end;
    }
    const done = core.raw.copyWalk(qPtr, nq, sPtr, ns, startPtr, endPtr, regPtr, nr, scratch, outPtr);
    if (done < nr) return null;
    const out = new Int32Array(core.u8.buffer, outPtr, OUT_FIELDS * nr);
    const copies: Copy[] = [];
    for (let r = 0, o = 0; r < nr; r++, o += OUT_FIELDS)
      if (out[o] >= 0)
        copies.push({
          a0: out[o],
          a1: out[o + 1],
          b0: out[o + 2],
          b1: out[o + 3],
          replaced: out[o + 4],
          shared: out[o + 5],
        });
    return copies;
  });
}
