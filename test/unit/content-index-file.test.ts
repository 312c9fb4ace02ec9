/**
 * A content-word pair index as a file (src/corpus/content-index-file.ts, `exportContentIndex` /
 * `importContentIndex`): read back into the same dataset in another engine it is the index that engine would build,
 * its searches find the same and build nothing; a file of other documents, another pairing, a changed byte, a cut,
 * postings out of order or outside the documents is refused; a dataset without an index of its own says so.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONTENT_PAIRS_ID, decodeContentIndex, encodeContentIndex } from '../../src/corpus/content-index-file.js';
import { ContentWordIndex } from '../../src/corpus/content-words.js';
import { createEngine, type Engine } from '../../src/library.js';
import { crc32 } from '../../src/util/crc32.js';
import { refused } from '../fixtures/expect-refused.js';
import { book } from '../fixtures/texts/index.js';

/** Chapters of three books as documents: enough kept text for an index of thousands of postings. */
function documents(prefix = ''): Array<{ id: string; text: string }> {
  const out: Array<{ id: string; text: string }> = [];
  for (const name of ['austen-persuasion', 'chesterton-thursday', 'shakespeare-caesar']) {
    const text = book(name);
    for (let at = 0, k = 0; at < text.length && k < 12; at += 20_000, k++)
      out.push({ id: `${prefix}${name}-${k}`, text: text.slice(at, at + 20_000) });
  }
  return out;
}

/** A passage of the second chapter of Persuasion with its words reordered and a few changed (a reworded search). */
function reworded(): string {
  const words = book('austen-persuasion').slice(22_000, 25_000).split(/\s+/);
  for (let i = 0; i + 1 < words.length; i += 7) [words[i], words[i + 1]] = [words[i + 1], 'indeed'];
  return words.join(' ');
}

async function engineWith(bytes: Uint8Array): Promise<Engine> {
  const engine = await createEngine();
  await engine.importDataset(bytes);
  return engine;
}

/** What a search reads of its results, without its timing. */
const found = (r: { matches: unknown[] }) => JSON.stringify(r.matches);

