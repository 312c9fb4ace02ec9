// Reference packs (src/packs): Project Gutenberg header stripping, WikiText detokenising, manifest
// and index checks, and the pack build → verify → load round trip on committed fixture books.
import { Decoder } from '@msgpack/msgpack';
import { describe, expect, it, vi } from 'vitest';
import { decodeDataset, decodePortraitForImport, withDecodedAhead } from '../../src/datasets/snapshot.js';
import {
  buildPack,
  checkPackIndex,
  checkPackManifest,
  createEngine,
  detokenizeWikiText,
  loadPack,
  parseGutenbergHeader,
  readPackInfo,
  sha256Hex,
  splitWikiText,
  stripGutenbergHeaders,
  TrainprintError,
  verifyPack,
  type PackManifest,
  type PackManifestDocument,
} from '../../src/library.js';
import { book } from '../fixtures/texts/index.js';

/** The rejection (or throw) of `f`: a TrainprintError with `code` whose message contains every one of `parts`. */
async function fails(f: () => unknown, code: string, ...parts: string[]) {
  const e = await Promise.resolve()
    .then(f)
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  expect(e, 'expected a TrainprintError').toBeInstanceOf(TrainprintError);
  expect((e as TrainprintError).code).toBe(code);
  for (const p of parts) expect((e as TrainprintError).message).toContain(p);
}

const body = Array.from({ length: 150 }, (_, i) => `Line ${i + 1} of the story, in which nothing happens.`).join('\n');

const RAW = `The Project Gutenberg EBook of Pride and Prejudice, by Jane Austen

This eBook is for the use of anyone anywhere at no cost and with
almost no restrictions whatsoever.

Title: Pride and Prejudice
       or, a Second Title Line
Author: Jane Austen

Posting Date: August 26, 2008 [EBook #1342]
Language: English

*** START OF THIS PROJECT GUTENBERG EBOOK PRIDE AND PREJUDICE ***




Produced by Anonymous Volunteers




${body}



End of the Project Gutenberg EBook of Pride and Prejudice, by Jane Austen

*** END OF THIS PROJECT GUTENBERG EBOOK PRIDE AND PREJUDICE ***

***** This file should be named 1342-0.txt or 1342-0.zip *****
Section 1.  General Terms of Use and Redistributing Project Gutenberg-tm
`;

describe('Project Gutenberg texts', () => {
  it('strips the header, the "Produced by" line, the footer and the licence', () => {
    expect(stripGutenbergHeaders(RAW)).toBe(body);
    expect(stripGutenbergHeaders(RAW.replace(/\n/g, '\r\n'))).toBe(body);
  });

  it('ends a short text at the END line too, and drops the repeated World Library notices', () => {
    const short = [
      '*** START OF THE PROJECT GUTENBERG EBOOK X ***',
      'One line.',
      '*** END OF THE PROJECT GUTENBERG EBOOK X ***',
      'licence',
    ].join('\n');
    expect(stripGutenbergHeaders(short)).toBe('One line.');
    const notice = [
      '<<THIS ELECTRONIC VERSION OF THE COMPLETE WORKS',
      'IS COPYRIGHT',
      'SERVICE THAT CHARGES FOR DOWNLOAD TIME.>>',
    ].join('\n');
    expect(stripGutenbergHeaders(`Act I\n${notice}\nAct II`)).toBe('Act I\nAct II');
  });

  it('reads the ebook number, title, author and language from the header', () => {
    expect(parseGutenbergHeader(RAW)).toEqual({
      ebook: 1342,
      title: 'Pride and Prejudice or, a Second Title Line',
      author: 'Jane Austen',
      language: 'English',
    });
    // no "[EBook #…]": the footer's file name gives the number
    expect(parseGutenbergHeader(RAW.replace('[EBook #1342]', '')).ebook).toBe(1342);
    expect(parseGutenbergHeader('no header at all')).toEqual({});
  });
});

const WIKITEXT = ` 
 = Valkyria Chronicles III = 
 
 Senjō no Valkyria 3 : <unk> Chronicles ( Japanese : 戦場のヴァルキュリア3 , lit . Valkyria 3 ) is a role @-@ playing game . 
 
 = = Gameplay = = 
 
 It sold 1 @,@ 000 copies at $ 3 @.@ 5 each ; critics said " it is n't bad " . 
 
 = Tower Building of the Little Rock Arsenal = 
 
 The building was built in 1840 . 
 
 = Cut Off = 
 
 The file ends in the mid`;

