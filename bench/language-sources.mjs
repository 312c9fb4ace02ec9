// Texts for the per-language evaluation (bench/eval-languages.mjs, bench/languages/*.mjs): a book pack's prepared texts
// and the novels its prepare step kept out of it, both written by build/packs-prepare-books.mjs under pack-texts/
// (git-ignored; `--out` writes the kept-out ones):
//
//   node build/packs-prepare-books.mjs fr --source COST-ELTeC/ELTeC-fra=GITDIR ... --out pack-texts/books-fr-out
//
// The library and the packs never read these files; only the bench does.
import './help.mjs';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));

/** Every document of a pack with its text: [{ work, document, text }] (work = the manifest's title). */
export function packWorks(pack) {
  const manifest = JSON.parse(readFileSync(`${root}packs/${pack}/manifest.json`, 'utf8'));
  const dir = `${root}pack-texts/${pack}/`;
  if (!existsSync(dir)) throw new Error(`${dir} is missing: run build/packs-prepare-books.mjs (see its header)`);
  return manifest.documents.map((d) => ({
    work: d.title ?? d.id,
    author: d.author,
    document: d.id,
    text: readFileSync(`${dir}${d.file}`, 'utf8'),
  }));
}

/** The texts kept out of a pack (`--out`): [{ source, genre, text }], in file order. */
export function keptOut(pack) {
  const dir = `${root}pack-texts/${pack}-out/`;
  if (!existsSync(dir)) throw new Error(`${dir} is missing: run build/packs-prepare-books.mjs with --out ${dir}`);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((f) => ({
      source: f.replace(/\.txt$/, ''),
      genre: f.startsWith('eltec-') ? 'novel (ELTeC, kept out of the pack)' : 'book (FakerPHP sample text)',
      text: readFileSync(`${dir}${f}`, 'utf8'),
    }));
}

/** A word-list speller: `(text) => text` replacing whole words by the map's modern forms (case kept). */
export function modernSpelling(pairs) {
  const map = new Map(Object.entries(pairs));
  return (text) =>
    text.replace(/[\p{L}]+/gu, (w) => {
      const m = map.get(w.toLowerCase());
      if (m === undefined) return w;
      return w[0] === w[0].toUpperCase() ? m[0].toUpperCase() + m.slice(1) : m;
    });
}

/**
 * The module of a book pack's language (bench/eval-languages.mjs's interface): `pack:books-<code>`'s works, the texts
 * kept out of it as negatives, and the language's own edits and famous openings.
 */
export function bookLanguage({ code, name, replacements, famous, modernise }) {
  const pack = `books-${code}`;
  return {
    code,
    name,
    packs: [`pack:${pack}`],
    unit: 'words',
    works: async () => packWorks(pack),
    negatives: async () => keptOut(pack),
    replacements,
    // the famous works' openings (bench/eval-languages.mjs cuts 80 words from where `starts` is found)
    famous,
    // modernised spelling of the period texts, word for word
    modernise,
  };
}
