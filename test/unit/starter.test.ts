// trainprint/starter: the embedded SPDX licence dataset (build/generated/starter-dataset.ts, made by
// build/starter.mjs — `npm run build` first) loads into a fresh engine, finds a licence paragraph
// with its spans in both texts, and finds nothing in a novel.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { createEngine, TrainprintError, type ExactMatch, type SearchMatch } from '../../src/index.js';
import { loadStarterDataset, STARTER_DATASET } from '../../src/starter/index.js';
import { book } from '../fixtures/texts/index.js';

const licences = createRequire(import.meta.url)('spdx-license-list/spdx-full.json') as Record<
  string,
  { licenseText: string }
>;
const withText = Object.keys(licences).filter((id) => licences[id].licenseText.trim() !== '');
const persuasion = book('austen-persuasion');

describe('trainprint/starter', () => {
  it('loads every SPDX licence with a text into a fresh engine as exact dataset spdx-licenses', async () => {
    const engine = await createEngine();
    const stats = await loadStarterDataset(engine);
    expect(stats).toMatchObject({ id: 'spdx-licenses', kind: 'exact', documents: withText.length });
    expect(stats.documents).toBeGreaterThan(700);
    expect(STARTER_DATASET).toMatchObject({
      id: 'spdx-licenses',
      documents: stats.documents,
      licence: 'CC0-1.0',
      source: 'npm spdx-license-list@6.12.0',
    });
    expect(engine.datasets()).toEqual([stats]);
    // the snapshot is what exportDataset gives back, byte for byte
    expect(engine.exportDataset('spdx-licenses').length).toBe(STARTER_DATASET.bytes);
  });

  it('finds a paragraph of the MIT licence in a README, with spans in both texts; a novel matches nothing', async () => {
    const engine = await createEngine();
    await loadStarterDataset(engine);
    const mit = licences.MIT.licenseText;
    const paragraph = mit.split(/\n\s*\n/).find((p) => p.startsWith('Permission is hereby granted'))!;
    expect(paragraph.length).toBeGreaterThan(300);
    const readme = `# widget\n\nA small widget library.\n\n## License\n\n${paragraph}\n\nSee the LICENSE file for the rest.`;
    const { matches } = engine.search(readme);
    const m = matches.find((x: SearchMatch): x is ExactMatch => x.document_id === 'MIT' && x.kind === 'exact');
    expect(m, JSON.stringify(matches.slice(0, 5))).toBeDefined();
    expect(m!.tokens).toBeGreaterThan(40);
    const at = readme.indexOf(paragraph);
    expect(m!.query_start).toBeGreaterThanOrEqual(at);
    expect(m!.query_end).toBeLessThanOrEqual(at + paragraph.length);
    expect(mit.slice(m!.source_start, m!.source_end)).toBe(readme.slice(m!.query_start, m!.query_end));

    for (const text of [persuasion.slice(0, 20_000), persuasion.slice(200_000, 205_000)]) {
      const r = engine.search(text);
      expect(r.matches).toEqual([]);
      expect(r.coverage['spdx-licenses']).toMatchObject({ share: 0 });
    }
  });

  it('names first the licence a README holds, not a longer one holding it or one a few words apart', async () => {
    const engine = await createEngine();
    await loadStarterDataset(engine);
    const readme = (id: string) =>
      `# tides\n\nA small tool that prints the next high and low water for a harbour station.\n\n## Licence\n\n${licences[id].licenseText}`;
    const first = (id: string) => engine.search(readme(id)).matches.find((m) => m.kind === 'exact')?.document_id;
    // JSON is MIT's text and "The Software shall be used for Good, not Evil.": its span runs over words the README lacks
    expect(first('MIT')).toBe('MIT');
    // BSD-3-Clause-HP reads "the HP" and "THE AUTHOR" where BSD-3-Clause has the copyright holders: the same words
    // of the README, fewer of them in runs it shares
    expect(first('BSD-3-Clause')).toBe('BSD-3-Clause');
    // and the longer licences themselves, when a README holds them, come first
    expect(first('JSON')).toBe('JSON');
    expect(first('BSD-3-Clause-HP')).toBe('BSD-3-Clause-HP');
  });

  it('decodes without Buffer; refuses another id and a second load', async () => {
    const engine = await createEngine();
    const saved = globalThis.Buffer;
    try {
      // @ts-expect-error simulating a browser / Deno without Node's Buffer
      delete globalThis.Buffer;
      expect((await loadStarterDataset(engine, { id: 'spdx-licenses' })).documents).toBe(STARTER_DATASET.documents);
    } finally {
      globalThis.Buffer = saved;
    }
    const other = await createEngine();
    for (const [load, code] of [
      [() => loadStarterDataset(engine), 'ALREADY_EXISTS'],
      [() => loadStarterDataset(other, { id: 'licences' }), 'INVALID_OPTIONS'],
      // @ts-expect-error not an engine
      [() => loadStarterDataset({}), 'INVALID_INPUT'],
    ] as const) {
      const e = await load().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(TrainprintError);
      expect((e as TrainprintError).code).toBe(code);
    }
  });
});