describe('WikiText', () => {
  it('splits a file into articles at their " = Title = " lines (dropping a cut-off last one on request)', () => {
    const all = splitWikiText(WIKITEXT);
    expect(all.map((a) => a.title)).toEqual([
      'Valkyria Chronicles III',
      'Tower Building of the Little Rock Arsenal',
      'Cut Off',
    ]);
    expect(splitWikiText(WIKITEXT, { complete: false }).map((a) => a.title)).toHaveLength(2);
    expect(all[0].raw).toContain(' = = Gameplay = = ');
  });

  it('detokenises back to running text', () => {
    expect(detokenizeWikiText(splitWikiText(WIKITEXT)[0].raw)).toBe(
      [
        'Valkyria Chronicles III',
        'Senjō no Valkyria 3: <unk> Chronicles (Japanese: 戦場のヴァルキュリア3, lit. Valkyria 3) is a role-playing game.',
        'Gameplay',
        'It sold 1,000 copies at $3.5 each; critics said "it isn\'t bad".',
      ].join('\n\n'),
    );
  });

  it('gives the words of the original text (split contractions included)', async () => {
    const engine = await createEngine();
    const original = "Critics said it isn't a role-playing game, at 1,000 copies (a 3.5 % share) in 2010–11.";
    const tokens =
      " Critics said it is n't a role @-@ playing game , at 1 @,@ 000 copies ( a 3 @.@ 5 % share ) in 2010 – 11 . ";
    const [a, b] = [await engine.fingerprint(original), await engine.fingerprint(detokenizeWikiText(tokens))];
    expect([...b.shingles.hashes]).toEqual([...a.shingles.hashes]);
    // without detokenising, the split contraction alone changes the words
    expect([...(await engine.fingerprint(tokens)).shingles.hashes]).not.toEqual([...a.shingles.hashes]);
    engine.dispose();
  });
});

const enc = new TextEncoder();
const BOOKS = ['austen-persuasion', 'chesterton-thursday', 'shakespeare-caesar'] as const;

async function fixtureManifest(window = 8): Promise<{ manifest: PackManifest; texts: Map<string, Uint8Array> }> {
  const texts = new Map<string, Uint8Array>();
  const documents: PackManifestDocument[] = [];
  for (const name of BOOKS) {
    const bytes = enc.encode(book(name));
    texts.set(`${name}.txt`, bytes);
    const sha256 = await sha256Hex(bytes);
    documents.push({ id: name, file: `${name}.txt`, sha256, bytes: bytes.length, title: name, source: 'nltk/nltk' });
  }
  const manifest: PackManifest = {
    format: 'trainprint.pack-manifest',
    version: 1,
    id: 'pack:test',
    name: 'Test pack',
    pack_version: '1.0.0',
    description: 'Three fixture books.',
    kb_dataset: 'project-gutenberg',
    window,
    built: '2026-01-02',
    sources: [{ repository: 'nltk/nltk', url: 'https://github.com/nltk/nltk' }],
    licence: { texts: 'Public domain in the USA' },
    documents,
  };
  return { manifest, texts };
}

describe('pack manifests and the pack index', () => {
  it('accepts a valid manifest and refuses unknown fields, bad hashes, duplicates and escaping paths', async () => {
    const { manifest } = await fixtureManifest();
    expect(checkPackManifest(manifest)).toBe(manifest);
    const doc = manifest.documents[0];
    await fails(() => checkPackManifest({ ...manifest, colour: 'red' }), 'INVALID_INPUT', 'unknown field "colour"');
    await fails(() => checkPackManifest({ ...manifest, window: 0 }), 'INVALID_INPUT', 'window');
    // a pack's own rule for its common n-grams (the Gutenberg pack counts authors)
    const byAuthor = { ...manifest, common: { min_holders: 3, by: 'author' } };
    expect(checkPackManifest(byAuthor)).toBe(byAuthor);
    await fails(() => checkPackManifest({ ...manifest, common: { min_holders: 1 } }), 'INVALID_INPUT', 'min_holders');
    await fails(() => checkPackManifest({ ...manifest, common: { by: 'title' } }), 'INVALID_INPUT', '"common".by');
    await fails(() => checkPackManifest({ ...manifest, built: 'yesterday' }), 'INVALID_INPUT', 'built');
    const withDocs =
      (...documents: unknown[]) =>
      () =>
        checkPackManifest({ ...manifest, documents });
    await fails(withDocs({ ...doc, sha256: 'abc' }), 'INVALID_INPUT', 'SHA-256');
    await fails(withDocs(doc, { ...doc, file: 'other.txt' }), 'INVALID_INPUT', 'appears twice');
    await fails(withDocs({ ...doc, file: '../secret.txt' }), 'INVALID_INPUT', 'relative path');
    await fails(withDocs({ ...doc, source: 'elsewhere' }), 'INVALID_INPUT', 'not one of manifest.sources');
    await fails(() => checkPackManifest({ ...manifest, version: 2 }), 'INVALID_INPUT', 'not supported');
  });

  it('checks the pack index', async () => {
    const entry = {
      id: 'pack:test',
      file: 'test.tpk',
      manifest: 'test/manifest.json',
      sha256: 'a'.repeat(64),
      bytes: 1,
      default: true,
      name: 'Test',
      pack_version: '1.0.0',
      kb_dataset: 'project-gutenberg',
      documents: 1,
      words: 1,
      ngrams: 1,
    };
    const index = (...packs: unknown[]) => ({ format: 'trainprint.packs', version: 1, packs });
    expect(checkPackIndex(index(entry)).packs).toHaveLength(1);
    await fails(() => checkPackIndex(index(entry, entry)), 'INVALID_INPUT', 'appears twice');
    await fails(() => checkPackIndex(index({ ...entry, default: 'yes' })), 'INVALID_INPUT', 'default');
  });
});

