/**
 * The three exact-run finders as they were before the library had one (src/util/exact-runs.ts), kept verbatim as
 * references for test/unit/property/exact-runs.test.ts: the aligner's bigram index and greedy runs
 * (src/align/verbatim.ts `exactRuns`), the scan's 4-word key index (src/align/copies.ts `KeyIndex`: its candidate
 * positions, which were all of the copy walk's exact-run finding), and extraction's `RunIndex`
 * (src/services/memorization/text.ts). For tests only.
 */
import { PairTable } from '../../src/align/key-table.js';

/** A verbatim run of tokens shared by an output and a work. */
export interface TokenRun {
  readonly tokens: number;
  readonly output_token: number;
  readonly work_token: number;
}

/** Candidate positions kept per word bigram of b (bounds the work on repetitive texts). */
const MAX_CANDIDATES = 64;

/** A token range of each text: [ta0, ta1) of a and [tb0, tb1) of b. */
export interface TokenRange {
  readonly ta0: number;
  readonly ta1: number;
  readonly tb0: number;
  readonly tb1: number;
}

/** The first MAX_CANDIDATES positions (ascending) of each word bigram of `V[tb0 .. tb1)`. */
class BigramIndex {
  private readonly table: PairTable;
  private readonly off: Uint32Array;
  private readonly pos: Uint32Array;

  constructor(V: Int32Array, tb0: number, tb1: number) {
    const n = Math.max(0, tb1 - tb0 - 1);
    this.table = new PairTable(n);
    const idAt = new Int32Array(n);
    for (let q = tb0; q + 1 < tb1; q++) idAt[q - tb0] = this.table.add(V[q], V[q + 1]);
    const off = new Uint32Array(this.table.size + 1);
    for (let k = 0; k < n; k++) if (off[idAt[k] + 1] < MAX_CANDIDATES) off[idAt[k] + 1]++;
    for (let id = 0; id < this.table.size; id++) off[id + 1] += off[id];
    const fill = off.slice(0, this.table.size);
    const pos = new Uint32Array(off[this.table.size]);
    for (let k = 0; k < n; k++) {
      const id = idAt[k];
      if (fill[id] < off[id + 1]) pos[fill[id]++] = tb0 + k;
    }
    this.off = off;
    this.pos = pos;
  }

  /** The id of the bigram (x, y), −1 when absent: its positions are [{@link from}, {@link to}) in `pos`. */
  id(x: number, y: number): number {
    return this.table.get(x, y);
  }

  from(id: number): number {
    return id < 0 ? 0 : this.off[id];
  }

  to(id: number): number {
    return id < 0 ? 0 : this.off[id + 1];
  }

  at(k: number): number {
    return this.pos[k];
  }
}

/**
 * Exact runs of at least `K` words (all words), greedy longest-first from left to right in a, as flat
 * triples [a0, b0, len, a0, b0, len, …] of token indices.
 */
export function exactRunsBefore(
  pa: { tokWord: Int32Array },
  pb: { tokWord: Int32Array },
  K: number,
  r?: TokenRange,
): number[] {
  const W = pa.tokWord,
    V = pb.tokWord;
  const { ta0, ta1, tb0, tb1 } = r ?? { ta0: 0, ta1: W.length, tb0: 0, tb1: V.length };
  const index = new BigramIndex(V, tb0, tb1);
  const runs: number[] = [];
  for (let p = ta0; p + 1 < ta1; ) {
    const id = index.id(W[p], W[p + 1]); // no [from, to] array a token: this loop runs for every token of a
    const from = index.from(id),
      to = index.to(id);
    let best = 0,
      bq = -1;
    for (let k = from; k < to; k++) {
      const q = index.at(k);
      let len = 2;
      while (p + len < ta1 && q + len < tb1 && W[p + len] === V[q + len]) len++;
      if (len > best) {
        best = len;
        bq = q;
      }
    }
    if (best >= K) {
      runs.push(p, bq, best);
      p += best;
    } else p++;
  }
  return runs;
}

/** The smallest power of two ≥ 2n (at least 16): an open-addressing table of n entries at most half full. */
function tableSize(n: number): number {
  let size = 16;
  while (size < 2 * n) size *= 2;
  return size;
}

