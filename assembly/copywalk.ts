// The walk that settles a copy (src/align/copy-walk.ts is its plain-TS reference, `walkCopies`): two windows' words
// as ids (equal words, equal ids; a document word the query lacks is negative), an index of the document window's
// 4-grams (the first 16 positions of each, ascending; a 4-gram holding a negative id is not indexed), and for each
// seed region of the query (a UTF-16 span; each word's span given) the first copy through one of its 4-grams that
// covers the region: walked forward and back while the words agree, stepping over up to 3 words replaced, inserted
// or dropped on each side where 3 words agree after them. A region that a copy found for an earlier one covers
// is skipped. For each copy found, the words of its query side inside a run of 3 words (fewer for a shorter copy)
// that its document side holds too (`runShare` of src/align/reuse.ts, as a count).
//
// Why in the core: the walk runs for each output a scan searches, a few hundred times a process, where JavaScript
// runs it as baseline code; the core's code is compiled before its first call. Nothing allocates: the caller lays
// out every buffer in the arena (scratch: copyWalkScratch bytes of src/align/copy-walk.ts).

const KEY: i32 = 4;
const KEY_POSITIONS: u32 = 16;
const RESUME: i32 = 3;
const RUN_WORDS: i32 = 3;
const GAPS: i32 = 15;
// The gaps a walk steps over, (words of the query, words of the document): the fewest words on the longer side
// first, then the fewest in all, then more of the query's first (the reference's GAPS, sorted the same way).
const GAP_Q: usize = memory.data<u8>([1, 0, 1, 2, 0, 2, 1, 2, 3, 0, 3, 1, 3, 2, 3]);
const GAP_S: usize = memory.data<u8>([0, 1, 1, 0, 2, 1, 2, 2, 0, 3, 1, 3, 2, 3, 3]);

// i32 at `p`, element `i`
// @ts-ignore: decorator
@inline function at(p: usize, i: i32): i32 {
  return load<i32>(p + (<usize>i << 2));
}

// @ts-ignore: decorator
@inline function put(p: usize, i: i32, v: i32): void {
  store<i32>(p + (<usize>i << 2), v);
}

/** The smallest power of two ≥ 2n (at least 16): a table of n keys at most half full. */
function tableSize(n: i32): i32 {
  let size = 16;
  while (size < 2 * n) size <<= 1;
  return size;
}

function gramHash(w: usize, i: i32): u32 {
  let h: u32 = (0x811c9dc5 ^ <u32>at(w, i)) * 0x9e3779b1;
  for (let n = 1; n < KEY; n++) h = (h ^ <u32>at(w, i + n)) * 0x9e3779b1;
  h ^= h >>> 16;
  h *= 0x7feb352d;
  return h ^ (h >>> 15);
}

// The slot of the 4-gram at i of `w` in the index of `ids` (its key there, or the empty slot it would take).
function probe(slots: usize, first: usize, ids: usize, mask: i32, w: usize, i: i32): i32 {
  let s = <i32>gramHash(w, i) & mask;
  for (; at(slots, s) >= 0; s = (s + 1) & mask) {
    const f = at(first, at(slots, s));
    let n = 0;
    while (n < KEY && at(ids, f + n) == at(w, i + n)) n++;
    if (n == KEY) break;
  }
  return s;
}

// Whether n words agree from i of Q and j of S (all inside both).
function agree(qPtr: usize, nq: i32, sPtr: usize, ns: i32, i: i32, j: i32, n: i32): bool {
  if (i < 0 || j < 0 || i + n > nq || j + n > ns) return false;
  for (let k = 0; k < n; k++) if (at(qPtr, i + k) != at(sPtr, j + k)) return false;
  return true;
}

// The index's columns in scratch: slots (size), first, key of each position, offsets (keys + 1), positions.
let slotsAt: usize = 0;
let firstAt: usize = 0;
let offAt: usize = 0;
let posAt: usize = 0;
let maskOf: i32 = 0;

