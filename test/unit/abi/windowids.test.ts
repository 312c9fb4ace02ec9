/**
 * Raw-ABI tests of windowIds (assembly/windowids.ts) on the scalar, SIMD and debug builds, with token columns written
 * by hand (spans and hashes chosen here, not the tokenizer's): case variants of one hash share an id, a hash the query
 * lacks is −1, two spellings of one hash or a form outside ASCII met twice give up, and the walk from UTF-16 offsets
 * to bytes passes two- and four-byte characters and a rewritten separator's 0xFF bytes.
 */
import { describe, expect, it } from 'vitest';
import { windowIdsScratch } from '../../../src/align/window-words.js';
import type { Core } from '../../../src/core/abi.js';
import { BUILDS, coreOf } from './helpers.js';

/** One window: its UTF-8, its UTF-16 length, its tokens' [start, end) (UTF-16) and hashes. */
interface Win {
  bytes: number[];
  units: number;
  spans: Array<[number, number]>;
  hashes: bigint[];
}

const utf8 = (s: string) => Array.from(new TextEncoder().encode(s));
/** A window of text `s` with tokens at `spans`, hashed `hashes`. */
const win = (s: string, spans: Array<[number, number]>, hashes: bigint[]): Win => ({
  bytes: utf8(s),
  units: s.length,
  spans,
  hashes,
});

/** Runs the kernel with bases 100 and 200; returns [settled, q starts, q ends, Q, s starts, s ends, S]. */
function run(core: Core, q: Win, s: Win): [number, ...number[][]] {
  const L = core.layout();
  const put = (w: Win) => {
    const n = w.spans.length;
    const text = L.take(w.bytes.length + 8),
      starts = L.take(4 * n),
      ends = L.take(4 * n),
      hashes = L.take(8 * n);
    return { w, n, text, starts, ends, hashes };
  };
  const a = put(q),
    b = put(s);
  const scratch = L.take(windowIdsScratch(a.n)),
    out = L.take(12 * (a.n + b.n));
  L.commit();
  for (const x of [a, b]) {
    core.u8.set(x.w.bytes, x.text);
    core.u32(x.starts, x.n).set(x.w.spans.map((p) => p[0]));
    core.u32(x.ends, x.n).set(x.w.spans.map((p) => p[1]));
    core.u64(x.hashes, x.n).set(x.w.hashes);
  }
  const done = core.raw.windowIds(
    a.text,
    q.bytes.length,
    q.units,
    a.n,
    a.starts,
    a.ends,
    a.hashes,
    100,
    b.text,
    s.bytes.length,
    s.units,
    b.n,
    b.starts,
    b.ends,
    b.hashes,
    200,
    scratch,
    out,
  );
  const o = Array.from(new Int32Array(core.u8.buffer, out, 3 * (a.n + b.n)));
  const [n, m] = [a.n, b.n];
  return [
    done,
    o.slice(0, n),
    o.slice(n, 2 * n),
    o.slice(2 * n, 3 * n),
    o.slice(3 * n, 3 * n + m),
    o.slice(3 * n + m, 3 * n + 2 * m),
    o.slice(3 * n + 2 * m),
  ];
}

describe.each(BUILDS)('windowIds (%s)', (build) => {
  it('numbers case variants of a hash as one form, a hash the query lacks −1; spans shifted by each base', async () => {
    const core = await coreOf(build);
    const q = win(
      'The cat. THE CAT',
      [
        [0, 3],
        [4, 7],
        [9, 12],
        [13, 16],
      ],
      [1n, 2n, 1n, 2n],
    );
    const s = win(
      'a cat',
      [
        [0, 1],
        [2, 5],
      ],
      [7n, 2n],
    );
    expect(run(core, q, s)).toEqual([
      1,
      [100, 104, 109, 113],
      [103, 107, 112, 116],
      [0, 1, 0, 1],
      [200, 202],
      [201, 205],
      [-1, 1],
    ]);
  });

  it('gives up two spellings of one hash, and a form outside ASCII met twice (in either window)', async () => {
    const core = await coreOf(build);
    const empty = win('', [], []);
    // 'cat' and 'dog' with one hash (a collision): the characters tell them apart, so nothing settles them
    expect(
      run(
        core,
        win(
          'cat dog',
          [
            [0, 3],
            [4, 7],
          ],
          [5n, 5n],
        ),
        empty,
      )[0],
    ).toBe(0);
    // lengths differ: 'cat' and 'cats'
    expect(
      run(
        core,
        win(
          'cat cats',
          [
            [0, 3],
            [4, 8],
          ],
          [5n, 5n],
        ),
        empty,
      )[0],
    ).toBe(0);
    // a digit and a letter that differ by 0x20 are not one character but for case ('0' 0x30, 'P' 0x50)
    expect(
      run(
        core,
        win(
          'a0 aP',
          [
            [0, 2],
            [3, 5],
          ],
          [5n, 5n],
        ),
        empty,
      )[0],
    ).toBe(0);
    // 'café' twice, by hash: not ASCII, so its form is not settled by its characters
    expect(
      run(
        core,
        win(
          'café café',
          [
            [0, 4],
            [5, 9],
          ],
          [9n, 9n],
        ),
        empty,
      )[0],
    ).toBe(0);
    // once in each window
    expect(run(core, win('café', [[0, 4]], [9n]), win('café', [[0, 4]], [9n]))[0]).toBe(0);
    // an ASCII form first, the same hash outside ASCII after it ('ﬁx' normalises to 'fix')
    expect(run(core, win('fix', [[0, 3]], [9n]), win('ﬁx', [[0, 2]], [9n]))[0]).toBe(0);
    // 'café' once, its hash never met again: settled
    expect(
      run(
        core,
        win(
          'café x',
          [
            [0, 4],
            [5, 6],
          ],
          [9n, 3n],
        ),
        win('x', [[0, 1]], [3n]),
      ),
    ).toEqual([1, [100, 105], [104, 106], [0, 1], [200], [201], [1]]);
  });

  it('finds the bytes of each word past two- and four-byte characters and a rewritten separator', async () => {
    const core = await coreOf(build);
    // 'é' (2 bytes, 1 unit) and an emoji (4 bytes, 2 units) before the words; in the document a separator the
    // tokenizer rewrote as ' ' 0xFF 0xFF (3 bytes, 1 unit) and a long ASCII stretch walked eight bytes at a time
    const q = win(
      'é Word 😀 word',
      [
        [2, 6],
        [10, 14],
      ],
      [4n, 4n],
    );
    const sText = 'abcdefghijklmnop WORD\u2014wOrD';
    const s = win(
      sText,
      [
        [0, 16],
        [17, 21],
        [22, 26],
      ],
      [8n, 4n, 4n],
    );
    const at = sText.indexOf('\u2014');
    s.bytes.splice(at, 3, 0x20, 0xff, 0xff);
    expect(run(core, q, s)).toEqual([1, [102, 110], [106, 114], [0, 0], [200, 217, 222], [216, 221, 226], [-1, 0, 0]]);
    // the same words with one letter changed after the four-byte character: the check reads the right bytes
    const q2 = win(
      'é Word 😀 wore',
      [
        [2, 6],
        [10, 14],
      ],
      [4n, 4n],
    );
    expect(run(core, q2, win('', [], []))[0]).toBe(0);
  });
});
