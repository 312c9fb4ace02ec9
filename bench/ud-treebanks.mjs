// Modern prose of each language in no pack, for bench/eval-languages.mjs: the sentences of Universal Dependencies
// treebanks (de Marneffe, Manning, Nivre & Zeman, "Universal Dependencies", Computational Linguistics 47(2), 2021) —
// news, Wikipedia, reviews, blogs, social media of the 1990s–2020s — read from git mirrors of their repositories at
// the commits below. Only the `# text =` lines are read (the sentence as written, before tokenisation).
//
// Each treebank file is a stream of sentences in file order; a `# newdoc` line (`# newdoc_id` in Bosque) starts a
// document, and Dutch sentence ids name theirs (WR-P-P-H-0000000005.p.1.s.1, wiki-135.p.100.s.1). Files that mark no
// documents (the French, German, Spanish, Russian and Chinese GSD, Sequoia, PDB, VIT, HK: sentences sampled from many
// sources) are one run of sentences; Japanese GSD marks every sentence a document of its own. A passage is consecutive
// sentences from a sentence start: inside one document, or inside a file's run, where it fits; else running on into
// the next documents of the file (`kind` on each passage: 'document', 'run' or 'documents').
//
// The split is the treebanks' own: `tune` files (dev; Sequoia's dev and test, whose train file is the larger) measure
// a pack's null, `test` files (test; Sequoia's train; PUD and HK have a test file only) give the negatives, so no
// negative was read while a null was measured.
//
// The mirrors: `--ud DIR` names a folder holding one git directory per repository, as DIR/<owner>+<name>/repo (what
// a mirror of github.com/UniversalDependencies/<name> is written as) or DIR/<name> (a clone). The library, the packs
// and the tests never read these texts.
import './help.mjs';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gitDirOf, readBlobs } from './git-blobs.mjs';