// Index the 4-grams of S: each distinct one's first KEY_POSITIONS positions, ascending, in CSR form.
function buildIndex(sPtr: usize, ns: i32, scratch: usize): usize {
  const n = ns - KEY + 1 > 0 ? ns - KEY + 1 : 0;
  const size = tableSize(n);
  const slots = scratch;
  const first = slots + (<usize>size << 2);
  const idAt = first + (<usize>n << 2);
  const off = idAt + (<usize>n << 2);
  const pos = off + (<usize>(n + 1) << 2);
  memory.fill(slots, 0xff, <usize>size << 2);
  const mask = size - 1;
  let keys = 0;
  let negative = -1; // the last negative id before the 4-gram's end
  for (let m = 0; m < KEY - 1 && m < ns; m++) if (at(sPtr, m) < 0) negative = m;
  for (let j = 0; j < n; j++) {
    if (at(sPtr, j + KEY - 1) < 0) negative = j + KEY - 1;
    if (negative >= j) {
      put(idAt, j, -1);
      continue;
    }
    const slot = probe(slots, first, sPtr, mask, sPtr, j);
    let id = at(slots, slot);
    if (id < 0) {
      id = keys++;
      put(slots, slot, id);
      put(first, id, j);
    }
    put(idAt, j, id);
  }
  memory.fill(off, 0, <usize>(keys + 1) << 2);
  for (let j = 0; j < n; j++) {
    const id = at(idAt, j);
    if (id >= 0 && <u32>at(off, id + 1) < KEY_POSITIONS) put(off, id + 1, at(off, id + 1) + 1);
  }
  for (let id = 0; id < keys; id++) put(off, id + 1, at(off, id + 1) + at(off, id));
  // each key's next free position: its offset, counted up (idAt's column is free again after this loop reads it)
  const fill = pos + (<usize>n << 2);
  memory.copy(fill, off, <usize>keys << 2);
  for (let j = 0; j < n; j++) {
    const id = at(idAt, j);
    if (id >= 0 && at(fill, id) < at(off, id + 1)) {
      put(pos, at(fill, id), j);
      put(fill, id, at(fill, id) + 1);
    }
  }
  slotsAt = slots;
  firstAt = first;
  offAt = off;
  posAt = pos;
  maskOf = mask;
  return fill + (<usize>n << 2);
}

// The copy's ends, as the walk leaves them (the replaced words are its return value).
let walkA0: i32 = 0;
let walkA1: i32 = 0;
let walkB0: i32 = 0;
let walkB1: i32 = 0;

// Forward from words i of Q and j of S while the words agree, stepping over gaps: walkA1, walkB1; the words replaced.
function walkForward(qPtr: usize, nq: i32, sPtr: usize, ns: i32, i: i32, j: i32): i32 {
  let replaced = 0;
  let x = i,
    y = j;
  while (x < nq && y < ns) {
    if (at(qPtr, x) == at(sPtr, y)) {
      x++;
      y++;
      continue;
    }
    let g = 0;
    while (g < GAPS && !agree(qPtr, nq, sPtr, ns, x + load<u8>(GAP_Q + g), y + load<u8>(GAP_S + g), RESUME)) g++;
    if (g == GAPS) break;
    const gq = <i32>load<u8>(GAP_Q + g),
      gs = <i32>load<u8>(GAP_S + g);
    replaced += gq > gs ? gq : gs;
    x += gq;
    y += gs;
  }
  walkA1 = x;
  walkB1 = y;
  return replaced;
}

// Back from words i of Q and j of S (the first of the copy so far): walkA0, walkB0; the words replaced.
function walkBack(qPtr: usize, nq: i32, sPtr: usize, ns: i32, i: i32, j: i32): i32 {
  let replaced = 0;
  let u = i,
    v = j;
  while (u > 0 && v > 0) {
    if (at(qPtr, u - 1) == at(sPtr, v - 1)) {
      u--;
      v--;
      continue;
    }
    let g = 0;
    while (
      g < GAPS &&
      !agree(qPtr, nq, sPtr, ns, u - load<u8>(GAP_Q + g) - RESUME, v - load<u8>(GAP_S + g) - RESUME, RESUME)
    )
      g++;
    if (g == GAPS) break;
    const gq = <i32>load<u8>(GAP_Q + g),
      gs = <i32>load<u8>(GAP_S + g);
    replaced += gq > gs ? gq : gs;
    u -= gq;
    v -= gs;
  }
  walkA0 = u;
  walkB0 = v;
  return replaced;
}

// Whether the copy [a0, a1) of the query's words holds the region [rs, re) of the query (UTF-16).
// @ts-ignore: decorator
@inline function covers(qStart: usize, qEnd: usize, a0: i32, a1: i32, rs: i32, re: i32): bool {
  return <u32>at(qStart, a0) <= <u32>rs && <u32>at(qEnd, a1 - 1) >= <u32>re;
}

