// Streamed snapshots are byte for byte the in-memory ones; fingerprints made apart from the engine
// give the dataset addDataset gives.
import { describe, expect, it } from 'vitest';
import { createDatasetFingerprinter, createEngine, isTrainprintError, type SnapshotStream } from '../../src/index.js';
import { decodeDataset, encodeDataset } from '../../src/datasets/snapshot.js';
import { crc32, crc32Combine, crc32Portable } from '../../src/util/crc32.js';
// @ts-expect-error plain .mjs fixture module without types
import { CORPUS } from '../fixtures/corpus/corpus.mjs';

const docs = (CORPUS as { id: string; text: string }[]).map((d, i) => ({
  ...d,
  ...(i === 1 ? { meta: { lang: 'en', n: 2 } } : {}),
}));

/** The stream's pieces concatenated, with the patch applied: what a file writer produces. */
function assemble(stream: SnapshotStream): Uint8Array {
  const pieces: Uint8Array[] = [];
  for (const piece of stream.pieces()) pieces.push(piece.slice()); // a piece may be reused by the next: copy it now
  const out = new Uint8Array(pieces.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  const { offset, bytes } = stream.patch();
  out.set(bytes, offset);
  expect(stream.length).toBe(out.length);
  return out;
}

describe('crc32Combine', () => {
  it('equals the CRC of the concatenation, for lengths 0 … 300 and a long tail', () => {
    const bytes = Uint8Array.from({ length: 5000 }, (_, i) => (i * 131 + (i >> 3)) & 0xff);
    for (const cut of [0, 1, 7, 8, 64, 300, 4999, 5000]) {
      const a = bytes.subarray(0, cut),
        b = bytes.subarray(cut);
      expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(bytes));
    }
  });
});

describe('crc32', () => {
  it("zlib's CRC-32 (long inputs, where node:zlib is at hand) equals the portable one, from any start", () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0);
    for (const length of [0, 1, 1023, 1024, 1025, 65_535, 65_536, 65_537, 200_003, 1 << 20]) {
      const bytes = Uint8Array.from({ length }, () => rnd() >>> 24);
      for (const start of [0, 1, 0xcbf43926, 0xffffffff]) expect(crc32(bytes, start)).toBe(crc32Portable(bytes, start));
    }
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });
});