const CC_BY_SA_4 = 'CC BY-SA 4.0';
const CC_BY_SA_3 = 'CC BY-SA 3.0';
/** [repository, commit, licence, genre, tune files, test files] per language. */
// biome-ignore format: one line a treebank
export const TREEBANKS = {
  fr: [
    ['UD_French-GSD', '830e2782304af08b3cc1c9250475343e04274d81', CC_BY_SA_4, 'blogs, news, reviews, Wikipedia', ['fr_gsd-ud-dev.conllu'], ['fr_gsd-ud-test.conllu']],
    ['UD_French-Sequoia', 'f5b049600c89d2cf15ebbec860f75d703884d32b', 'LGPL-LR', 'Europarl, L\'Est Républicain, Wikipedia, EMEA', ['fr_sequoia-ud-dev.conllu', 'fr_sequoia-ud-test.conllu'], ['fr_sequoia-ud-train.conllu']],
  ],
  de: [
    ['UD_German-GSD', '297fcf350481058d0737a27f0f8fd03b2eadd67a', CC_BY_SA_4, 'news, reviews, Wikipedia', ['de_gsd-ud-dev.conllu'], ['de_gsd-ud-test.conllu']],
    ['UD_German-PUD', 'ff80846ae60a0a70fc4d6251ef73e6a483a620ee', CC_BY_SA_3, 'news, Wikipedia', [], ['de_pud-ud-test.conllu']],
  ],
  es: [
    ['UD_Spanish-GSD', '57c045644664e5c1e169263cc4e3b95e40c078ba', CC_BY_SA_4, 'blogs, news, reviews, Wikipedia', ['es_gsd-ud-dev.conllu'], ['es_gsd-ud-test.conllu']],
    ['UD_Spanish-PUD', '818a82b8628c9cbec78750c7e83ccba34b9ce22b', CC_BY_SA_3, 'news, Wikipedia', [], ['es_pud-ud-test.conllu']],
  ],
  it: [
    ['UD_Italian-ISDT', '689c1bf3c7d132903d2196ac69b76a0933c90997', 'CC BY-NC-SA 3.0', 'law, news, Wikipedia', ['it_isdt-ud-dev.conllu'], ['it_isdt-ud-test.conllu']],
    ['UD_Italian-VIT', '12fc5f682a677e87dac1923903ae954d8441f7b7', 'CC BY-NC-SA 3.0', 'news, non-fiction', ['it_vit-ud-dev.conllu'], ['it_vit-ud-test.conllu']],
  ],
  pt: [
    ['UD_Portuguese-Bosque', '5de7ac34028ff6d1718031a4b0ae895717ed8dbe', CC_BY_SA_4, 'news (Folha de S.Paulo 1994, Público 1991–98)', ['pt_bosque-ud-dev.conllu'], ['pt_bosque-ud-test.conllu']],
  ],
  nl: [
    ['UD_Dutch-Alpino', '95e374a608d114ec6c6b32f0fbd5f324d29ef286', CC_BY_SA_4, 'news', ['nl_alpino-ud-dev.conllu'], ['nl_alpino-ud-test.conllu']],
    ['UD_Dutch-LassySmall', '7880e0bc4c8138607c8e9724db2294dc89d4e2b5', CC_BY_SA_4, 'Wikipedia', ['nl_lassysmall-ud-dev.conllu'], ['nl_lassysmall-ud-test.conllu']],
  ],
  pl: [
    ['UD_Polish-PDB', '27235e131faed50feb291faed1ff2fa5389a06be', 'CC BY-NC-SA 4.0', 'fiction, non-fiction, news (National Corpus of Polish)', ['pl_pdb-ud-dev.conllu'], ['pl_pdb-ud-test.conllu']],
  ],
  ru: [
    ['UD_Russian-GSD', '5400f2fd7264b7699727bb61b09f53841899df26', CC_BY_SA_4, 'Wikipedia', ['ru_gsd-ud-dev.conllu'], ['ru_gsd-ud-test.conllu']],
    ['UD_Russian-Taiga', '3c64a056edcd5c6e2c29b3724d973729c354e016', CC_BY_SA_4, 'blogs, social media, fiction, poetry, news', ['ru_taiga-ud-dev.conllu'], ['ru_taiga-ud-test.conllu']],
    ['UD_Russian-PUD', 'da5b3816eeaa24283c1d81a48bb1de4d062fc5d5', CC_BY_SA_3, 'news, Wikipedia', [], ['ru_pud-ud-test.conllu']],
  ],
  ja: [
    ['UD_Japanese-GSD', '7bc20119f476b552635e0640644e577b6fd3606b', CC_BY_SA_4, 'web text: news, blogs (Google UD treebank)', ['ja_gsd-ud-dev.conllu'], ['ja_gsd-ud-test.conllu']],
  ],
  zh: [
    ['UD_Chinese-GSD', '200dbe8acf60ff0d194f2d30bf925c410eee762a', CC_BY_SA_4, 'Wikipedia (traditional characters)', ['zh_gsd-ud-dev.conllu'], ['zh_gsd-ud-test.conllu']],
    ['UD_Chinese-PUD', '2849afd946a8c01b3e9acdf3e7afa8670cf2777d', CC_BY_SA_3, 'news, Wikipedia', [], ['zh_pud-ud-test.conllu']],
    ['UD_Chinese-HK', '77ecd3ca188a59e53385f9fffd13219952187d03', CC_BY_SA_4, 'film subtitles, legislative proceedings', [], ['zh_hk-ud-test.conllu']],
  ],
};

/** The git directory of treebank `name` under `dir`, or null. */
export function treebankGitDir(dir, name) {
  for (const p of [join(dir, `UniversalDependencies+${name}`, 'repo'), join(dir, name)])
    if (existsSync(p)) return gitDirOf(p);
  return null;
}

/**
 * The sentences of a CoNLL-U file in order: [{ text, document }], `document` the id of the document it belongs to
 * (`# newdoc`, or the Dutch sentence id's document part), null where the file marks none.
 */
