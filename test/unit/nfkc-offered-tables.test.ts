/**
 * The TypeScript normaliser's tables taken from a source offered before its first use (offerDecodedTables: the core's
 * decode, src/fingerprint/words.ts ensureTables), each case in a module graph of its own (the unit files share their
 * worker's modules, so the normaliser there may have its tables already): the source is read once, on the first call
 * that needs the tables; `normalize` gives the same text and offsets as with its own decode; a source that gives
 * nothing leaves the decode to the normaliser; an offer made after the tables are here is never read; and a text
 * fingerprinted by an engine (the core decoding its tables) makes the normaliser read the core's.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

type Casefold = typeof import('../../src/text/nfkc-casefold.js');
type Normalize = typeof import('../../src/text/normalize.js');

/** A fresh module graph's normaliser. */
async function fresh(): Promise<{ casefold: Casefold; normalize: Normalize['normalize'] }> {
  vi.resetModules();
  const casefold = await import('../../src/text/nfkc-casefold.js');
  const { normalize } = await import('../../src/text/normalize.js');
  return { casefold, normalize };
}

const TEXTS = [
  'Straße ﬁ Ａ café ᾳ\u0313 한국어 Привет 日本語の文章です Ǆemal ①② e\u0301 \u1100\u1161\u11a8',
  'ΣΊΣΥΦΟΣ — “quoted” l’été ﬀ Ⅻ ½ ㎏ \u00c5\u030a',
];

afterEach(() => {
  vi.resetModules();
});

describe('tables offered to the TypeScript normaliser', () => {
  it('reads the offered source once, when first needed, and normalises as its own decode does', async () => {
    const own = await fresh();
    const expected = TEXTS.map((t) => own.normalize(t));
    const reference = own.casefold.flatTables();

    const { casefold, normalize } = await fresh();
    const source = vi.fn(() => reference);
    casefold.offerDecodedTables(source);
    expect(source).not.toHaveBeenCalled();
    expect(TEXTS.map((t) => normalize(t))).toEqual(expected);
    expect(casefold.flatTables().data).toBe(reference.data); // the offered arrays themselves, not a decode
    expect(source).toHaveBeenCalledTimes(1);
  });

  it('decodes the tables itself when the source gives nothing', async () => {
    const own = await fresh();
    const expected = TEXTS.map((t) => own.normalize(t));
    const { casefold, normalize } = await fresh();
    const source = vi.fn(() => undefined);
    casefold.offerDecodedTables(source);
    expect(TEXTS.map((t) => normalize(t))).toEqual(expected);
    expect(source).toHaveBeenCalledTimes(1);
    expect(casefold.flatTables()).toEqual(own.casefold.flatTables());
  });

  it('never reads an offer made once its tables are here, nor a second offer', async () => {
    const { casefold, normalize } = await fresh();
    const first = vi.fn(() => undefined);
    const second = vi.fn(() => undefined);
    casefold.offerDecodedTables(first);
    casefold.offerDecodedTables(second);
    normalize('café');
    const late = vi.fn(() => undefined);
    casefold.offerDecodedTables(late);
    normalize('Straße');
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).not.toHaveBeenCalled();
    expect(late).not.toHaveBeenCalled();
  });

  it("takes the core's tables once an engine has fingerprinted a text that needs them", async () => {
    const own = await fresh();
    const expected = TEXTS.map((t) => own.normalize(t));
    const reference = own.casefold.flatTables();

    const { casefold, normalize } = await fresh();
    const { createEngine } = await import('../../src/index.js');
    const engine = await createEngine();
    engine.fingerprint('Ｃafé Straße: a text outside ASCII, which the core normalises with its own tables.');
    // the core's offer stands first: one made now is never read
    const later = vi.fn(() => undefined);
    casefold.offerDecodedTables(later);
    expect(TEXTS.map((t) => normalize(t))).toEqual(expected);
    expect(later).not.toHaveBeenCalled();
    // read out of the core: equal to the reference's decode, entry for entry
    expect(casefold.flatTables()).toEqual(reference);
  });
});
