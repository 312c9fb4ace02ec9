/**
 * A reference pack names the documents of its matches: the committed sample pack (packs/gutenberg-sample.tpk, built
 * from test/fixtures/texts/gutenberg/ and rebuilt byte for byte by test/e2e/packs.test.ts) gives every verbatim
 * passage of its five books the manifest's document id, title and author and the word range of its section, before
 * and after an export/import round trip; an edited copy (1 word in 10 replaced) is one chain of that document; the
 * pastiches of packed authors in test/fixtures/texts/pastiches/ name nothing.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import type { PortraitMatch } from '../../src/datasets/types.js';
import { passageAt } from '../reference/core.js';
import { book } from '../fixtures/texts/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(`${root}packs/gutenberg-sample/manifest.json`, 'utf8')) as {
  documents: { id: string; title: string; author: string }[];
};
const ID = 'pack:gutenberg-sample';

const portraitMatches = async (engine: Engine, text: string) =>
  (await engine.search(text, { datasets: [ID] })).matches.filter((m) => m.kind === 'portrait') as PortraitMatch[];

describe('a pack names its documents', () => {
  let engine: Engine;
  let restored: Engine;
  beforeAll(async () => {
    engine = await createEngine();
    await engine.importDataset(readFileSync(`${root}packs/gutenberg-sample.tpk`));
    restored = await createEngine();
    await restored.importDataset(engine.exportDataset(ID));
  });

  it('round trip: the export is the pack file itself', () => {
    expect(engine.exportDataset(ID)).toEqual(new Uint8Array(readFileSync(`${root}packs/gutenberg-sample.tpk`)));
  });

  for (const d of manifest.documents) {
    it(`80 words of ${d.id} name ${d.id}, its title and where, also after import`, async () => {
      const text = book(d.id);
      const at = Math.floor(text.length * 0.55);
      const q = passageAt(text, at, 80);
      const wordsBefore = text.slice(0, q.start).split(/\s+/).filter(Boolean).length;
      for (const e of [engine, restored]) {
        const m = await portraitMatches(e, q.text);
        expect(m.length).toBeGreaterThan(0);
        const best = m.reduce((a, b) => ((b.agreeing ?? 0) > (a.agreeing ?? 0) ? b : a));
        expect(best.document_id).toBe(d.id);
        expect(best.document).toMatchObject({ id: d.id, title: d.title, author: d.author });
        const [from, to] = best.source_words!;
        expect(from).toBeLessThanOrEqual(wordsBefore + 80);
        expect(to).toBeGreaterThanOrEqual(wordsBefore - 4096);
      }
    });
  }

  it('an edited copy (1 word in 10 replaced, 200 words) is one chain of its book', async () => {
    const text = book('austen-persuasion');
    const words = passageAt(text, Math.floor(text.length * 0.3), 200)
      .text.split(/\s+/)
      .map((w, i) => (i % 10 === 5 ? 'zephyr' : w));
    const m = await portraitMatches(engine, words.join(' '));
    expect(m.map((x) => x.document_id)).toEqual(['austen-persuasion']);
    expect(m[0].agreeing).toBeGreaterThanOrEqual(8);
  });

  it('pastiches of packed authors name nothing and analyze below 50', async () => {
    for (const f of ['austen-style.txt', 'hardy-style.txt']) {
      const text = readFileSync(`${root}test/fixtures/texts/pastiches/${f}`, 'utf8');
      expect(await portraitMatches(engine, text)).toEqual([]);
      const r = await engine.analyze({ content: text, content_type: 'text' });
      expect(r.confidence).toBeLessThan(50);
    }
  });
});
