/**
 * A pack that holds one text in two documents names both: built from the fixture books with a third document that is
 * a selection of one of them (words 30,000–40,000 of Persuasion, as an anthology or a second edition holds a book's
 * text), a passage of the selection names the document that stored the text first and, in `also_in`, the selection
 * with the word range of its own that holds the text — in either manifest order, and after the pack is loaded from its
 * bytes. A passage outside the selection names only its book; the analysis's words name both documents, and its
 * result is valid under the published result schema.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildPack,
  createEngine,
  type Engine,
  loadPack,
  type PackManifest,
  type PackManifestDocument,
  sha256Hex,
} from '../../src/library.js';
import type { PortraitBackground } from '../../src/datasets/background.js';
import type { PortraitMatch } from '../../src/datasets/types.js';
import { ANALYSIS_RESULT_SCHEMA } from '../../src/services/analyze/schema.js';
import { book } from '../fixtures/texts/index.js';

const enc = new TextEncoder();
const persuasion = book('austen-persuasion').split(/\s+/).filter(Boolean);
const SELECTION = [30_000, 40_000] as const;
/** 1,300 words of one section of Persuasion (words 32,768–36,863): the excerpt holds 32 % of that section's n-grams. */
const EXCERPT = [33_000, 34_300] as const;
const TEXTS: Record<string, string> = {
  persuasion: persuasion.join(' '),
  selection: persuasion.slice(...SELECTION).join(' '),
  excerpt: persuasion.slice(...EXCERPT).join(' '),
  thursday: book('chesterton-thursday'),
};

async function manifestOf(order: string[]): Promise<{ manifest: PackManifest; texts: Map<string, Uint8Array> }> {
  const texts = new Map<string, Uint8Array>();
  const documents: PackManifestDocument[] = [];
  for (const id of order) {
    const bytes = enc.encode(TEXTS[id]);
    texts.set(`${id}.txt`, bytes);
    documents.push({
      id,
      file: `${id}.txt`,
      sha256: await sha256Hex(bytes),
      bytes: bytes.length,
      title: `Title of ${id}`,
      source: 'nltk/nltk',
    });
  }
  const manifest: PackManifest = {
    format: 'trainprint.pack-manifest',
    version: 1,
    id: 'pack:shared',
    name: 'Shared text',
    pack_version: '1.0.0',
    description: 'A book, a selection of it, and another book.',
    kb_dataset: 'project-gutenberg',
    window: 8,
    built: '2026-01-02',
    sources: [{ repository: 'nltk/nltk', url: 'https://github.com/nltk/nltk' }],
    licence: { texts: 'Public domain in the USA' },
    documents,
  };
  return { manifest, texts };
}

async function packEngine(order: string[], background?: PortraitBackground): Promise<Engine> {
  const { manifest, texts } = await manifestOf(order);
  const builder = await createEngine();
  const built = await buildPack(builder, manifest, (d) => texts.get(d.file)!);
  const engine = await createEngine();
  await loadPack(engine, built.bytes, { sha256: built.sha256 }, background ? { background } : {});
  return engine;
}

const best = async (engine: Engine, text: string): Promise<PortraitMatch> => {
  const m = (await engine.search(text, { datasets: ['pack:shared'] })).matches.filter(
    (x) => x.kind === 'portrait',
  ) as PortraitMatch[];
  expect(m.length).toBeGreaterThan(0);
  return m.reduce((a, b) => ((b.agreeing ?? 0) > (a.agreeing ?? 0) ? b : a));
};