describe('exportDatasetStream', () => {
  for (const descriptor of [
    { id: 'exact' },
    { id: 'no-text', keep_text: false, name: 'No text', meta: { source: 'fixtures' } },
    { id: 'portrait', kind: 'portrait' as const, window: 3 },
  ]) {
    it(`${descriptor.id}: the pieces and the patch are exportDataset's bytes`, async () => {
      const engine = await createEngine();
      await engine.addDataset(descriptor, docs);
      engine.finalizeDataset(descriptor.id);
      expect(assemble(engine.exportDatasetStream(descriptor.id))).toEqual(engine.exportDataset(descriptor.id));
      engine.dispose();
    });
  }

  it('texts of every msgpack str width, multi-byte, longer than a piece, not well-formed: the same bytes', async () => {
    // UTF-8 lengths on both sides of 32, 256 and 65,536 bytes, some reached only through multi-byte
    // characters (the header's width is then known only after encoding), and one text longer than
    // a 1 MiB piece (encoded on its own)
    const lengths = [0, 1, 10, 11, 31, 32, 85, 86, 255, 256, 21845, 21846, 65535, 65536, 400_000];
    const texts = lengths.flatMap((n) => [
      'x'.repeat(n),
      '\u20ac'.repeat(Math.ceil(n / 3)),
      `${'y'.repeat(Math.max(0, n - 2))}\u00e9`,
    ]);
    const engine = await createEngine();
    await engine.addDataset(
      { id: 'widths' },
      texts.map((text, i) => ({ id: `t${i}`, text: `${text} words here` })),
    );
    // (Buffer.equals: toEqual walks a few megabytes element by element for seconds)
    const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(b);
    expect(same(assemble(engine.exportDatasetStream('widths')), engine.exportDataset('widths'))).toBe(true);
    // A text with a lone surrogate can only come from a hand-made snapshot: it is written as the encoder writes it.
    const data = decodeDataset(engine.exportDataset('widths'));
    const odd = await createEngine();
    const texts2 = data.texts!.map((t, i) => (i === 3 ? `\ud800${t!.slice(1)}` : t));
    await odd.importDataset(encodeDataset({ ...data, texts: texts2 }));
    expect(same(assemble(odd.exportDatasetStream('widths')), odd.exportDataset('widths'))).toBe(true);
    engine.dispose();
    odd.dispose();
  });

  it('crc32 may be another implementation of the same checksum; anything else is INVALID_OPTIONS', async () => {
    const engine = await createEngine();
    await engine.addDataset({ id: 'd' }, docs);
    let calls = 0;
    const counting = (bytes: Uint8Array, crc: number) => {
      calls++;
      return crc32(bytes, crc);
    };
    expect(assemble(engine.exportDatasetStream('d', { crc32: counting }))).toEqual(engine.exportDataset('d'));
    expect(calls).toBeGreaterThan(0);
    let e: unknown;
    try {
      engine.exportDatasetStream('d', { crc32: 'fast' as never });
    } catch (err) {
      e = err;
    }
    expect(isTrainprintError(e, 'INVALID_OPTIONS'), String(e)).toBe(true);
    engine.dispose();
  });

  it('an empty dataset streams too; patch() before the end and adding during the read are refused', async () => {
    const engine = await createEngine();
    await engine.addDataset({ id: 'empty' }, []);
    expect(assemble(engine.exportDatasetStream('empty'))).toEqual(engine.exportDataset('empty'));
    await engine.addDataset({ id: 'grows' }, docs.slice(0, 1));
    const stream = engine.exportDatasetStream('grows');
    expect(() => stream.patch()).toThrow(/not finished/);
    const pieces = stream.pieces();
    let err: unknown;
    try {
      for (let i = 0; ; i++) {
        if (pieces.next().done) break;
        if (i === 2) await engine.addDataset({ id: 'grows' }, docs.slice(1, 2));
      }
    } catch (e) {
      err = e;
    }
    expect(isTrainprintError(err, 'CONFLICT'), String(err)).toBe(true);
    expect(() => engine.exportDatasetStream('nope')).toThrow(/no dataset/);
    engine.dispose();
  });
});

describe('addFingerprintedDocuments', () => {
  for (const kind of ['exact', 'portrait'] as const) {
    it(`${kind}: fingerprints made by a DatasetFingerprinter give addDataset's dataset`, async () => {
      const fingerprinter = await createDatasetFingerprinter({ kind });
      const a = await createEngine();
      await a.addDataset({ id: 'd', kind }, docs);
      const b = await createEngine();
      // two batches, to check the documents keep their order across batches
      const batches = [docs.slice(0, 1), docs.slice(1)].map((part) => ({
        documents: part,
        fingerprints: fingerprinter.fingerprint(part.map((d) => d.text)),
      }));
      await b.addFingerprintedDocuments({ id: 'd', kind }, batches);
      a.finalizeDataset('d');
      b.finalizeDataset('d');
      expect(b.exportDataset('d')).toEqual(a.exportDataset('d'));
      a.dispose();
      b.dispose();
    });
  }

  it('refuses fingerprints made for another kind and batches that do not match their documents', async () => {
    const portrait = await createDatasetFingerprinter({ kind: 'portrait' });
    const engine = await createEngine();
    const texts = docs.map((d) => d.text);
    const wrongKind = engine.addFingerprintedDocuments({ id: 'x' }, [
      { documents: docs, fingerprints: portrait.fingerprint(texts) },
    ]);
    await expect(wrongKind).rejects.toThrow(/params/);
    const short = engine.addFingerprintedDocuments({ id: 'y', kind: 'portrait' }, [
      { documents: docs, fingerprints: portrait.fingerprint(texts.slice(1)) },
    ]);
    await expect(short).rejects.toThrow(/expected 3/);
    expect(() => portrait.fingerprint(['fine', 'lone \ud800 surrogate'])).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT', index: 1 }),
    );
    await expect(createDatasetFingerprinter({ kind: 'exact', window: 3 })).rejects.toThrow(/window/);
    engine.dispose();
  });
});