// The words of q[q0, q1) inside a run of RUN_WORDS words (fewer for a shorter run) that s[s0, s1) holds too.
function runCovered(qPtr: usize, q0: i32, q1: i32, sPtr: usize, s0: i32, s1: i32, table: usize): i32 {
  const n = q1 - q0;
  if (n <= 0) return 0;
  const run = n < RUN_WORDS ? n : RUN_WORDS;
  const grams = s1 - s0 - run + 1 > 0 ? s1 - s0 - run + 1 : 0;
  const mask = tableSize(grams) - 1;
  memory.fill(table, 0xff, <usize>(mask + 1) << 2);
  for (let j = s0; j + run <= s1; j++) {
    let h = runHash(sPtr, j, run) & mask;
    while (at(table, h) >= 0 && !sameRun(sPtr, at(table, h), sPtr, j, run)) h = (h + 1) & mask;
    if (at(table, h) < 0) put(table, h, j);
  }
  let covered = 0,
    coveredTo = q0;
  for (let i = q0; i + run <= q1; i++) {
    let h = runHash(qPtr, i, run) & mask;
    while (at(table, h) >= 0 && !sameRun(qPtr, i, sPtr, at(table, h), run)) h = (h + 1) & mask;
    if (at(table, h) < 0) continue;
    covered += i + run - (i > coveredTo ? i : coveredTo);
    coveredTo = i + run;
  }
  return covered;
}

function runHash(w: usize, i: i32, run: i32): i32 {
  let h: u32 = <u32>at(w, i) ^ 0x9e3779b9;
  h = (h * 0x85ebca6b) ^ (run > 1 ? <u32>at(w, i + 1) : 0);
  h = (h * 0xc2b2ae35) ^ (run > 2 ? <u32>at(w, i + 2) : 0);
  h *= 0x27d4eb2f;
  return <i32>(h ^ (h >>> 15));
}

// @ts-ignore: decorator
@inline function sameRun(a: usize, i: i32, b: usize, j: i32, run: i32): bool {
  let k = 0;
  while (k < run && at(a, i + k) == at(b, j + k)) k++;
  return k == run;
}

// The first copy through a 4-gram of the query's words inside region [rs, re) that covers the region: its replaced
// words, walkA0..walkB1 set; -1 when there is none.
function copyOfRegion(qPtr: usize, nq: i32, sPtr: usize, ns: i32, qStart: usize, qEnd: usize, rs: i32, re: i32): i32 {
  for (let i = 0; i + KEY <= nq; i++) {
    if (<u32>at(qStart, i) < <u32>rs) continue;
    if (<u32>at(qEnd, i) > <u32>re) break;
    const key = at(slotsAt, probe(slotsAt, firstAt, sPtr, maskOf, qPtr, i));
    if (key < 0) continue;
    for (let p = at(offAt, key), to = at(offAt, key + 1); p < to; p++) {
      const j = at(posAt, p);
      const replaced = walkForward(qPtr, nq, sPtr, ns, i, j) + walkBack(qPtr, nq, sPtr, ns, i, j);
      if (covers(qStart, qEnd, walkA0, walkA1, rs, re)) return replaced;
    }
  }
  return -1;
}

/**
 * The copies that explain `regions` seed regions (u32 pairs: the query span's start and end, UTF-16) in the windows'
 * words Q (nq i32 ids, all ≥ 0; spans at qStartPtr and qEndPtr, u32) and S (ns i32 ids). Writes six i32 per region
 * at outPtr: the copy's words [a0, a1) of Q and [b0, b1) of S, its replaced words, and its words in shared runs of 3
 * — or a0 = -1 for a region a copy of an earlier region covers. Returns `regions`, or the first region that no copy
 * covers (the outputs after it unwritten). scratchPtr: 4 · (2 · tableSize(ns) + 5 · ns + 8) bytes.
 */
export function copyWalk(
  qPtr: usize, nq: i32, sPtr: usize, ns: i32, qStartPtr: usize, qEndPtr: usize,
  regPtr: usize, regions: i32, scratchPtr: usize, outPtr: usize,
): i32 {
  const table = buildIndex(sPtr, ns, scratchPtr);
  for (let r = 0; r < regions; r++) {
    const rs = at(regPtr, 2 * r),
      re = at(regPtr, 2 * r + 1);
    const out = outPtr + (<usize>r * 24);
    let held = false;
    for (let c = 0; c < r && !held; c++) {
      const prev = outPtr + (<usize>c * 24);
      const a0 = load<i32>(prev);
      held = a0 >= 0 && covers(qStartPtr, qEndPtr, a0, load<i32>(prev, 4), rs, re);
    }
    if (held) {
      store<i32>(out, -1);
      continue;
    }
    const replaced = copyOfRegion(qPtr, nq, sPtr, ns, qStartPtr, qEndPtr, rs, re);
    if (replaced < 0) return r;
    store<i32>(out, walkA0);
    store<i32>(out, walkA1, 4);
    store<i32>(out, walkB0, 8);
    store<i32>(out, walkB1, 12);
    store<i32>(out, replaced, 16);
    store<i32>(out, runCovered(qPtr, walkA0, walkA1, sPtr, walkB0, walkB1, table), 20);
  }
  return regions;
}