describe('a content index file', async () => {
  const source = await createEngine();
  await source.addDataset({ id: 'books', kind: 'exact' }, documents());
  const dataset = source.exportDataset('books');
  const file = await source.exportContentIndex('books');
  afterEach(() => vi.restoreAllMocks());

  it('is read back into the same dataset as the index that engine builds, and no search builds it', async () => {
    const built = await engineWith(dataset);
    const read = await engineWith(dataset);
    await read.importContentIndex('books', file);
    // the bytes of the index the other engine builds are the file's bytes
    expect(Buffer.from(await built.exportContentIndex('books')).equals(Buffer.from(file))).toBe(true);
    const build = vi.spyOn(ContentWordIndex, 'buildSteps');
    const query = reworded();
    const fromFile = await read.searchAsync(query, { reworded: true });
    expect(build).not.toHaveBeenCalled();
    expect(fromFile.matches.length).toBeGreaterThan(0);
    expect(found(fromFile)).toBe(found(await built.searchAsync(query, { reworded: true })));
    built.dispose();
    read.dispose();
  });

  it('is refused by a dataset of other documents, and when a byte changes or it is cut short', async () => {
    const other = await createEngine();
    await other.addDataset({ id: 'books', kind: 'exact' }, documents().slice(1));
    await refused(other.importContentIndex('books', file), 'SNAPSHOT_INCOMPATIBLE', /other documents/);
    other.dispose();
    const engine = await engineWith(dataset);
    for (const at of [3, 20, file.length >> 1, file.length - 1]) {
      const flipped = file.slice();
      flipped[at] ^= 0x10;
      await refused(engine.importContentIndex('books', flipped), 'SNAPSHOT_INCOMPATIBLE', /content index file refused/);
    }
    for (const length of [0, 10, 40, file.length - 4, file.length - 1])
      await refused(engine.importContentIndex('books', file.subarray(0, length)), 'SNAPSHOT_INCOMPATIBLE', /refused/);
    await refused(engine.importContentIndex('books', dataset), 'SNAPSHOT_INCOMPATIBLE', /not a content index file/);
    engine.dispose();
  });

  it('is refused when made by another pairing, with its postings out of order, or outside the documents', async () => {
    const engine = await engineWith(dataset);
    const digest = await engine.datasetDigest('books');
    const chars = Uint32Array.from(documents(), (d) => d.text.length);
    const index = decodeContentIndex(file, { digest, chars });
    const { keys, docs, offsets } = index.columns();
    // a file made for the same digest by a library that pairs words otherwise: its header's pairing differs
    const text = new TextDecoder().decode(file.subarray(16, 16 + new DataView(file.buffer).getUint32(12, true)));
    const header = JSON.parse(text);
    expect(header).toEqual({
      pairs: CONTENT_PAIRS_ID,
      dataset: digest,
      documents: chars.length,
      postings: keys.length,
    });
    const other = withHeader(file, { ...header, pairs: header.pairs.replace('content-pairs/1', 'content-pairs/0') });
    await refused(engine.importContentIndex('books', other), 'SNAPSHOT_INCOMPATIBLE', /its pairs were made as/);
    const made = (k: Uint32Array, d: Uint32Array, o: Uint32Array) =>
      encodeContentIndex(ContentWordIndex.fromSortedColumns(k, d, o, chars.length), digest);
    const swapped = keys.slice();
    const i = swapped.findIndex((k, j) => j > 0 && k > swapped[j - 1]);
    [swapped[i - 1], swapped[i]] = [swapped[i], swapped[i - 1]];
    await refused(engine.importContentIndex('books', made(swapped, docs, offsets)), 'SNAPSHOT_INCOMPATIBLE', /order/);
    const past = offsets.slice();
    past[7] = chars[docs[7]];
    await refused(engine.importContentIndex('books', made(keys, docs, past)), 'SNAPSHOT_INCOMPATIBLE', /outside/);
    const nowhere = docs.slice();
    nowhere[nowhere.length - 1] = chars.length;
    await refused(engine.importContentIndex('books', made(keys, nowhere, offsets)), 'SNAPSHOT_INCOMPATIBLE', /outside/);
    // and the columns as they are make the file again, byte for byte
    expect(Buffer.from(made(keys, docs, offsets)).equals(Buffer.from(file))).toBe(true);
    engine.dispose();
  });

  it('is made of exact datasets in memory that keep their texts, and read from bytes only', async () => {
    const engine = await engineWith(dataset);
    await engine.addDataset({ id: 'bare', kind: 'exact', keep_text: false }, documents('bare-').slice(0, 3));
    await refused(engine.exportContentIndex('bare'), 'NOT_SUPPORTED', /exact dataset in memory/);
    await refused(engine.importContentIndex('bare', file), 'NOT_SUPPORTED', /exact dataset in memory/);
    await refused(engine.exportContentIndex('nothing'), 'NOT_FOUND', /no dataset "nothing"/);
    await refused(
      engine.importContentIndex('books', Array.from(file) as unknown as Uint8Array),
      'INVALID_INPUT',
      /Uint8Array/,
    );
    engine.dispose();
  });

  it('names how its pairs are made: the pairs of fixed texts are these (else CONTENT_PAIRS_ID must change)', () => {
    // A known answer: when the stemmer, the stop words or the pair hash change, the same texts give other pairs,
    // and a file written before must be refused: raise the version in CONTENT_PAIRS_ID and update this answer.
    const texts = [book('austen-persuasion').slice(0, 30_000), null, book('blake-poems').slice(0, 20_000)];
    const { keys, docs, offsets } = ContentWordIndex.build(texts).columns();
    const bytes = new Uint8Array(keys.length * 12);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < keys.length; i++) {
      view.setUint32(12 * i, keys[i], true);
      view.setUint32(12 * i + 4, docs[i], true);
      view.setUint32(12 * i + 8, offsets[i], true);
    }
    expect(CONTENT_PAIRS_ID.startsWith('content-pairs/1;')).toBe(true);
    expect({ postings: keys.length, crc32: crc32(bytes) }).toEqual({ postings: 2895, crc32: 3829171187 });
  });
});

/** `file` with another header (the checksum made again): what a library that wrote another header would write. */
function withHeader(file: Uint8Array, header: unknown): Uint8Array {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const old = view.getUint32(12, true);
  const body = file.subarray((16 + old + 3) & ~3, file.length - 4);
  const head = new TextEncoder().encode(JSON.stringify(header));
  const at = (16 + head.length + 3) & ~3;
  const out = new Uint8Array(at + body.length + 4);
  out.set(file.subarray(0, 12));
  new DataView(out.buffer).setUint32(12, head.length, true);
  out.set(head, 16);
  out.set(body, at);
  new DataView(out.buffer).setUint32(at + body.length, crc32(out.subarray(0, at + body.length)), true);
  return out;
}
