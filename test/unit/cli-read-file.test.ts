/**
 * `trainprint fingerprint` reads a text file as UTF-8 bytes it does not decode (src/cli/read-file.ts readTextBytes):
 * those bytes decode to the text `readTextFile` gives (a leading byte order mark dropped, a later U+FEFF kept), and
 * what `readTextFile` refuses, `readTextBytes` refuses with the same words — so the engine's fingerprint of the
 * bytes, which is that of the text they decode to (test/unit/property/fingerprint-bytes.test.ts), is the command's.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTextBytes, readTextFile } from '../../src/cli/read-file.js';
import { prng } from '../reference/core.js';
import { randomText } from './property/gen.js';

const dir = mkdtempSync(join(tmpdir(), 'tp-read-file-'));
const keepingBom = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const enc = (s: string) => new TextEncoder().encode(s);

/** Both readers' answers for `bytes` written to a file: the text, or the refusal's code and words. */
async function bothReads(name: string, bytes: Uint8Array) {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  const outcome = async <T>(read: () => Promise<T>) =>
    read().then(
      (v) => ({ ok: v }),
      (e: { code?: string; message?: string }) => ({ code: e.code, message: e.message }),
    );
  const text = await outcome(() => readTextFile(file, 'text'));
  const bytesRead = await outcome(() => readTextBytes(file, 'text'));
  return { text, bytes: 'ok' in bytesRead ? { ok: keepingBom.decode(bytesRead.ok) } : bytesRead };
}

describe('readTextBytes', () => {
  it("decodes to readTextFile's text: byte order marks, U+FEFF later, empty files, every script", async () => {
    const cases: Array<[string, Uint8Array]> = [
      ['empty', new Uint8Array()],
      ['bom only', enc('\ufeff')],
      ['bom', enc('\ufeffIt was the best of times')],
      ['two boms', enc('\ufeff\ufeffa word')],
      ['feff later', enc('a \ufeff word')],
      ['bom cut short', new Uint8Array([0xef, 0xbb])],
    ];
    const rnd = prng(8_320);
    for (let t = 0; t < 40; t++) {
      const text = randomText(91_000 + t, Math.floor(rnd() * 400), rnd());
      cases.push([`random ${t}`, enc(t % 3 === 0 ? `\ufeff${text}` : text)]);
    }
    for (const [name, bytes] of cases) {
      const { text, bytes: fromBytes } = await bothReads(`${name.replace(/ /g, '-')}.txt`, bytes);
      expect(fromBytes, name).toEqual(text);
    }
  });

  it('refuses what readTextFile refuses, in the same words (surrogates, overlongs, cut short, Latin-1)', async () => {
    const bad: Array<[string, number[]]> = [
      ['latin1', [0x63, 0x61, 0x66, 0xe9]],
      ['surrogate', [0x61, 0xed, 0xa0, 0x80]],
      ['overlong', [0xc0, 0x80]],
      ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
      ['cut short', [0x61, 0xe2, 0x82]],
      ['bom then bad', [0xef, 0xbb, 0xbf, 0xff]],
    ];
    for (const [name, bytes] of bad) {
      const { text, bytes: fromBytes } = await bothReads(`${name.replace(/ /g, '-')}.txt`, new Uint8Array(bytes));
      expect(text, name).toMatchObject({ code: 'INVALID_INPUT' });
      expect(fromBytes, name).toEqual(text);
    }
    // a file that is not there: the same refusal naming it
    const none = join(dir, 'none.txt');
    const refusal = (e: { code?: string; message?: string }) => ({ code: e.code, message: e.message });
    const viaText = await readTextFile(none, 'text').catch(refusal);
    expect(viaText).toMatchObject({ code: 'INVALID_INPUT' });
    expect(await readTextBytes(none, 'text').catch(refusal)).toEqual(viaText);
  });
});
