/**
 * A book pack in French, German or Russian works as an English one does: a small pack per language built from the
 * committed fixtures (test/fixtures/texts/languages/: two works each, as the book packs of packs/books-* hold them)
 * is built byte for byte again from the same manifest and texts; a passage of a packed work — verbatim, or with 1
 * word in 10 replaced — is found at >= 50 and names its work; natural text of the same language in no pack (another
 * novel of the era, another work of the same author) names nothing and stays below 50, and so does a passage of
 * another language's pack.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PortraitMatch } from '../../src/datasets/types.js';
import type { Engine, PackManifest, PackManifestDocument } from '../../src/library.js';
import { buildPack, createEngine, loadPack, sha256Hex } from '../../src/library.js';

const enc = new TextEncoder();
const read = (path: string): string =>
  readFileSync(new URL(`../fixtures/texts/languages/${path}`, import.meta.url), 'utf8');

/** A language's fixtures: its works ([id, file, title, author]), negatives and common replacement words. */
interface Language {
  code: string;
  works: [id: string, file: string, title: string, author: string][];
  negatives: string[];
  replacements: string[];
}

// biome-ignore format: one line a language
const LANGUAGES: Language[] = [
  { code: 'fr', works: [['pg17489', 'hugo-miserables.txt', 'Les Misérables, Tome I', 'Victor Hugo'], ['flaubert-bovary', 'flaubert-bovary.txt', 'Madame Bovary', 'Gustave Flaubert']], negatives: ['negative-adam-mon-village.txt', 'negative-beaugrand-chasse-galerie.txt'], replacements: ['et', 'le', 'la', 'une', 'dans'] },
  { code: 'de', works: [['pg22367', 'kafka-verwandlung.txt', 'Die Verwandlung', 'Franz Kafka'], ['pg2229', 'goethe-faust.txt', 'Faust', 'Johann Wolfgang von Goethe']], negatives: ['negative-goethe-werther.txt', 'negative-willkomm-weisse-sclaven.txt'], replacements: ['und', 'der', 'die', 'ein', 'auch'] },
  { code: 'ru', works: [['anna-karenina', 'tolstoy-anna-karenina.txt', 'Анна Каренина', 'Лев Толстой'], ['shinel', 'gogol-shinel.txt', 'Шинель', 'Николай Гоголь']], negatives: ['negative-turgenev-asya.txt', 'negative-gogol-dead-souls.txt'], replacements: ['и', 'в', 'на', 'не', 'но'] },
];

const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);
/** 1 word in 10 replaced (the 6th of every 10) by a common word of the language it is not. */
const replaced = (ws: string[], reps: string[]): string =>
  ws
    .map((w, i) =>
      i % 10 === 5 ? (reps[i % reps.length] === w ? reps[(i + 1) % reps.length] : reps[i % reps.length]) : w,
    )
    .join(' ');

async function manifestOf(lang: Language): Promise<{ manifest: PackManifest; texts: Map<string, Uint8Array> }> {
  const texts = new Map<string, Uint8Array>();
  const documents: PackManifestDocument[] = [];
  for (const [id, file, title, author] of lang.works) {
    const bytes = enc.encode(read(`${lang.code}/${file}`));
    texts.set(file, bytes);
    documents.push({ id, file, sha256: await sha256Hex(bytes), bytes: bytes.length, title, author });
  }
  const manifest: PackManifest = {
    ...{ format: 'trainprint.pack-manifest', version: 1, id: `pack:test-${lang.code}`, pack_version: '1.0.0' },
    ...{ name: `Test books (${lang.code})`, description: 'Two public-domain works of one language (the fixtures).' },
    ...{ kb_dataset: 'mc4', window: 8, common: { min_holders: 3, by: 'author' }, built: '2026-11-28' },
    sources: [{ repository: 'COST-ELTeC/ELTeC', url: 'https://github.com/COST-ELTeC' }],
    licence: { texts: 'Public domain' },
    documents,
  };
  return { manifest, texts };
}

describe('book packs of other languages, built from fixtures', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine();
    for (const lang of LANGUAGES) {
      const { manifest, texts } = await manifestOf(lang);
      const built = await buildPack(await createEngine(), manifest, (d) => texts.get(d.file)!);
      // the same bytes from the same manifest and texts
      const again = await buildPack(await createEngine(), manifest, (d) => texts.get(d.file)!);
      expect(again.sha256, lang.code).toBe(built.sha256);
      await loadPack(engine, built.bytes, { sha256: built.sha256 });
    }
  }, 60_000);

  const analyze = async (content: string) => {
    const r = await engine.analyze({ content, content_type: 'text' });
    const m = r.matches.filter((x) => x.kind === 'portrait') as PortraitMatch[];
    return { confidence: r.confidence, named: m[0]?.document_id ?? null, dataset: m[0]?.dataset_id ?? null };
  };

  for (const lang of LANGUAGES) {
    it(`${lang.code}: a verbatim 80-word passage of each packed work is found and names its work`, async () => {
      for (const [id, file] of lang.works) {
        const ws = words(read(`${lang.code}/${file}`));
        for (const at of [100, 400]) {
          const r = await analyze(ws.slice(at, at + 80).join(' '));
          expect(r.confidence, `${id}@${at}`).toBeGreaterThanOrEqual(50);
          expect(r.named, `${id}@${at}`).toBe(id);
          expect(r.dataset).toBe(`pack:test-${lang.code}`);
        }
      }
    });

    it(`${lang.code}: a 200-word passage with 1 word in 10 replaced is found and names its work`, async () => {
      for (const [id, file] of lang.works) {
        const ws = words(read(`${lang.code}/${file}`));
        const r = await analyze(replaced(ws.slice(300, 500), lang.replacements));
        expect(r.confidence, id).toBeGreaterThanOrEqual(50);
        expect(r.named, id).toBe(id);
      }
    });

    it(`${lang.code}: natural text of the language in no pack names nothing and stays below 50`, async () => {
      for (const file of lang.negatives) {
        const ws = words(read(`${lang.code}/${file}`));
        for (const [at, n] of [
          [0, 200],
          [150, 80],
          [300, 50],
        ]) {
          const r = await analyze(ws.slice(at, at + n).join(' '));
          expect(r.confidence, `${file}@${at}`).toBeLessThan(50);
          expect(r.named, `${file}@${at}`).toBeNull();
        }
      }
    });
  }
});
