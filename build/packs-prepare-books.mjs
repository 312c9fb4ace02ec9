// Prepare the texts of the book packs in other languages (packs/books-<lang>/manifest.json): novels of the European
// Literary Text Collection (ELTeC, TEI on github.com/COST-ELTeC) and the famous works ELTeC lacks, from public copies
// of their Project Gutenberg files, so that `trainprint pack build packs/books-<lang>/manifest.json --texts <dir>`
// builds them byte for byte.
//
//   node build/packs-prepare-books.mjs <lang> --source OWNER/NAME=GITDIR ... [--texts DIR] [--out DIR] [--select]
//
// <lang> is fr, de, es, it, pt, nl, pl or ru. Each --source names one of the manifest's source repositories and a git
// directory (a clone, bare or not) that has the manifest's commit: COST-ELTeC/ELTeC-<xxx> and the repositories of the
// famous works below. Texts are written to DIR (default pack-texts/books-<lang>/, git-ignored); with --out, the ELTeC
// novels the selection keeps OUT of the pack are written to that folder too (same extraction, no manifest): they are
// the natural negatives of the language (bench/languages/<lang>.mjs).
//
// Without --select the manifest decides: exactly its documents are extracted and checked against their SHA-256 (exit
// code 1 on any difference). With --select the selection rule is run again and the manifest's document list
// rewritten (`built` set to today).
//
// Runs the library's own Project Gutenberg stripping (dist/packs.js: run `npm run build` first).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  docEntry,
  fail,
  git,
  gitDirOf,
  listBlobs,
  readBlobs,
  readManifest,
  today,
  writeManifest,
  writeTexts,
} from './packs-source.mjs';
import { teiHead, teiText } from './tei-text.mjs';

const root = new URL('../', import.meta.url);
const { stripGutenbergHeaders } = await import(new URL('dist/packs.js', root).href);

/** Words of the pack's ELTeC novels, famous works included: about 2 M words a language keeps 8 packs near 7 MB. */
const WORD_CAP = 2_000_000;

const ELTEC_NOTE =
  'European Literary Text Collection (ELTeC; Schöch et al., "Distant Reading for European Literary History", ' +
  'COST Action CA16204, 2018–2022): about 100 novels of 1840–1920 a language, TEI. Text of <body> elements, ' +
  'each paragraph, verse line or heading on lines of its own (<note> and <fw> left out).';

/**
 * Public-domain texts of the language in no pack, beside the ELTeC novels kept out: the sample texts of FakerPHP's
 * locales (each a whole or partial public-domain book in a PHP heredoc). Written with --out only; the packs never read
 * them.
 */
const FAKER = { repository: 'FakerPHP/Faker', commit: '054058d29557027ad71f7506ad0dc39b0d8e0129' };
const fakerText = (locale) => ({ ...FAKER, path: `src/Faker/Provider/${locale}/Text.php`, id: `faker-${locale}` });
const NEGATIVES = {
  fr: [fakerText('fr_CA')], // Honoré Beaugrand, La chasse galerie (1900)
  de: [fakerText('de_DE')], // Goethe, Die Leiden des jungen Werthers, Buch 1 (1774): the author of Faust, not Faust
  nl: [fakerText('nl_NL'), fakerText('nl_BE')], // Nescio, Dichtertje / De Uitvreter / Titaantjes; De Coster's Uilenspiegel in Dutch
  pl: [fakerText('pl_PL')], // Bruno Schulz, Sklepy cynamonowe (1934)
  ru: [fakerText('ru_RU')], // Gogol, Мёртвые души, tome I (1842)
};

const gutenbergNote = (what) =>
  `${what}, a public copy of the Project Gutenberg file; header, footer and licence stripped with the rules of ` +
  'c-w/gutenberg strip_headers (as pack:gutenberg).';

/**
 * Per language: the ELTeC repository and commit, its TEI folder, the famous works that must be in the pack (ELTeC
 * ids, and files of other repositories), and the knowledge-base link.
 */
