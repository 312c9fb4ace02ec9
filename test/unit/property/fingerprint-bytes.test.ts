/**
 * UTF-8 bytes handed over to the engine (`engine.fingerprintHandedOver`, what `trainprint fingerprint` does with a text
 * file it has read) are tokenised as they are, with no string made of them and no copy kept: every field, the columns
 * computed when first read and `work_hash` included, equals the fingerprint of the string the bytes decode to, on
 * seeded random Unicode of every script (a byte order mark and a later U+FEFF among them, U+FFFD, large NFKC expansions,
 * runs of marks and changed words over 2 KiB, which the core hands back to the host normaliser), in both builds of the
 * core, as does `engine.fingerprint` of the bytes (which tokenises a copy of them); the command's summary of a file read
 * as bytes is that of the file read as text; and `engine.fingerprint` of bytes keeps its result whatever the caller
 * does to them after the call.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readTextBytes, readTextFile } from '../../../src/cli/read-file.js';
import { summary } from '../../../src/cli/summary.js';
import { createEngine, type Engine, type FingerprintOptions } from '../../../src/library.js';
import { prng } from '../../reference/core.js';
import { randomText } from './gen.js';
import { plainFingerprint as plain } from './plain-fingerprint.js';

const encode = (s: string) => new TextEncoder().encode(s);
const MARKS = ['\u0301', '\u0323', '\u0345', '\u05b0'];
const marks = (k: number) => Array.from({ length: k }, (_, i) => MARKS[i % 4]).join('');
// what the core hands back to the host normaliser, or tokenises only after a check of the host's: U+FFFD, ㋿ and U+FDFA
// (more tokens or bytes than a region's room), a changed word over 2 KiB, runs of marks too long for the core
const HANDED = ['\ufffd', '㋿㋿㋿㋿', '\ufdfa', `Ж${'ж'.repeat(1100)}`, `a${marks(5000)}`, `é${marks(3000)}`];

/** A random text of every script, with a byte order mark, a later U+FEFF and handed-back pieces by `t`. */
function textOf(t: number, rnd: () => number): string {
  let text = randomText(88_000 + t, t < 4 ? t : Math.floor(rnd() * 700), rnd());
  const points = Array.from(text); // pieces go between code points: a pair is not cut
  if (t % 3 === 1) points.splice(Math.floor(rnd() * (points.length + 1)), 0, HANDED[t % HANDED.length]);
  if (t % 6 === 2) points.splice(points.length >> 1, 0, '\ufeff');
  text = points.join('');
  return t % 4 === 1 ? `\ufeff${text}` : text; // a byte order mark: text to the engine, as a decoder keeping it says
}

const optionsOf = (t: number): FingerprintOptions => ({
  shingle: { unit: t % 9 === 4 ? 'char' : 'word', size: 1 + (t % 7) },
  winnow: t % 5 === 0 ? false : { window: 1 + (t % 11) },
  seed: t % 3 === 0 ? 0 : t * 7919,
  ...(t % 8 === 3 ? { minhash: { mode: 'classic' as const, permutations: 16 } } : {}),
});

describe.each([
  ['simd', true],
  ['scalar', false],
] as const)('fingerprint of bytes handed over, %s build', (_name, simd) => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine({ simd });
  });

  it('equals the fingerprint of the decoded string on random Unicode (U+FEFF, U+FFFD, expansions, marks, long words)', async () => {
    const rnd = prng(8_310);
    for (let t = 0; t < 160; t++) {
      const text = textOf(t, rnd);
      const options = optionsOf(t);
      const first = (['hashes', 'starts', 'ends'] as const)[t % 3];
      // the lazy columns read in a different order each time, and after the other call's: each from its own input
      const bytes = encode(text);
      const handedOver = await engine.fingerprintHandedOver(bytes, options);
      const copied = await engine.fingerprint(bytes, options); // bytes the engine copies
      const fromText = plain(await engine.fingerprint(text, options), first);
      expect(plain(handedOver, first), `case ${t}`).toEqual(fromText);
      expect(plain(copied, first), `case ${t}`).toEqual(fromText);
    }
  });

  it("gives the command's summary of a file read as bytes as that of the file read as text", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tp-fp-bytes-'));
    const rnd = prng(8_312);
    for (let t = 0; t < 40; t++) {
      const file = join(dir, `${t}.txt`);
      writeFileSync(file, encode(textOf(t, rnd)));
      const fromText = summary(await engine.fingerprint(await readTextFile(file, 'text')));
      const fromBytes = summary(await engine.fingerprintHandedOver(await readTextBytes(file, 'text')));
      expect(JSON.stringify(fromBytes, null, 2), `case ${t}`).toBe(JSON.stringify(fromText, null, 2));
    }
  });

  it('keeps the result of fingerprint(bytes) whatever the caller does to the bytes after the call', async () => {
    const text = 'It was the best of times, it was the worst of times — Это было лучшее из времён, 日本語のテキスト.';
    const expected = plain(await engine.fingerprint(text));
    for (const change of [
      (b: Uint8Array) => b.fill(0x20),
      (b: Uint8Array) => b.fill(0xff),
      (b: Uint8Array) => b.reverse(),
    ]) {
      const bytes = encode(text);
      const fp = await engine.fingerprint(bytes);
      change(bytes);
      expect(plain(fp)).toEqual(expected);
    }
  });

  it('refuses what a strict decoder refuses, and what is not bytes, as INVALID_INPUT', async () => {
    const bad = [[0xed, 0xa0, 0x80], [0xc0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xff], [0x80]];
    const rnd = prng(8_311);
    for (let t = 0; t < 24; t++) {
      const before = encode(randomText(89_000 + t, Math.floor(rnd() * 100), rnd()));
      const bytes = new Uint8Array([...before, ...bad[t % bad.length], 0x61]);
      await expect(engine.fingerprintHandedOver(bytes, optionsOf(t))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
    for (const notBytes of <unknown[]>['text', null, [0x61], new Uint16Array(2)])
      await expect(engine.fingerprintHandedOver(notBytes as Uint8Array)).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
  });
});