const KEY = 4;
const KEY_POSITIONS = 16;

/** The hash of the KEY word ids from i of `w`. */
function keyHash(w: Int32Array, i: number): number {
  let h = 0;
  for (let k = 0; k < KEY; k++) h = Math.imul(h ^ w[i + k], 0x9e3779b1);
  return h ^ (h >>> 15);
}

/**
 * The document window's keys (KEY word ids in a row, all of them the query's): for each, its first KEY_POSITIONS
 * positions in order. An open-addressing table of keys; a key's positions are a chain through `next`.
 */
export class KeyIndexBefore {
  private readonly slot: Int32Array; // a key, -1: empty
  private readonly mask: number;
  private readonly at: Int32Array; // a key's first position (its ids are S[at .. at + KEY))
  private readonly last: Int32Array; // a key's last position kept
  private readonly count: Int32Array;
  /** The next position of the same key, -1 after the last. */
  readonly next: Int32Array;

  constructor(private readonly S: Int32Array) {
    const size = tableSize(S.length);
    this.slot = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    this.at = new Int32Array(S.length);
    this.last = new Int32Array(S.length);
    this.count = new Int32Array(S.length);
    this.next = new Int32Array(S.length).fill(-1);
    let keys = 0;
    for (let j = 0; j + KEY <= S.length; j++) {
      if (S[j] < 0 || S[j + 1] < 0 || S[j + 2] < 0 || S[j + 3] < 0) continue; // no key of the query's
      const k = this.find(S, j);
      const key = this.slot[k];
      if (key < 0) {
        this.slot[k] = keys;
        this.at[keys] = this.last[keys] = j;
        this.count[keys++] = 1;
      } else if (this.count[key] < KEY_POSITIONS) {
        this.next[this.last[key]] = j;
        this.last[key] = j;
        this.count[key]++;
      }
    }
  }

  /** The first position of the key at i of `w` (KEY ids), or -1 when the document window lacks it. */
  first(w: Int32Array, i: number): number {
    const key = this.slot[this.find(w, i)];
    return key < 0 ? -1 : this.at[key];
  }

  /** The slot of the key at i of `w`: its own, or the empty one where it would go. */
  private find(w: Int32Array, i: number): number {
    const { slot, at, S, mask } = this;
    let k = keyHash(w, i) & mask;
    for (; slot[k] >= 0; k = (k + 1) & mask) {
      const j = at[slot[k]];
      if (S[j] === w[i] && S[j + 1] === w[i + 1] && S[j + 2] === w[i + 2] && S[j + 3] === w[i + 3]) break;
    }
    return k;
  }
}

export class RunIndexBefore {
  readonly tokens: string[];
  private readonly seeds = new Map<string, number[]>();
  constructor(
    tokens: string[],
    readonly seed = 4,
  ) {
    this.tokens = tokens;
    for (let j = 0; j + seed <= tokens.length; j++) {
      const key = tokens.slice(j, j + seed).join(' ');
      const list = this.seeds.get(key);
      if (list) list.push(j);
      else this.seeds.set(key, [j]);
    }
  }

  /** Maximal shared runs of ≥ max(seed, minTokens) tokens, longest first (one per diagonal stretch). */
  runs(out: readonly string[], minTokens = this.seed): TokenRun[] {
    const found: TokenRun[] = [];
    const seen = new Set<string>();
    for (let i = 0; i + this.seed <= out.length; i++) {
      const list = this.seeds.get(out.slice(i, i + this.seed).join(' '));
      if (!list) continue;
      for (const j of list) {
        // start of the maximal run through (i, j)
        let a = i,
          b = j;
        while (a > 0 && b > 0 && out[a - 1] === this.tokens[b - 1]) {
          a--;
          b--;
        }
        const key = `${a}:${b}`;
        if (seen.has(key)) continue;
        seen.add(key);
        let n = 0;
        while (a + n < out.length && b + n < this.tokens.length && out[a + n] === this.tokens[b + n]) n++;
        if (n >= minTokens) found.push({ tokens: n, output_token: a, work_token: b });
      }
    }
    return found.sort((x, y) => y.tokens - x.tokens || x.output_token - y.output_token);
  }
}