const LANGS = {
  fr: {
    name: 'French',
    eltec: { repository: 'COST-ELTeC/ELTeC-fra', commit: '83f0a43fdb967cd1db646027a1a237307e4924a1', xxx: 'fra' },
    famousEltec: ['FRA01302_Flaubert'],
    extra: [
      {
        repository: 'magskwa/TAL_laboratoire3',
        commit: 'b0ebb1d294c1fe23d74b26aba2145ea2de7c5baa',
        path: 'miserables.txt',
        ebook: 17489,
        title: 'Les Misérables, Tome I: Fantine',
        author: 'Victor Hugo',
      },
    ],
  },
  de: {
    name: 'German',
    eltec: { repository: 'COST-ELTeC/ELTeC-deu', commit: 'd1eed488bd579ee95151b1a291a0056a90c36fa4', xxx: 'deu' },
    famousEltec: [],
    extra: [
      {
        repository: 'fhswf/datasets',
        commit: '3108561330ecfbd16baf51dc89bbaafed2711fb2',
        path: 'faust.txt',
        ebook: 2229,
        title: 'Faust: Der Tragödie erster Teil',
        author: 'Johann Wolfgang von Goethe',
        plain: true,
      },
      {
        repository: 'gutenbergbooks/22367',
        commit: null, // filled from the clone by --select
        path: '22367-0.txt',
        ebook: 22367,
        title: 'Die Verwandlung',
        author: 'Franz Kafka',
      },
    ],
  },
  es: {
    name: 'Spanish',
    eltec: { repository: 'COST-ELTeC/ELTeC-spa', commit: '83e2a22d5ef66f96e59f47f7ef810358c4236322', xxx: 'spa' },
    famousEltec: [],
    extra: [
      {
        repository: 'fernandocruzp/LectorQuijote',
        commit: null,
        path: 'pg2000.txt',
        ebook: 2000,
        title: 'Don Quijote',
        author: 'Miguel de Cervantes Saavedra',
      },
    ],
  },
  it: {
    name: 'Italian',
    eltec: { repository: 'COST-ELTeC/ELTeC-ita', commit: '100a4851ed1a1092f082c0ecd109f621c8f62ed4', xxx: 'ita' },
    famousEltec: ['IT18420_Manzoni_Promessi-Sposi'],
    extra: [
      {
        repository: 'gmagistr/divina-commedia-nanogpt',
        commit: '8f4e82cbcfeadca0b641bf60970e81ffdae9a3f4',
        path: 'divina_commedia.txt',
        ebook: 1012,
        title: 'La Divina Commedia',
        author: 'Dante Alighieri',
        plain: true,
      },
    ],
  },
  pt: {
    name: 'Portuguese',
    eltec: { repository: 'COST-ELTeC/ELTeC-por', commit: '8886868916311001a8a8dd99aa6f18f6a2c68408', xxx: 'por' },
    famousEltec: [],
    extra: [
      {
        repository: 'edmar-bevilaqua/books',
        commit: null,
        path: 'dom_casmurro.txt',
        ebook: 55752,
        title: 'Dom Casmurro',
        author: 'Machado de Assis',
        plain: true,
      },
    ],
  },
  nl: {
    name: 'Dutch',
    eltec: null, // ELTeC-nld holds no novels at its newest commit
    famousEltec: [],
    extra: [
      {
        repository: 'GITenberg/Max-HavelaarOf-de-koffiveilingen-der-Nederlandsche-Handelsmaatschappy_11024',
        commit: null,
        path: '11024-8.txt',
        ebook: 11024,
        title: 'Max Havelaar, of de koffiveilingen der Nederlandsche Handelmaatschappy',
        author: 'Multatuli',
        encoding: 'latin1',
      },
    ],
  },
  pl: {
    name: 'Polish',
    eltec: { repository: 'COST-ELTeC/ELTeC-pol', commit: '95fe196e35720b3de9644ef3ef1d1bb242bae99a', xxx: 'pol' },
    famousEltec: [],
    extra: [
      {
        repository: 'gutenbergbooks/31536',
        commit: null,
        path: '31536-0.txt',
        ebook: 31536,
        title: 'Pan Tadeusz',
        author: 'Adam Mickiewicz',
      },
    ],
  },
  ru: {
    name: 'Russian',
    eltec: {
      repository: 'COST-ELTeC/ELTeC-rus',
      commit: 'fc5014be10be291a000d7f7397c1f1ff60746d2b',
      xxx: 'rus',
      folder: 'level0',
    },
    famousEltec: ['015 anna-karenina'],
    extra: [],
  },
};