describe('building, verifying and loading a pack', () => {
  it('builds the same bytes twice, with provenance, and loads them with one call', async () => {
    const { manifest, texts } = await fixtureManifest();
    const engine = await createEngine();
    const read = (d: PackManifestDocument) => texts.get(d.file)!;
    const a = await buildPack(engine, manifest, read);
    const b = await buildPack(engine, manifest, read);
    expect(b.sha256).toBe(a.sha256);
    expect(b.bytes).toEqual(a.bytes);
    expect(a.sha256).toBe(await sha256Hex(a.bytes));
    expect(engine.datasets()).toEqual([]); // the build leaves the engine as it was

    const info = await readPackInfo(a.bytes);
    expect(info).toMatchObject({
      id: 'pack:test',
      kb_dataset: 'project-gutenberg',
      window: 8,
      built: '2026-01-02',
      pack_version: '1.0.0',
      sources: manifest.sources,
      licence: manifest.licence,
      sha256: a.sha256,
      file_bytes: a.bytes.length,
    });
    expect(info.counts.documents).toBe(3);
    expect(info.counts.ngrams).toBeGreaterThan(1000);
    expect(info.bytes_per_ngram).toBeGreaterThan(1.1);
    expect(info.bytes_per_ngram).toBeLessThan(1.3);
    expect(info.documents.map((d) => [d.id, d.sha256])).toEqual(manifest.documents.map((d) => [d.id, d.sha256]));
    expect(info.params).toContain('win=8');

    const { stats } = await loadPack(engine, a.bytes, { sha256: a.sha256 });
    expect(stats).toMatchObject({ id: 'pack:test', kind: 'portrait', documents: 3, kb_dataset: 'project-gutenberg' });
    const passage = book('chesterton-thursday').split(/\s+/).slice(5000, 5100).join(' ');
    expect(engine.search(passage).matches[0]).toMatchObject({ dataset_id: 'pack:test', kind: 'portrait' });
    const other = book('milton-paradise').split(/\s+/).slice(5000, 5100).join(' ');
    expect(engine.search(other).matches).toEqual([]);
    await fails(() => loadPack(engine, a.bytes), 'ALREADY_EXISTS');
    engine.dispose();
  });

  it('loads a pack decoded once: the engine takes the decode that verified it, and the dataset is the file', async () => {
    const { manifest, texts } = await fixtureManifest();
    const engine = await createEngine();
    const { bytes, sha256 } = await buildPack(engine, manifest, (d) => texts.get(d.file)!);
    const decodes = vi.spyOn(Decoder.prototype, 'decode');
    await verifyPack(bytes, { sha256 });
    const verifying = decodes.mock.calls.length;
    decodes.mockClear();
    const { stats, info } = await loadPack(engine, bytes, { sha256 });
    // one decode of the file and of its payload: the verification's, which the import took
    expect(decodes.mock.calls.length).toBe(verifying);
    decodes.mockRestore();
    expect(Buffer.from(engine.exportDataset(stats.id)).equals(Buffer.from(bytes))).toBe(true);
    expect(info).toEqual(await readPackInfo(bytes));
    // the provenance shares nothing with the dataset: changing it changes nothing there
    (info.sources[0] as { url: string }).url = 'changed';
    expect(Buffer.from(engine.exportDataset(stats.id)).equals(Buffer.from(bytes))).toBe(true);
    // a decode handed over and not taken is dropped: the bytes are decoded again by the next import
    const other = await createEngine();
    const data = decodeDataset(bytes, { kind: 'portrait' });
    await withDecodedAhead(bytes, data, async () => undefined);
    decodes.mockClear();
    const again = vi.spyOn(Decoder.prototype, 'decode');
    await other.importDataset(bytes);
    expect(again.mock.calls.length).toBe(verifying);
    again.mockRestore();
    // and one that is taken is taken once: a second import in the same run decodes its bytes
    const third = await createEngine();
    const fourth = await createEngine();
    const counted = vi.spyOn(Decoder.prototype, 'decode');
    await withDecodedAhead(bytes, data, async () => {
      await third.importDataset(bytes);
      await fourth.importDataset(bytes);
    });
    expect(counted.mock.calls.length).toBe(verifying);
    counted.mockRestore();
    expect(Buffer.from(fourth.exportDataset(stats.id)).equals(Buffer.from(bytes))).toBe(true);
    for (const e of [engine, other, third, fourth]) e.dispose();
  });

  it("lends a pack's filters to its import without a copy, and the dataset keeps nothing of the bytes", async () => {
    const { manifest, texts } = await fixtureManifest();
    const engine = await createEngine();
    const { bytes, sha256 } = await buildPack(engine, manifest, (d) => texts.get(d.file)!);
    const file = bytes.slice();
    // decoded for an import: the same data as decodeDataset's, each filter's bits a view of the bytes
    const lent = decodePortraitForImport(file);
    const copied = decodeDataset(file, { kind: 'portrait' });
    expect(lent).toEqual(copied);
    for (const [i, f] of lent.filters.entries()) {
      expect(f.bits.buffer).toBe(file.buffer);
      expect(copied.filters[i].bits.buffer).not.toBe(file.buffer);
    }
    // the locator's cells stay copies: the dataset keeps them, and a view would keep the whole file alive
    if (lent.locator !== undefined) expect(lent.locator.cells.buffer).not.toBe(file.buffer);
    // loaded so, the dataset is the file; the file's bytes overwritten after the load change nothing of it
    const { stats } = await loadPack(engine, file, { sha256 });
    file.fill(0);
    expect(Buffer.from(engine.exportDataset(stats.id)).equals(Buffer.from(bytes))).toBe(true);
    const passage = book('chesterton-thursday').split(/\s+/).slice(5000, 5100).join(' ');
    expect(engine.search(passage).matches[0]).toMatchObject({ dataset_id: 'pack:test', kind: 'portrait' });
    engine.dispose();
  });

  it('refuses a text that is not the one the manifest names, and a pack id already loaded', async () => {
    const { manifest, texts } = await fixtureManifest();
    const engine = await createEngine();
    const changed = (d: PackManifestDocument) =>
      d.id === 'chesterton-thursday' ? enc.encode('changed') : texts.get(d.file)!;
    await fails(() => buildPack(engine, manifest, changed), 'INVALID_INPUT', 'chesterton-thursday.txt', 'not the text');
    expect(engine.datasets()).toEqual([]);
    const gone = () => {
      throw new Error('gone');
    };
    await fails(() => buildPack(engine, manifest, gone), 'INVALID_INPUT', 'cannot read', 'gone');
    await engine.addDataset({ id: 'pack:test', kind: 'portrait' }, []);
    await fails(() => buildPack(engine, manifest, (d) => texts.get(d.file)!), 'ALREADY_EXISTS');
    engine.dispose();
  });

  it('verifies the SHA-256 and the CRC, and refuses a portrait that is not a pack', async () => {
    const { manifest, texts } = await fixtureManifest(12);
    const engine = await createEngine();
    const { bytes, sha256 } = await buildPack(engine, manifest, (d) => texts.get(d.file)!);
    expect((await verifyPack(bytes, { sha256 })).window).toBe(12);
    await fails(() => verifyPack(bytes, { sha256: '0'.repeat(64) }), 'SNAPSHOT_INCOMPATIBLE', 'SHA-256 mismatch');
    const corrupt = bytes.slice();
    corrupt[corrupt.length >> 1] ^= 0x40;
    await fails(() => verifyPack(corrupt), 'SNAPSHOT_INCOMPATIBLE', 'checksum');
    await engine.addDataset({ id: 'plain', kind: 'portrait' }, [{ id: 'x', text: book('blake-poems') }]);
    await fails(() => verifyPack(engine.exportDataset('plain')), 'SNAPSHOT_INCOMPATIBLE', 'not a reference pack');
    engine.dispose();
  });
});
