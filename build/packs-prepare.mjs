// Prepare the texts of the reference packs (packs/<name>/manifest.json) from their public sources,
// so that `trainprint pack build packs/<name>/manifest.json --texts <dir>` can build them.
//
//   node build/packs-prepare.mjs gutenberg --repo GITDIR --extra GITDIR [--texts DIR] [--select N]
//   node build/packs-prepare.mjs wikipedia --repo GITDIR [--texts DIR] [--select]
//   node build/packs-prepare.mjs wikipedia-articles --repo GITDIR [--texts DIR] [--select]
//   node build/packs-prepare.mjs wikipedia-core --repo GITDIR [--texts DIR] [--select]
//   node build/packs-prepare.mjs sample [--select]
//
// GITDIR is a git directory (a clone, bare or not) of the pack's source repository that has the
// manifest's commit: rcdm-uga/Gutenberg_Text for `gutenberg` (--extra: bloominghaze/laboratorywork16,
// the Project Gutenberg file of Leaves of Grass), Hongcheng-Gao/RobTest-Demo for
// `wikipedia` (its copy of WikiText-103), Vibhas-hs-edu/WikiTasks for `wikipedia-articles` and
// jason-feng/wikiVisual for `wikipedia-core` (WikiExtractor output of English Wikipedia dumps). Texts
// are written to DIR (default pack-texts/<name>/, git-ignored): the pack holds only hashes of them.
//
// Without --select the manifest decides: exactly its documents are extracted, processed and
// checked against their SHA-256 (exit code 1 on any difference). With --select the selection
// rule below is run again and the manifest's document list rewritten (the other fields of the
// manifest are kept when it exists, else taken from the templates here; `built` is set to today).
// `sample` needs no source: its texts are the committed test fixtures the manifest points at.
//
// Runs the library's own stripping and detokenising (dist/packs.js, trainprint/packs: run `npm run build` first).
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  docEntry,
  eachBlob,
  fail,
  gitDirOf,
  listBlobs,
  readBlobs,
  readManifest,
  sha256,
  today,
  writeManifest,
  writeTexts,
} from './packs-source.mjs';

const root = new URL('../', import.meta.url);
const lib = await import(new URL('dist/packs.js', root).href);
const { stripGutenbergHeaders, parseGutenbergHeader, splitWikiText, detokenizeWikiText } = lib;
const { articleTableText } = lib;
// the article tables a pack stores are made here, with fflate at level 9: a pure-JavaScript deflate gives the same
// bytes on every machine, where the platform's CompressionStream depends on its zlib
const { zlibSync } = await import('fflate');

// ------------------------------------------------------------------------------------ gutenberg

/**
 * Books of the famous list that the first source lacks, from other public copies of the Project Gutenberg
 * file (header included, stripped by the same rules): `--extra GITDIR` is a clone of this repository.
 */
const WHITMAN_SOURCE = {
  repository: 'bloominghaze/laboratorywork16',
  commit: 'b54c06e75c7715546bcbeb81294436b9c8b580d2',
  url: 'https://github.com/bloominghaze/laboratorywork16',
  note:
    "whitman-leaves.txt: Walt Whitman's Leaves of Grass, Project Gutenberg Etext #1322 (lvgrs10.txt, May 1998) " +
    'with its original header and licence, which are stripped like the others. Whitman is not among the first ' +
    "source's authors.",
};
const EXTRA_BOOKS = [{ path: 'whitman-leaves.txt', ebook: 1322, title: 'Leaves of Grass', author: 'Walt Whitman' }];

const GUTENBERG = {
  format: 'trainprint.pack-manifest',
  version: 1,
  id: 'pack:gutenberg',
  name: 'Project Gutenberg — books of the 100 most-read authors',
  pack_version: '1.0.0',
  description:
    "Public-domain books from Project Gutenberg by the authors of its 'Top 100 Authors' list: their best-known " +
    "works, then each author's earliest-numbered ebooks in turn. Hashes of word 5-grams only, no text.",
  kb_dataset: 'project-gutenberg',
  kb_note:
    "Project Gutenberg books are documented training data: PG-19 (Rae et al., arXiv 1911.05507) is The Pile's " +
    "Gutenberg component (Gao et al., arXiv 2101.00027), LLaMA-1's books data (Touvron et al., arXiv 2302.13971), " +
    'and part of RedPajama and Dolma. The knowledge base keeps them under one id, project-gutenberg.',
  window: 8,
  built: today(),
  sources: [
    {
      repository: 'rcdm-uga/Gutenberg_Text',
      commit: 'a0b16d35a9851168ce9ac649851c17b7ab08d48e',
      url: 'https://github.com/rcdm-uga/Gutenberg_Text',
      note:
        "English books of Project Gutenberg's Top 100 Authors (one .txt per book, a folder per author, downloaded with " +
        'the gutenberg Python package). Header, footer and licence stripped with the rules of c-w/gutenberg ' +
        'strip_headers; ' +
        'ebook number, title and author read from the header.',
    },
    WHITMAN_SOURCE,
  ],
  licence: {
    texts:
      'Public domain in the USA (Project Gutenberg eBooks; the Project Gutenberg trademark licence covers only the ' +
      'stripped boilerplate)',
    note:
      'The pack holds hashes of word 5-grams, not the texts; check the copyright laws of your country before using ' +
      'the texts themselves.',
  },
  selection: '',
  documents: [],
};