const wordsOf = (s) => s.split(/\s+/).filter(Boolean).length;

// ------------------------------------------------------------------------------------- sources

function sourcesOf(values) {
  const list = Array.isArray(values.source) ? values.source : values.source ? [values.source] : [];
  const map = new Map();
  for (const s of list) {
    const eq = s.indexOf('=');
    if (eq < 0) fail(`--source ${s}: expected OWNER/NAME=GITDIR`);
    map.set(s.slice(0, eq), gitDirOf(s.slice(eq + 1)));
  }
  return map;
}

const gitOf = (sources, repository) => {
  const g = sources.get(repository);
  if (!g) fail(`--source ${repository}=GITDIR is needed (a clone of that repository)`);
  return g;
};

/** The ELTeC novels of a commit, in file order: [{ id, path, blob, size }]. */
async function eltecEntries(gitDir, eltec) {
  const folder = eltec.folder ?? 'level1';
  const all = await listBlobs(gitDir, eltec.commit);
  // a partial clone may lack the largest blobs: those novels are left out of the selection (and so of the negatives)
  const check = await git(gitDir, ['cat-file', '--batch-check'], all.map((e) => `${e.blob}\n`).join(''));
  const missing = new Set(
    check
      .toString('utf8')
      .split('\n')
      .filter((l) => l.endsWith(' missing'))
      .map((l) => l.split(' ')[0]),
  );
  return all
    .filter((e) => !missing.has(e.blob))
    .filter(
      (e) =>
        e.path.startsWith(`${folder}/`) && e.path.endsWith('.xml') && !e.path.slice(folder.length + 1).includes('/'),
    )
    .map((e) => ({ ...e, id: e.path.slice(folder.length + 1, -4).trim() }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** reprint-count per ELTeC id from the metadata table (absent for collections without one). */
async function reprintCounts(gitDir, eltec) {
  const all = await listBlobs(gitDir, eltec.commit);
  const meta = all.find((e) => e.path === `ELTeC-${eltec.xxx}_metadata.tsv`);
  if (!meta) return new Map();
  const tsv = (await readBlobs(gitDir, [meta.blob])).get(meta.blob).toString('utf8');
  const [head, ...rows] = tsv.split('\n').filter(Boolean);
  const cols = head.split('\t');
  const [f, r] = [cols.indexOf('filename'), cols.indexOf('reprint-count')];
  return new Map(rows.map((row) => row.split('\t')).map((c) => [c[f], c[r]]));
}

/** One famous work's text from its own repository: a Project Gutenberg file stripped, or a plain text as it is. */
function extraText(extra, raw) {
  const text = raw.toString(extra.encoding === 'latin1' ? 'latin1' : 'utf8');
  const body = extra.plain ? text.replace(/\r\n?/g, '\n') : stripGutenbergHeaders(text);
  return `${body.trim()}\n`;
}

// -------------------------------------------------------------------------------------- manifest

function template(lang, spec, extraSources) {
  const code = lang;
  const sources = [];
  if (spec.eltec) {
    sources.push({
      repository: spec.eltec.repository,
      commit: spec.eltec.commit,
      url: `https://github.com/${spec.eltec.repository}`,
      note: ELTEC_NOTE,
    });
  }
  for (const s of extraSources) sources.push(s);
  return {
    format: 'trainprint.pack-manifest',
    version: 1,
    id: `pack:books-${code}`,
    name: `${spec.name} books — public-domain novels and classics`,
    pack_version: '1.0.0',
    description:
      `${spec.name} public-domain literature: ${spec.eltec ? 'the most reprinted ELTeC novels of 1840–1920 and ' : ''}` +
      'the language’s famous works from Project Gutenberg files. Hashes of word 5-grams only, no text.',
    kb_dataset: 'mc4',
    kb_note:
      'Link tier: crawled, not documented. These texts are public web pages (gutenberg.org, wikisource.org, the ' +
      'ELTeC and digital-library sites) that Common Crawl fetches, and mC4 (Xue et al., arXiv 2010.11934) is Common ' +
      `Crawl text in 101 languages, ${spec.name} among them; no training dataset's documentation lists these books ` +
      'themselves (PG-19 and The Pile’s Gutenberg are English).',
    window: 8,
    common: { min_holders: 3, by: 'author' },
    built: today(),
    sources,
    licence: {
      texts:
        'Public domain (authors dead for more than 70 years; Project Gutenberg files: public domain in the USA, the ' +
        'Project Gutenberg trademark licence covers only the stripped boilerplate). ELTeC encodings are CC BY 4.0.',
      note:
        'The pack holds hashes of word 5-grams, not the texts; check the copyright laws of your country before using ' +
        'the texts themselves.',
    },
    selection:
      `The famous works (${spec.extra
        .map((e) => e.title)
        .concat(spec.famousEltec)
        .join('; ')}), then ` +
      (spec.eltec?.folder === 'level0'
        ? 'every second novel of the collection in file order (the others are kept out as natural negatives).'
        : `ELTeC novels whose reprint-count is "high", in file order, until ${WORD_CAP.toLocaleString('en')} words; ` +
          'every other novel of the collection is kept out (the natural negatives of the language).'),
    documents: [],
  };
}

async function prepare(lang, values) {
  const spec = LANGS[lang];
  const manifestPath = new URL(`packs/books-${lang}/manifest.json`, root).pathname;
  const read = readManifest(manifestPath);
  const sources = sourcesOf(values);
  const texts = new Map();
  const docs = [];
  const outside = [];
  const select = values.select !== undefined || !read;
  const commitOf = (repository) => read?.sources.find((s) => s.repository === repository)?.commit;

  // the famous works from their own repositories
  const extraSources = [];
  for (const extra of spec.extra) {
    const gitDir = gitOf(sources, extra.repository);
    const commit = commitOf(extra.repository) ?? extra.commit ?? (await headCommit(gitDir));
    const entry = (await listBlobs(gitDir, commit)).find((e) => e.path === extra.path);
    if (!entry) fail(`${extra.repository}@${commit} has no ${extra.path}`);
    const raw = (await readBlobs(gitDir, [entry.blob])).get(entry.blob);
    const bytes = Buffer.from(extraText(extra, raw), 'utf8');
    const id = `pg${extra.ebook}`;
    texts.set(id, bytes);
    docs.push(
      docEntry(
        {
          id,
          file: `${id}.txt`,
          title: extra.title,
          author: extra.author,
          ebook: extra.ebook,
          url: `https://www.gutenberg.org/ebooks/${extra.ebook}`,
          source: extra.repository,
          source_path: extra.path,
        },
        bytes,
      ),
    );
    extraSources.push({
      repository: extra.repository,
      commit,
      url: `https://github.com/${extra.repository}`,
      note: gutenbergNote(`${extra.path}: ${extra.title} (${extra.author}), Project Gutenberg ebook #${extra.ebook}`),
    });
  }

  // the ELTeC novels
  if (spec.eltec) {
    const gitDir = gitOf(sources, spec.eltec.repository);
    const entries = await eltecEntries(gitDir, spec.eltec);
    const reprints = await reprintCounts(gitDir, spec.eltec);
    const blobs = await readBlobs(
      gitDir,
      entries.map((e) => e.blob),
    );
    let words = docs.reduce((a, d) => a + wordsOf(texts.get(d.id).toString('utf8')), 0);
    const famous = new Set(spec.famousEltec);
    const ordered = [...entries.filter((e) => famous.has(e.id)), ...entries.filter((e) => !famous.has(e.id))];
    const inManifest = new Set(read?.documents.map((d) => d.id));
    ordered.forEach((e) => {
      const xml = blobs.get(e.blob).toString('utf8');
      const text = teiText(xml);
      const bytes = Buffer.from(text, 'utf8');
      const id = `eltec-${e.id.replace(/\s+/g, '-')}`;
      let take;
      if (!select) take = inManifest.has(id);
      else if (famous.has(e.id)) take = true;
      else if (spec.eltec.folder === 'level0') take = entries.indexOf(e) % 2 === 0;
      else take = reprints.get(e.id) === 'high' && words + wordsOf(text) <= WORD_CAP;
      if (!take) {
        outside.push({ id, file: `${id}.txt`, bytes });
        return;
      }
      if (select) words += wordsOf(text);
      const head = teiHead(xml);
      texts.set(id, bytes);
      docs.push(
        docEntry(
          {
            id,
            file: `${id}.txt`,
            ...(head.title ? { title: head.title } : {}),
            ...(head.author ? { author: head.author } : {}),
            url: `https://github.com/${spec.eltec.repository}/blob/${spec.eltec.commit}/${e.path}`,
            source: spec.eltec.repository,
            source_path: e.path,
          },
          bytes,
        ),
      );
    });
  }

  const manifest = select ? { ...template(lang, spec, extraSources), documents: docs } : read;
  if (select) writeManifest(manifestPath, manifest);
  const dir = values.texts ?? new URL(`pack-texts/books-${lang}/`, root).pathname;
  writeTexts(dir, manifest.documents, texts);
  if (values.out) {
    for (const n of NEGATIVES[lang] ?? []) {
      const gitDir = sources.get(n.repository);
      if (!gitDir) {
        console.error(`--out: no --source ${n.repository}=GITDIR, ${n.path} left out of the negatives`);
        continue;
      }
      const entry = (await listBlobs(gitDir, n.commit)).find((e) => e.path === n.path);
      const php = (await readBlobs(gitDir, [entry.blob])).get(entry.blob).toString('utf8');
      const text = php.match(/<<<'?EOT'?\n([\s\S]*?)\nEOT;/)?.[1] ?? '';
      outside.push({ id: n.id, file: `${n.id}.txt`, bytes: Buffer.from(`${text.trim()}\n`, 'utf8') });
    }
    mkdirSync(values.out, { recursive: true });
    for (const o of outside) writeFileSync(join(values.out, o.file), o.bytes);
    console.error(`${values.out}: ${outside.length} ELTeC novels kept out of the pack`);
  }
}

async function headCommit(gitDir) {
  return (await git(gitDir, ['rev-parse', 'HEAD'])).toString('utf8').trim();
}

// ----------------------------------------------------------------------------------------- main

const { values, positionals } = parseArgs({
  options: {
    source: { type: 'string', multiple: true },
    texts: { type: 'string' },
    out: { type: 'string' },
    select: { type: 'boolean' },
  },
  allowPositionals: true,
});
const lang = positionals[0];
if (!(lang in LANGS)) {
  fail(
    `usage: node build/packs-prepare-books.mjs ${Object.keys(LANGS).join('|')} --source OWNER/NAME=GITDIR ... ` +
      '[--texts DIR] [--out DIR] [--select]',
  );
}
await prepare(lang, values);
