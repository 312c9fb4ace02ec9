// Winnowing (Schleimer, Wilkerson, Aiken, "Winnowing: local algorithms for document
// fingerprinting", SIGMOD 2003), the robust variant of §3.1: in every window of w consecutive
// hashes the minimum is selected; on ties the earlier selection is kept while it stays in the
// window, and a rescan picks the rightmost minimum. Each selected position is recorded once.
//
// Guarantee: every window's minimum value is recorded, so two documents sharing a run of
// w consecutive shingles (w + n - 1 tokens for word n-grams) share at least one fingerprint.
// Expected density 2 / (w + 1). Hashes are compared as unsigned 64-bit integers.
//
// Why the loop is shaped as it is: a selection changes at about 2 / (w + 1) of the positions, and
// each change is a branch no predictor can learn on random hashes, taken or computed. V8 compiles
// a `select` to a compare, a set, a test and a conditional move, so a loop that computes the new
// minimum with selects carries a four-instruction chain from one position to the next; with a
// branch the common step (no new minimum, none leaving) is a load, two compares and the loop, and
// only a change pays its misprediction. The rescan stays branch-free (its compares are coin
// flips), and at the default window of 8 it is written out, without a loop's counter and checks.

/**
 * Select fingerprints from `count` u64 hashes at `hashesPtr` with window `w` (>= 1).
 * Writes selected indices (u32, increasing) to `outPtr`; returns how many.
 * With 1 <= count < w the whole sequence is one window.
 */
export function winnow(hashesPtr: usize, count: u32, w: u32, outPtr: usize): u32 {
  if (count == 0 || w == 0) return 0;
  if (w > count) w = count;
  winnowStart();
  const out = w == 8 ? winnow8Range(hashesPtr, 7, count, outPtr) : winnowRange(hashesPtr, w - 1, count, w, outPtr);
  return <u32>((out - outPtr) >> 2);
}

// The selection a winnowing carries from one piece of its hashes to the next (winnowRange, winnow8Range): the index of
// the current minimum (−1 before the first window) and its hash. A caller that consumes the hashes in pieces while they
// are in cache (assembly/sketches.ts: winnowOphSimhash) gets the selections of one whole pass.
let selected: i32 = -1;
let selectedHash: u64 = 0;

/** Starts a winnowing: no minimum selected yet. */
// @ts-ignore: decorator
@inline export function winnowStart(): void {
  selected = -1;
  selectedHash = 0;
}

/**
 * The windows ending at positions [`from`, `to`) of the hashes at `hashesPtr` (window `w`, `from` >= w − 1; the
 * windows before `from` done by earlier calls since {@link winnowStart}): their selections written from `out` on.
 * Returns where the next goes.
 */
export function winnowRange(hashesPtr: usize, from: u32, to: u32, w: u32, out: usize): usize {
  let min = selected;
  let minHash = selectedHash;
  for (let r: u32 = from; r < to; r++) {
    const left = <i32>(r - w + 1);
    const h = load<u64>(hashesPtr + (<usize>r << 3));
    if (min < left) {
      // the previous minimum left the window: rescan, rightmost minimum wins
      let best = <i32>r;
      let bestHash = h;
      for (let j = <i32>r - 1; j >= left; j--) {
        const hj = load<u64>(hashesPtr + (<usize>j << 3));
        const lt = hj < bestHash;
        best = select<i32>(j, best, lt);
        bestHash = select<u64>(hj, bestHash, lt);
      }
      min = best;
      minHash = bestHash;
      store<u32>(out, <u32>min);
      out += 4;
    } else if (h < minHash) {
      // a new minimum (an equal one leaves the earlier selection in place)
      min = <i32>r;
      minHash = h;
      store<u32>(out, r);
      out += 4;
    }
  }
  selected = min;
  selectedHash = minHash;
  return out;
}

/** {@link winnowRange} at w = 8 (`from` >= 7): the same selections, the rescan of 8 hashes written out. */
export function winnow8Range(hashesPtr: usize, from: u32, to: u32, out: usize): usize {
  let min = selected;
  let minHash = selectedHash;
  for (let r: u32 = from; r < to; r++) {
    const p = hashesPtr + (<usize>r << 3);
    const h = load<u64>(p);
    if (min < <i32>(r - 7)) {
      // from r down to r − 7, a hash replaces the best only when strictly smaller: the rightmost minimum
      let best = <i32>r;
      let bestHash = h;
      let hj = load<u64>(p - 8);
      let lt = hj < bestHash;
      best = select<i32>(<i32>r - 1, best, lt);
      bestHash = select<u64>(hj, bestHash, lt);
      hj = load<u64>(p - 16);
      lt = hj < bestHash;
      best = select<i32>(<i32>r - 2, best, lt);
      bestHash = select<u64>(hj, bestHash, lt);
      hj = load<u64>(p - 24);
      lt = hj < bestHash;
      best = select<i32>(<i32>r - 3, best, lt);
      bestHash = select<u64>(hj, bestHash, lt);
      hj = load<u64>(p - 32);
      lt = hj < bestHash;
      best = select<i32>(<i32>r - 4, best, lt);
      bestHash = select<u64>(hj, bestHash, lt);
      hj = load<u64>(p - 40);
      lt = hj < bestHash;
      best = select<i32>(<i32>r - 5, best, lt);
      bestHash = select<u64>(hj, bestHash, lt);
      hj = load<u64>(p - 48);
      lt = hj < bestHash;
      best = select<i32>(<i32>r - 6, best, lt);
      bestHash = select<u64>(hj, bestHash, lt);
      hj = load<u64>(p - 56);
      lt = hj < bestHash;
      best = select<i32>(<i32>r - 7, best, lt);
      bestHash = select<u64>(hj, bestHash, lt);
      min = best;
      minHash = bestHash;
      store<u32>(out, <u32>min);
      out += 4;
    } else if (h < minHash) {
      min = <i32>r;
      minHash = h;
      store<u32>(out, r);
      out += 4;
    }
  }
  selected = min;
  selectedHash = minHash;
  return out;
}

/**
 * The postings of `w` selected shingles: for selected index p (u32 at `winPtr`), the shingle hash
 * (u64 p at `hashesPtr`) to `outHashesPtr`, and its span — the start of token p (u32 at
 * `startsPtr`) and the end of token min(p + n − 1, count − 1) (u32 at `endsPtr`) — to
 * `outStartsPtr` and `outEndsPtr`. Token offsets are taken as they are (texts whose regions the
 * host maps itself gather in the host).
 */
export function winnowPostings(
  hashesPtr: usize, winPtr: usize, w: u32, n: u32, count: u32, startsPtr: usize, endsPtr: usize,
  outHashesPtr: usize, outStartsPtr: usize, outEndsPtr: usize,
): void {
  const last = count - 1;
  for (let i: usize = 0; i < <usize>w; i++) {
    const p = load<u32>(winPtr + (i << 2));
    const q = p + n - 1 < last ? p + n - 1 : last;
    store<u64>(outHashesPtr + (i << 3), load<u64>(hashesPtr + (<usize>p << 3)));
    store<u32>(outStartsPtr + (i << 2), load<u32>(startsPtr + (<usize>p << 2)));
    store<u32>(outEndsPtr + (i << 2), load<u32>(endsPtr + (<usize>q << 2)));
  }
}