describe('one text in two documents of a pack', () => {
  let bookFirst: Engine;
  let selectionFirst: Engine;
  beforeAll(async () => {
    bookFirst = await packEngine(['persuasion', 'selection', 'thursday']);
    selectionFirst = await packEngine(['selection', 'persuasion', 'thursday']);
  });

  it('a passage of the selection names the book and the selection, with where each holds it', async () => {
    const at = 34_000;
    const passage = persuasion.slice(at, at + 80).join(' ');
    const m = await best(bookFirst, passage);
    expect(m.document_id).toBe('persuasion');
    expect(m.source_words![0]).toBeLessThanOrEqual(at);
    expect(m.source_words![1]).toBeGreaterThanOrEqual(at + 80);
    expect(m.also_in?.map((a) => a.document_id)).toEqual(['selection']);
    const [also] = m.also_in!;
    expect(also.document).toMatchObject({ id: 'selection', title: 'Title of selection' });
    expect(also.shared).toBeGreaterThanOrEqual(0.2);
    expect(also.shared).toBeLessThanOrEqual(1);
    // the selection holds the passage at word 4,000 of its own
    expect(also.source_words[0]).toBeLessThanOrEqual(at - SELECTION[0]);
    expect(also.source_words[1]).toBeGreaterThanOrEqual(at - SELECTION[0] + 80);
  });

  it('stored the other way round, the selection is named first and the book beside it', async () => {
    const at = 34_000;
    const m = await best(selectionFirst, persuasion.slice(at, at + 80).join(' '));
    expect(m.document_id).toBe('selection');
    expect(m.also_in?.map((a) => a.document_id)).toEqual(['persuasion']);
    const [also] = m.also_in!;
    expect(also.source_words[0]).toBeLessThanOrEqual(at);
    expect(also.source_words[1]).toBeGreaterThanOrEqual(at + 80);
  });

  it('a passage the selection does not hold names its book alone', async () => {
    const m = await best(bookFirst, persuasion.slice(5_000, 5_080).join(' '));
    expect(m.document_id).toBe('persuasion');
    expect(m.also_in).toBeUndefined();
    const t = await best(bookFirst, TEXTS.thursday.split(/\s+/).slice(20_000, 20_080).join(' '));
    expect(t.document_id).toBe('thursday');
    expect(t.also_in).toBeUndefined();
  });

  it("the analysis's words name both documents", async () => {
    const r = await bookFirst.analyze({ content: persuasion.slice(36_000, 36_120).join(' '), content_type: 'text' });
    const m = r.matches.find((x) => x.kind === 'portrait' && x.document_id === 'persuasion');
    expect(m).toBeDefined();
    // the result, also_in included, is what the published schema says
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    ajv.addFormat('date-time', (x: string) => !Number.isNaN(Date.parse(x)));
    const valid = ajv.compile(ANALYSIS_RESULT_SCHEMA);
    expect(valid(JSON.parse(JSON.stringify(r))), JSON.stringify(valid.errors)).toBe(true);
    expect((m as PortraitMatch).also_in?.[0].document_id).toBe('selection');
    const said = JSON.stringify(r);
    expect(said).toContain('Title of persuasion');
    expect(said).toContain('the same text is also in');
    expect(said).toContain('Title of selection');
  });
});

describe('a share the null of the language explains names no other document', () => {
  // the null pack:aozora is read against (packs/index.json): 21 % of a Japanese text's n-grams are in the pack by chance
  const japaneseNull: PortraitBackground = {
    run_start: 0.181693,
    continue_first: 0.319848,
    continue_tail: 0.321715,
    hit_rate: 0.208809,
    dispersion: 0.021148,
    measured_on: {
      corpus: 'Japanese fiction kept out of pack:aozora',
      texts: 355,
      fingerprints: 94335,
      date: '2026-11-28',
    },
  };
  const passage = persuasion.slice(33_500, 33_580).join(' ');

  it('at an English null a third of a section held by the excerpt names it', async () => {
    const m = await best(await packEngine(['persuasion', 'excerpt', 'thursday']), passage);
    expect(m.document_id).toBe('persuasion');
    expect(m.also_in?.map((a) => a.document_id)).toEqual(['excerpt']);
    expect(m.also_in![0].shared).toBeGreaterThan(0.25);
    expect(m.also_in![0].shared).toBeLessThan(0.4);
  });

  it("at the Japanese pack's null the same share is what chance gives, and the match names its document alone", async () => {
    const m = await best(await packEngine(['persuasion', 'excerpt', 'thursday'], japaneseNull), passage);
    expect(m.document_id).toBe('persuasion');
    expect(m.also_in).toBeUndefined();
    // a second edition holding the whole section is named at that null too
    const whole = await best(await packEngine(['persuasion', 'selection', 'thursday'], japaneseNull), passage);
    expect(whole.also_in?.map((a) => a.document_id)).toEqual(['selection']);
  });
});