/**
 * Famous works of the top-100 authors, best known first: (author folder prefix, title pattern).
 * They lead the selection; the rest is filled by ascending ebook number (the low numbers are the
 * canonical works Project Gutenberg transcribed first).
 */
const FAMOUS = [
  ['Austen', /^Pride and Prejudice$/],
  ['Shelley, Mary', /^Frankenstein/],
  ['Carroll', /^Alice['’]s Adventures in Wonderland/],
  ['Melville', /^Moby[- ]Dick/],
  ['Dickens', /^A Tale of Two Cities/],
  ['Doyle', /^The Adventures of Sherlock Holmes/],
  ['Stoker', /^Dracula$/],
  ['Wilde', /^The Picture of Dorian Gray/],
  ['Dickens', /^Great Expectations/],
  ['Twain', /^Adventures of Huckleberry Finn/],
  ['Shakespeare', /^Romeo and Juliet/],
  ['Joyce', /^Ulysses/],
  ['Dickens', /^A Christmas Carol/],
  ['Tolstoy', /^War and Peace/],
  ['Dostoyevsky', /^Crime and Punishment/],
  ['Stevenson', /^The Strange Case of Dr\. Jekyll/],
  ['Swift', /^Gulliver['’]s Travels/],
  ['Wilde', /^The Importance of Being Earnest/],
  ['Dumas', /^The Count of Monte Cristo/],
  ['Homer', /^The Iliad/],
  ['Homer', /^The Odyssey/],
  ['Twain', /^The Adventures of Tom Sawyer/],
  ['Austen', /^Emma$/],
  ['Austen', /^Sense and Sensibility/],
  ['Austen', /^Persuasion/],
  ['Austen', /^Northanger Abbey/],
  ['Austen', /^Mansfield Park/],
  ['Bront', /^Jane Eyre/],
  ['Alcott', /^Little Women/],
  ['Stevenson', /^Treasure Island/],
  ['Wells', /^The Time Machine/],
  ['Wells', /^The War of the Worlds/],
  ['Wells', /^The Invisible Man/],
  ['Wells', /^The Island of Doctor Moreau/],
  ['Dumas', /^The Three Musketeers/],
  ['Hugo', /^Les Mis/],
  ['Cervantes', /^Don Quixote/],
  ['Dante', /^The Divine Comedy|^Divine Comedy/],
  ['Plato', /^The Republic/],
  ['Hawthorne', /^The Scarlet Letter/],
  ['London', /^The Call of the Wild/],
  ['London', /^White Fang/],
  ['Kipling', /^The Jungle Book/],
  ['Barrie', /^Peter Pan/],
  ['Baum', /^The Wonderful Wizard of Oz/],
  ['Montgomery', /^Anne of Green Gables/],
  ['Defoe', /^The Life and Adventures of Robinson Crusoe|^Robinson Crusoe/],
  ['Verne', /^Twenty Thousand Leagues/],
  ['Verne', /^Around the World in Eighty Days/],
  ['Conrad', /^Heart of Darkness/],
  ['Hardy', /^Tess of the d['’]Urbervilles/],
  ['Hardy', /^Far from the Madding Crowd/],
  ['Scott', /^Ivanhoe/],
  ['Darwin', /^On the Origin of Species/],
  ['Nietzsche', /^Thus Spake Zarathustra/],
  ['Nietzsche', /^Beyond Good and Evil/],
  ['Voltaire', /^Candide/],
  ['Ibsen', /^A Doll['’]s House/],
  ['Goethe', /^Faust/],
  ['Grimm', /^Grimms['’] Fairy Tales|^Grimm['’]s Fairy Tales/],
  ['Andersen', /Fairy Tales/],
  ['Poe', /^The Works of Edgar Allan Poe/],
  ['Milton', /^Paradise Lost/],
  ['Burnett', /^The Secret Garden/],
  ['Burnett', /^A Little Princess/],
  ['Collins', /^The Woman in White/],
  ['Collins', /^The Moonstone/],
  ['Tolstoy', /^Anna Karenina/],
  ['Dostoyevsky', /^The Brothers Karamazov/],
  ['Dostoyevsky', /^Notes from the Underground|^Notes from Underground/],
  ['Dostoyevsky', /^The Idiot/],
  ['Doyle', /^The Hound of the Baskervilles/],
  ['Doyle', /^A Study in Scarlet/],
  ['Doyle', /^The Sign of the Four/],
  ['Wharton', /^The Age of Innocence/],
  ['Wharton', /^The House of Mirth/],
  ['Wharton', /^Ethan Frome/],
  ['Kipling', /^Kim$/],
  ['Kipling', /^Just So Stories/],
  ['Stevenson', /^Kidnapped/],
  ['Dickens', /^Oliver Twist/],
  ['Dickens', /^David Copperfield/],
  ['Dickens', /^Bleak House/],
  ['Dickens', /^The Pickwick Papers/],
  ['Dickens', /^Hard Times/],
  ['Twain', /^The Prince and the Pauper/],
  ['Twain', /^A Connecticut Yankee/],
  ['Twain', /^Life on the Mississippi/],
  ['Twain', /^The Innocents Abroad/],
  ['Joyce', /^Dubliners/],
  ['Joyce', /^A Portrait of the Artist/],
  ['Gibbon', /^The History of the Decline and Fall/],
  ['Christie', /^The Mysterious Affair at Styles/],
  ['Christie', /^The Secret Adversary/],
  ['Thoreau', /^Walden/],
  ['Franklin', /^Autobiography of Benjamin Franklin|^The Autobiography of Benjamin Franklin/],
  ['Chekhov', /^The Cherry Orchard|^Plays by Anton Chekhov/],
  ['Maupassant', /^The Complete Short Stories|^Short Stories/],
  ['Burroughs', /^A Princess of Mars/],
  ['Burroughs', /^Tarzan of the Apes/],
  ['Chesterton', /^The Man Who Was Thursday/],
  ['Chesterton', /^The Innocence of Father Brown/],
  ['Shaw', /^Pygmalion/],
  ['Wodehouse', /^My Man Jeeves/],
  ['Irving', /^The Legend of Sleepy Hollow/],
  ['Stevenson', /^A Child['’]s Garden of Verses/],
  ['Potter', /^The Tale of Peter Rabbit/],
  ['Nesbit', /^The Railway Children/],
  ['Nesbit', /^Five Children and It/],
  ['Zola', /^Germinal/],
  ['Balzac', /^Father Goriot|^Pere Goriot/],
  ['Trollope', /^Barchester Towers/],
  ['Henty', /^With Clive in India/],
  ['James, Henry', /^The Turn of the Screw/],
  ['James, Henry', /^The Portrait of a Lady/],
  ['Blackwood', /^The Willows/],
  ['Lang', /^The Blue Fairy Book/],
];

/** A book's record for the selection (no text kept: 1.2 GB of books would not fit in memory as strings). */
function gutenbergRecord(entry, raw) {
  const text = raw.toString('utf8');
  const [folder] = entry.path.split('/');
  const fileTitle = entry.path
    .slice(folder.length + 1)
    .replace(/\.txt$/, '')
    .split(/[\r\n]/)[0]
    .trim();
  const chars = stripGutenbergHeaders(text).length;
  return { ...entry, head: parseGutenbergHeader(text), chars, folder: folder.replace(/^"/, ''), fileTitle };
}

async function gutenberg(values) {
  const manifestPath = new URL('packs/gutenberg/manifest.json', root).pathname;
  const read = readManifest(manifestPath);
  // a new selection takes the sources listed here (the first one's commit as the manifest has it)
  const manifest =
    read && values.select !== undefined
      ? { ...read, sources: [read.sources[0], ...GUTENBERG.sources.slice(1)] }
      : (read ?? GUTENBERG);
  const src = manifest.sources[0];
  const gitDir = gitDirOf(values.repo);
  const textsDir = resolve(values.texts ?? 'pack-texts/gutenberg');
  const entries = (await listBlobs(gitDir, src.commit)).filter((e) => e.path.endsWith('.txt') && e.size > 0);
  const byPath = new Map(entries.map((e) => [e.path, e]));
  let chosen; // [{ entry, fields }] in manifest order
  if (values.select !== undefined) {
    const n = Number(values.select || 600);
    if (!Number.isInteger(n) || n < 1) fail('--select N needs a positive integer');
    const records = [];
    await eachBlob(gitDir, entries, (e, raw) => records.push(gutenbergRecord(e, raw)));
    chosen = selectGutenberg(records, n).map((r) => ({
      entry: r,
      fields: {
        id: `pg${r.head.ebook}`,
        file: `pg${r.head.ebook}.txt`,
        title: r.head.title ?? r.fileTitle,
        author:
          r.head.author ??
          r.folder
            .split(', ')
            .reverse()
            .join(' ')
            .replace(/ \(.*\)$/, ''),
        ebook: r.head.ebook,
        url: `https://www.gutenberg.org/ebooks/${r.head.ebook}`,
        source: src.repository,
        source_path: r.path,
      },
    }));
    console.error(`${records.length} files read, ${chosen.length} books chosen`);
  } else {
    chosen = manifest.documents
      .filter((d) => d.source === src.repository)
      .map((d) => {
        const e = byPath.get(d.source_path);
        if (!e) fail(`${d.source_path}: not in ${src.repository} at ${src.commit}`);
        const { sha256: _s, bytes: _b, ...fields } = d;
        return { entry: e, fields };
      });
  }
  const texts = new Map();
  const docs = [];
  const fieldsOf = new Map(chosen.map((c) => [c.entry.path, c.fields]));
  await eachBlob(
    gitDir,
    chosen.map((c) => c.entry),
    (e, raw) => {
      const fields = fieldsOf.get(e.path);
      const bytes = Buffer.from(stripGutenbergHeaders(raw.toString('utf8')), 'utf8');
      texts.set(fields.id, bytes);
      docs.push(docEntry(fields, bytes));
    },
  );
  // the books of the other sources (EXTRA_BOOKS), after the first source's
  for (const extra of manifest.sources.slice(1)) {
    const wanted =
      values.select !== undefined
        ? EXTRA_BOOKS.map((b) => ({
            id: `pg${b.ebook}`,
            file: `pg${b.ebook}.txt`,
            title: b.title,
            author: b.author,
            ebook: b.ebook,
            url: `https://www.gutenberg.org/ebooks/${b.ebook}`,
            source: extra.repository,
            source_path: b.path,
          }))
        : manifest.documents.filter((d) => d.source === extra.repository);
    if (wanted.length === 0) continue;
    const extraDir = gitDirOf(values.extra);
    const byExtraPath = new Map((await listBlobs(extraDir, extra.commit)).map((e) => [e.path, e]));
    const entriesOf = wanted.map(
      (d) => byExtraPath.get(d.source_path) ?? fail(`${d.source_path}: not in ${extra.repository} at ${extra.commit}`),
    );
    const blobs = await readBlobs(
      extraDir,
      entriesOf.map((e) => e.blob),
    );
    wanted.forEach((d, i) => {
      const { sha256: _s, bytes: _b, ...fields } = d;
      const bytes = Buffer.from(stripGutenbergHeaders(blobs.get(entriesOf[i].blob).toString('utf8')), 'utf8');
      texts.set(fields.id, bytes);
      docs.push(docEntry(fields, bytes));
    });
  }
  if (values.select !== undefined) {
    const extras = docs.filter((d) => d.source !== src.repository);
    const selection =
      `${docs.length - extras.length} books of the ${entries.length} files at the commit: English books with a ` +
      'Project Gutenberg ' +
      'ebook ' +
      `number, at least ${MIN_CHARS.toLocaleString('en-US')} characters once stripped, one file per ebook number and ` +
      "per author and title (the copy in the author's own folder, else the first path in code-unit order); " +
      'first the listed famous works where found (of several ' +
      'files of one, the earliest ebook at least 80 % as long as the longest), then round-robin over the authors, ' +
      "each author's books by ascending ebook number. The repository has no download counts: its authors are the " +
      'most-read, and within them the famous works and the early ebook numbers (the canonical works, transcribed ' +
      'first) stand in ' +
      'for popularity. ' +
      `Then ${extras.length} famous work${extras.length === 1 ? '' : 's'} of an author the repository lacks, from ` +
      `the other sources: ${extras.map((d) => `${d.title} (${d.author})`).join(', ')}.`;
    writeManifest(manifestPath, { ...manifest, built: today(), selection, documents: docs });
    writeTexts(textsDir, docs, texts);
  } else {
    writeTexts(textsDir, manifest.documents, texts);
  }
}

const MIN_CHARS = 20_000;

/** Whether a book is in its author's folder ("Twain, Mark" for "Mark Twain (Samuel Clemens)"). */
const ownFolder = (r) => (r.head.author ?? '').toLowerCase().includes(r.folder.split(',')[0].toLowerCase());

function selectGutenberg(records, n) {
  const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  const normTitle = (r) => {
    const title = (r.head.title ?? r.fileTitle)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ' ')
      .trim();
    return `${r.folder.split(',')[0].toLowerCase()}|${title}`;
  };
  const ok = records
    .filter((r) => r.head.ebook !== undefined && (r.head.language ?? 'English').toLowerCase().startsWith('english'))
    .filter((r) => r.chars >= MIN_CHARS)
    // a book filed under its illustrator or translator too is kept in its author's folder
    .sort((a, b) => Number(ownFolder(b)) - Number(ownFolder(a)) || cmp(a.path, b.path));
  const seenEbook = new Set();
  const seenTitle = new Set();
  const unique = ok.filter((r) => {
    const t = normTitle(r);
    if (seenEbook.has(r.head.ebook) || seenTitle.has(t)) return false;
    seenEbook.add(r.head.ebook);
    seenTitle.add(t);
    return true;
  });
  const chosen = [];
  const taken = new Set();
  for (const [author, title] of FAMOUS) {
    const hits = unique.filter(
      (r) => !taken.has(r) && r.folder.startsWith(author) && title.test(r.head.title ?? r.fileTitle),
    );
    if (hits.length === 0 || chosen.length >= n) continue;
    // the whole work rather than an excerpt or a retelling: the earliest ebook of those nearly as long as the longest
    const longest = Math.max(...hits.map((r) => r.chars));
    const pick = hits.filter((r) => r.chars >= 0.8 * longest).sort((a, b) => a.head.ebook - b.head.ebook)[0];
    chosen.push(pick);
    taken.add(pick);
  }
  // then round-robin over the authors (each of the top 100 is represented), each author's books by
  // ascending ebook number, a round visiting the authors in the order of their next ebook number
  const queues = new Map();
  for (const r of [...unique].sort((a, b) => a.head.ebook - b.head.ebook)) {
    if (taken.has(r)) continue;
    if (!queues.has(r.folder)) queues.set(r.folder, []);
    queues.get(r.folder).push(r);
  }
  while (chosen.length < n && queues.size > 0) {
    const round = [...queues.entries()].sort((a, b) => a[1][0].head.ebook - b[1][0].head.ebook);
    for (const [folder, q] of round) {
      if (chosen.length >= n) break;
      const r = q.shift();
      chosen.push(r);
      taken.add(r);
      if (q.length === 0) queues.delete(folder);
    }
  }
  return chosen;
}

// ------------------------------------------------------------------------------------ wikipedia

const WIKIPEDIA = {
  format: 'trainprint.pack-manifest',
  version: 1,
  id: 'pack:wikipedia-wikitext',
  name: 'English Wikipedia — WikiText-103 articles',
  pack_version: '1.0.0',
  description:
    'English Wikipedia Good and Featured articles as WikiText-103 has them (Merity et al. 2016, arXiv 1609.07843), ' +
    'detokenised back to running text. Hashes of word 5-grams only, no text.',
  kb_dataset: 'wikipedia',
  kb_note:
    'WikiText-103 is verbatim English Wikipedia text (Good and Featured articles); English Wikipedia is documented ' +
    "training data of GPT-3, LLaMA, The Pile and most other corpora (the knowledge base's wikipedia entry).",
  window: 4, // a small pack: the 16-word setting (83 % of 16-word and all ≥ 20-word overlaps reported)
  built: today(),
  sources: [
    {
      repository: 'Hongcheng-Gao/RobTest-Demo',
      commit: '37688d9e4800aa969050bd01f09033221aa5834e',
      url: 'https://github.com/Hongcheng-Gao/RobTest-Demo',
      note:
        'Its copy of WikiText-103: data/wikitext-103/wiki.valid.tokens and wiki.test.tokens (complete), and ' +
        'data/wiki.train.tokens, the first 2.75 MiB of wiki.train.tokens (its last, cut-off article dropped). Split ' +
        "into articles at their ' = Title = ' lines and detokenised (' @-@ ' → '-', 'do n't' → 'don't', punctuation " +
        'rejoined); ' +
        "the '<unk>' tokens of rare words cannot be restored and stay.",
    },
  ],
  licence: {
    texts: 'CC BY-SA 4.0 (Wikipedia text; WikiText is distributed under CC BY-SA)',
    note: 'The pack holds hashes of word 5-grams, not the texts; attribution: the Wikipedia contributors of each article.',
  },
  selection: '',
  documents: [],
};

const WIKI_FILES = [
  { path: 'data/wikitext-103/wiki.valid.tokens', split: 'valid', complete: true },
  { path: 'data/wikitext-103/wiki.test.tokens', split: 'test', complete: true },
  { path: 'data/wiki.train.tokens', split: 'train', complete: false },
];

async function wikipedia(values) {
  const manifestPath = new URL('packs/wikipedia/manifest.json', root).pathname;
  const manifest = readManifest(manifestPath) ?? WIKIPEDIA;
  const src = manifest.sources[0];
  const gitDir = gitDirOf(values.repo);
  const textsDir = resolve(values.texts ?? 'pack-texts/wikipedia');
  const entries = new Map((await listBlobs(gitDir, src.commit)).map((e) => [e.path, e]));
  const blobs = await readBlobs(
    gitDir,
    WIKI_FILES.map((f) => {
      const e = entries.get(f.path);
      if (!e) fail(`${f.path}: not in ${src.repository} at ${src.commit}`);
      return e.blob;
    }),
  );
  const docs = [];
  const texts = new Map();
  const seen = new Set();
  for (const f of WIKI_FILES) {
    const raw = blobs.get(entries.get(f.path).blob).toString('utf8');
    splitWikiText(raw, { complete: f.complete }).forEach((a, i) => {
      if (seen.has(a.title)) return; // an article in two splits is one document
      seen.add(a.title);
      const bytes = Buffer.from(detokenizeWikiText(a.raw), 'utf8');
      const id = `wikitext-103:${f.split}:${String(i + 1).padStart(4, '0')}`;
      const d = docEntry(
        {
          id,
          file: `wt103-${f.split}-${String(i + 1).padStart(4, '0')}.txt`,
          title: a.title,
          url: `https://en.wikipedia.org/wiki/${encodeURIComponent(a.title.replace(/ /g, '_'))}`,
          source: src.repository,
          source_path: f.path,
        },
        bytes,
      );
      docs.push(d);
      texts.set(id, bytes);
    });
  }
  if (values.select !== undefined) {
    const selection =
      `Every article of the files named in the source note: ${docs.length} articles (validation, test, then the ` +
      'training-file prefix; an article already taken is not taken again).';
    writeManifest(manifestPath, { ...manifest, built: today(), selection, documents: docs });
    writeTexts(textsDir, docs, texts);
  } else {
    writeTexts(textsDir, manifest.documents, texts);
  }
}

// --------------------------------------------------------------------------- wikipedia-articles

const WIKIPEDIA_ARTICLES = {
  format: 'trainprint.pack-manifest',
  version: 1,
  id: 'pack:wikipedia-articles',
  name: 'English Wikipedia — 24,326 articles (page ids 56,564,559–57,025,637)',
  pack_version: '1.0.0',
  description:
    'Plain text of English Wikipedia articles as WikiExtractor (Attardi, github.com/attardi/wikiextractor) renders ' +
    'a dump part: every article of 50 words or more of one contiguous page-id range, grouped by extractor file ' +
    '(one document per file). Hashes of word 5-grams only, no text.',
  kb_dataset: 'wikipedia',
  kb_note: WIKIPEDIA.kb_note.replace(
    'WikiText-103 is verbatim English Wikipedia text (Good and Featured articles)',
    'WikiExtractor output is the verbatim running text of English Wikipedia articles ' +
      '(lists, tables and markup dropped)',
  ),
  window: 4, // the Wikipedia setting: short passages (≥ 16 words) are reported
  built: today(),
  sources: [
    {
      repository: 'Vibhas-hs-edu/WikiTasks',
      commit: '52b1f163137bc40b0f67cbf129d5dab4f6fd5901',
      url: 'https://github.com/Vibhas-hs-edu/WikiTasks',
      note:
        'text/AA/wiki_00 … wiki_63: WikiExtractor output of one part of an English Wikipedia dump (page ids ' +
        '56,564,557–57,025,637: pages created in 2018, their text as of a dump older than the commit, October 2021; ' +
        "ids of English Wikipedia's ?curid= URLs). Each <doc> is " +
        'an article: title line, then its paragraphs and section titles. Kept: articles whose body has ≥ 50 words, ' +
        "as 'Title', a blank line and the body, joined by blank lines in file order (text/Temp/ holds the same " +
        'articles wrapped as XML and is not used).',
    },
  ],
  licence: {
    texts: "CC BY-SA 3.0 and GFDL (English Wikipedia text at the dump's date; CC BY-SA 4.0 since 2023)",
    note:
      'The pack holds hashes of word 5-grams, not the texts; attribution: the Wikipedia contributors of each ' +
      'article (its history at https://en.wikipedia.org/wiki?curid=<page id>).',
  },
  selection: '',
  documents: [],
};

const ARTICLE_MIN_WORDS = 50;
/** An article's URL is this followed by its page id (WikiExtractor's `<doc url>` without the host). */
const ARTICLE_URL = 'https://en.wikipedia.org/wiki?curid=';
const decodeXmlAttr = (s) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The articles of one WikiExtractor file: [{ id, title, body }] (body without the title line). */
function extractorArticles(text) {
  const out = [];
  for (const m of text.matchAll(/<doc id="(\d+)" url="[^"]*" title="([^"]*)">\n([\s\S]*?)\n<\/doc>/g)) {
    const lines = m[3].split('\n');
    out.push({ id: Number(m[1]), title: decodeXmlAttr(m[2]), body: lines.slice(1).join('\n').trim() });
  }
  return out;
}

const WIKIPEDIA_CORE = {
  ...WIKIPEDIA_ARTICLES,
  id: 'pack:wikipedia-core',
  name: 'English Wikipedia — 5,861 of its oldest articles (page ids 12–13,600, text of early 2015)',
  description:
    'Plain text of English Wikipedia articles as WikiExtractor (Attardi, github.com/attardi/wikiextractor) renders ' +
    "a 2015 dump: every article of 50 words or more among the dump's first 100 extractor files, which hold its " +
    'lowest page ids — the oldest articles, Anarchism (id 12) first. One document per extractor file. Hashes of ' +
    'word 5-grams only, no text.',
  window: 8, // long articles: the book setting, as the Gutenberg pack (every ≥ 12-word overlap reported)
  sources: [
    {
      repository: 'jason-feng/wikiVisual',
      commit: '1c0fac92f29f17c1603bfffbe864e0dfdff66897',
      url: 'https://github.com/jason-feng/wikiVisual',
      note:
        'text/AA/wiki_00 … wiki_99 at this commit of May 2015 (the next commit removed them): WikiExtractor output ' +
        "of the English Wikipedia dump, in the dump's page-id order (ids of English Wikipedia's ?curid= URLs). Each " +
        '<doc> is an article: title line, then its paragraphs and section titles. Kept: articles whose body has ≥ 50 ' +
        "words, as 'Title', a blank line and the body, joined by blank lines in file order (text/AB … AD, later page " +
        'ids, are not used: the size budget of the default packs).',
    },
  ],
};

/** The WikiExtractor packs: their manifest, template, texts folder and document names. */
const EXTRACT_PACKS = {
  'wikipedia-articles': { template: WIKIPEDIA_ARTICLES, ids: 'enwiki-extract:AA/', files: 'enwiki-AA-' },
  'wikipedia-core': { template: WIKIPEDIA_CORE, ids: 'enwiki-2015:AA/', files: 'enwiki-2015-AA-' },
};

async function wikipediaExtract(values, name) {
  const pack = EXTRACT_PACKS[name];
  const manifestPath = new URL(`packs/${name}/manifest.json`, root).pathname;
  const manifest = readManifest(manifestPath) ?? pack.template;
  const src = manifest.sources[0];
  const gitDir = gitDirOf(values.repo);
  const textsDir = resolve(values.texts ?? `pack-texts/${name}`);
  const files = (await listBlobs(gitDir, src.commit))
    .filter((e) => /^text\/AA\/wiki_\d\d$/.test(e.path))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (files.length === 0) fail(`no text/AA/wiki_NN files in ${src.repository} at ${src.commit}`);
  const blobs = await readBlobs(
    gitDir,
    files.map((f) => f.blob),
  );
  const docs = [];
  const texts = new Map();
  let articles = 0;
  for (const f of files) {
    const kept = extractorArticles(blobs.get(f.blob).toString('utf8')).filter(
      (a) => a.body.split(/\s+/).filter(Boolean).length >= ARTICLE_MIN_WORDS,
    );
    if (kept.length === 0) continue;
    articles += kept.length;
    const parts = kept.map((a) => `${a.title}\n\n${a.body}`);
    const bytes = Buffer.from(parts.join('\n\n'), 'utf8');
    // where each article starts (UTF-16 offsets, as JavaScript indexes the text) and its page id: a match names it
    const starts = [];
    let at = 0;
    for (const p of parts) {
      starts.push(at);
      at += p.length + 2;
    }
    const keys = kept.map((a) => String(a.id));
    const deflated = zlibSync(
      new TextEncoder().encode(articleTableText({ keys, titles: kept.map((a) => a.title.trim()) })),
      {
        level: 9,
        mem: 8,
      },
    );
    const table = {
      url: ARTICLE_URL,
      page_ids: kept.map((a) => a.id),
      starts,
      table: Buffer.from(deflated).toString('base64'),
    };
    const file = f.path.split('/').pop();
    const id = `${pack.ids}${file}`;
    docs.push(
      docEntry(
        {
          id,
          file: `${pack.files}${file}.txt`,
          title: `${kept.length} articles, page ids ${kept[0].id}–${kept[kept.length - 1].id}`,
          url: `https://en.wikipedia.org/wiki?curid=${kept[0].id}`,
          source: src.repository,
          source_path: f.path,
          articles: table,
        },
        bytes,
      ),
    );
    texts.set(id, bytes);
  }
  if (values.select !== undefined) {
    const last = `wiki_${String(files.length - 1).padStart(2, '0')}`;
    const selection =
      `Every article with ≥ ${ARTICLE_MIN_WORDS} words in text/AA/wiki_00 … ${last}: ` +
      `${articles.toLocaleString('en')} articles in ${docs.length} documents (one per extractor file).`;
    writeManifest(manifestPath, { ...manifest, built: today(), selection, documents: docs });
    writeTexts(textsDir, docs, texts);
  } else {
    writeTexts(textsDir, manifest.documents, texts);
    // the articles (starts, page ids, the table the pack stores) are read from the source like the texts: written into
    // the manifest where they are missing or differ (the texts themselves are checked against their SHA-256 above)
    const byId = new Map(docs.map((d) => [d.id, d.articles]));
    let added = 0;
    const documents = manifest.documents.map((d) => {
      const a = byId.get(d.id);
      if (a === undefined || JSON.stringify(d.articles) === JSON.stringify(a)) return d;
      added++;
      return { ...d, articles: a };
    });
    if (added > 0) writeManifest(manifestPath, { ...manifest, documents });
  }
}

// --------------------------------------------------------------------------------------- sample

const SAMPLE = {
  format: 'trainprint.pack-manifest',
  version: 1,
  id: 'pack:gutenberg-sample',
  name: 'Project Gutenberg — five-book sample (tests)',
  pack_version: '1.0.0',
  description:
    "Five public-domain Project Gutenberg books (NLTK's gutenberg corpus, committed as test fixtures): the small " +
    'pack whose byte-for-byte rebuild the tests check. Not a default pack.',
  kb_dataset: 'project-gutenberg',
  kb_note: GUTENBERG.kb_note,
  window: 8,
  built: '2026-11-22',
  sources: [
    {
      repository: 'nltk/nltk',
      url: 'https://github.com/nltk/nltk',
      note:
        "NLTK's gutenberg corpus (nltk_data/corpora/gutenberg/), which already lacks the Project Gutenberg header and " +
        'licence: the texts of test/fixtures/texts/gutenberg/ as committed (origins in test/fixtures/texts/SOURCE.md).',
    },
  ],
  licence: GUTENBERG.licence,
  selection: 'The five books of test/fixtures/texts/gutenberg/, in code-unit order of their file names.',
  texts: '../../test/fixtures/texts/gutenberg',
  documents: [],
};

function sample(values) {
  const manifestPath = new URL('packs/gutenberg-sample/manifest.json', root).pathname;
  const manifest = readManifest(manifestPath) ?? SAMPLE;
  const dir = resolve(dirname(manifestPath), manifest.texts);
  if (values.select === undefined) {
    const texts = new Map(manifest.documents.map((d) => [d.id, readFileSync(join(dir, d.file))]));
    let bad = 0;
    for (const d of manifest.documents) {
      if (sha256(texts.get(d.id)) !== d.sha256) {
        console.error(`differs: ${d.file}`);
        bad++;
      }
    }
    const n = manifest.documents.length;
    console.error(`${dir}: ${n - bad} of ${n} texts as the manifest names them`);
    if (bad) process.exitCode = 1;
    return;
  }
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort();
  const documents = files.map((f) => {
    const bytes = readFileSync(join(dir, f));
    // NLTK names the book on its first line: [Persuasion by Jane Austen 1818]
    const first = bytes.toString('utf8').split('\n')[0];
    const m = /^\[(.+?) by (.+?)(?: (\d{4}))?\]/.exec(first);
    return docEntry(
      {
        id: f.replace(/\.txt$/, ''),
        file: f,
        ...(m ? { title: m[1], author: m[2] } : {}),
        source: 'nltk/nltk',
        source_path: `nltk_data/corpora/gutenberg/${f}`,
      },
      bytes,
    );
  });
  writeManifest(manifestPath, { ...manifest, documents });
}

// ----------------------------------------------------------------------------------------- main

const { values, positionals } = parseArgs({
  options: {
    repo: { type: 'string' },
    extra: { type: 'string' },
    texts: { type: 'string' },
    select: { type: 'string' },
  },
  allowPositionals: true,
  strict: false,
});
const target = positionals[0];
if (values.select === true) values.select = '';
if (target === 'gutenberg') await gutenberg(values);
else if (target === 'wikipedia') await wikipedia(values);
else if (target in EXTRACT_PACKS) await wikipediaExtract(values, target);
else if (target === 'sample') sample(values);
else {
  fail(
    'usage: node build/packs-prepare.mjs gutenberg|wikipedia|wikipedia-articles|wikipedia-core|sample ' +
      '[--repo GITDIR] [--extra GITDIR] [--texts DIR] [--select [N]]',
  );
}