export function conlluSentences(conllu) {
  const out = [];
  let doc = null;
  let docNo = 0;
  let id = null;
  for (const line of conllu.split('\n')) {
    if (!line.startsWith('#')) continue;
    const m = /^#\s*(newdoc(?:[ _]id)?|sent_id|text)\s*(?:=\s*(.*))?$/.exec(line);
    if (!m) continue;
    if (m[1].startsWith('newdoc')) doc = m[2]?.trim() || `doc${++docNo}`;
    else if (m[1] === 'sent_id') id = m[2]?.trim() ?? null;
    else if (m[2]?.trim()) {
      const dutch = id && /^(?:.*\\)?(.+)\.p\.\d+\.s\.\d+$/.exec(id);
      out.push({ text: m[2].trim(), document: doc ?? (dutch ? dutch[1] : null) });
    }
  }
  return out;
}

/**
 * A language's treebank text on one side of the split: { files: [{ treebank, file, sentences }], sources } — null
 * (with the reason) when a treebank's mirror is missing.
 */
export function treebankText(dir, code, side) {
  const files = [];
  const sources = [];
  for (const [name, commit, licence, genre, tune, test] of TREEBANKS[code] ?? []) {
    const gitDir = treebankGitDir(dir, name);
    if (!gitDir) return { missing: `${name} (no ${join(dir, `UniversalDependencies+${name}`, 'repo')})` };
    const wanted = side === 'tune' ? tune : test;
    sources.push({
      repository: `UniversalDependencies/${name}`,
      commit,
      licence,
      genre,
      files: wanted,
      git_dir: gitDir,
    });
    let k = 0;
    for (const text of readBlobs(
      gitDir,
      wanted.map((f) => `${commit}:${f}`),
    ))
      files.push({ treebank: name, file: wanted[k++], sentences: conlluSentences(text) });
  }
  return { files, sources };
}

/**
 * Passages of `n` units (words; characters without white space for `unit` 'chars') from sentence starts of `files`,
 * `count` of them at seeded distinct starts. A start is drawn from those whose passage stays inside its document, or
 * inside the file's one run where the file marks no documents (`kind` 'document' or 'run'); only where fewer than
 * `count` such starts exist are starts added whose passage runs on into the next documents of the file ('documents').
 * [{ units, source, treebank, document, kind }].
 */
export function treebankPassages(files, n, unit, count, rnd) {
  const unitsOf = (t) => (unit === 'chars' ? [...t.replace(/\s+/g, '')] : t.split(/\s+/).filter(Boolean));
  const inside = [];
  const across = [];
  for (const f of files) {
    const units = f.sentences.map((s) => unitsOf(s.text));
    const marked = f.sentences.some((s) => s.document !== null);
    for (let i = 0; i < f.sentences.length; i++) {
      let got = 0;
      let j = i;
      while (j < f.sentences.length && got < n) got += units[j++].length;
      if (got < n) break;
      const doc = f.sentences[i].document;
      const one = f.sentences.slice(i, j).every((s) => s.document === doc);
      const kind = !marked ? 'run' : one ? 'document' : 'documents';
      (kind === 'documents' ? across : inside).push({ f, units, i, j, kind });
    }
  }
  const pick = (xs, k) =>
    xs
      .map((x) => [rnd(), x])
      .sort((a, b) => a[0] - b[0])
      .slice(0, k)
      .map((x) => x[1]);
  const chosen = [...pick(inside, count), ...pick(across, Math.max(0, count - inside.length))];
  return chosen.map(({ f, units, i, j, kind }) => ({
    units: units.slice(i, j).flat().slice(0, n),
    source: `${f.treebank}/${f.file}#${i + 1}`,
    treebank: f.treebank,
    document: `${f.treebank}/${f.file}:${f.sentences[i].document ?? 'run'}`,
    kind,
  }));
}
