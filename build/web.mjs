// Build the web app (app/) into a self-contained static folder, dist/web by default:
//   index.html, styles.css     copied from app/
//   app.js, worker.js          app/app.ts and worker.ts bundled by esbuild; the library stays
//                              external: '../src/index.js' → './index.js', '../src/entries/evidence.js' → './evidence.js',
//                              '../src/services/jobs/descriptions.js' → './job-descriptions.js'
//   job-descriptions.js        what the job types say of their results (src/services/jobs/descriptions.ts), bundled
//                              on its own with no import: the jobs view loads it, and no engine, over a served API
//   index.js, chunk-*.js       a copy of the package's browser bundle (dist/) and its chunks, so the folder can be
//                              served or deployed on its own (any static host: nothing is generated per request)
//   formats.js, readers/       the document readers (dist/formats.js) bundled with pdf.js, which the
//                              package's file imports by package name: each library a chunk under readers/ (with
//                              its licence), loaded by the engine when the first EPUB, DOCX or PDF arrives
//   starter.tpds, starter.json the starter dataset as a snapshot file (raw bytes: no base64 module to parse)
//                              and its id, source and SHA-256; the worker fetches it after first paint and
//                              checks the SHA-256 before importing it
//   starter.tpci               its content-word pair index (exportContentIndex), which the engine checks: no
//                              analysis builds it from the licence texts
//   packs/                     the default reference packs and packs/index.json (their SHA-256), fetched
//                              by the worker after first paint with loadDefaultPacksFromUrl
//   starter-texts.json         the starter's licence texts by id (spdx-license-list, CC0-1.0), for the
//                              served mode only: there the page has no engine to ask for a document's text
// Run after `npm run build`.  Usage: node build/web.mjs [--dist DIR] [--out DIR]
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({ options: { dist: { type: 'string' }, out: { type: 'string' } } });
const dist = resolve(root, values.dist ?? 'dist');
const out = resolve(root, values.out ?? join(dist, 'web'));
const src = join(root, 'app');

for (const f of ['index.js', 'starter.js']) {
  if (!existsSync(join(dist, f))) {
    console.error(
      `build/web.mjs: ${join(dist, f)} is missing — run \`npm run build\` first (the page uses the built bundles).`,
    );
    process.exit(1);
  }
}

const t0 = performance.now();
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// The app may import the library only through these entries (the main one, the evidence entry for the work
// report's strip geometry, the job types' descriptions for what each says of its results); anything else outside app/
// would be bundled a second time into app.js, so it is refused.
const EXTERNAL = {
  '../src/index.js': './index.js',
  '../src/entries/evidence.js': './evidence.js',
  '../src/services/jobs/descriptions.js': './job-descriptions.js',
};
/** The browsers the page's own code is built for. */
const TARGET = ['es2022', 'chrome100', 'firefox114', 'safari16'];
/** The library's on-demand file of document readers, which the page gets bundled with their libraries. */
const READERS = 'formats.js';
// The HTTP client of the served mode is bundled into app.js: it is fetch only and imports the
// library for types alone, so it adds a few KiB and no engine code. So is the quotation rule's table of marks, a module
// with no imports: the page's marks are the library's, from one source.
const BUNDLED = new Set(['../src/client/index.js', '../src/text/quotation-marks.js']);
const libraryExternal = {
  name: 'library-external',
  setup(b) {
    b.onResolve({ filter: /^\.\.\// }, (args) => {
      if (resolve(args.resolveDir) !== src || BUNDLED.has(args.path)) return undefined;
      const to = EXTERNAL[args.path];
      if (to) return { path: to, external: true };
      return {
        errors: [
          { text: `app/ may import the library only as ${Object.keys(EXTERNAL).join(' or ')} (found ${args.path})` },
        ],
      };
    });
  },
};

await build({
  entryPoints: {
    app: join(src, 'app.ts'),
    worker: join(src, 'worker.ts'),
    'job-descriptions': join(root, 'src/services/jobs/descriptions.ts'),
  },
  outdir: out,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: TARGET,
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  plugins: [libraryExternal],
  logLevel: 'warning',
});

copyFileSync(join(src, 'index.html'), join(out, 'index.html'));
// The jobs view's descriptions stand alone: an import there (of the library, of a chunk) would load it with the first
// job's results over a served API, where the page has no engine to run.
const descriptions = readFileSync(join(out, 'job-descriptions.js'), 'utf8');
if (/\bimport\s*\(|\bfrom\s*["']|\bimport\s*["']/.test(descriptions)) {
  console.error(
    'build/web.mjs: job-descriptions.js must import nothing (src/services/jobs/descriptions.ts and its lines)',
  );
  process.exit(1);
}
copyFileSync(join(src, 'styles.css'), join(out, 'styles.css'));
// index.js with the chunks it loads (code shared with what it imports on demand, such as the remote corpora's
// client, is split into chunk files): every relative import, static or dynamic, followed to the end
const library = [];
for (const queue = ['index.js', 'evidence.js']; queue.length > 0; ) {
  const f = queue.shift();
  if (library.includes(f)) continue;
  library.push(f);
  if (f === READERS) continue; // bundled below
  copyFileSync(join(dist, f), join(out, f));
  const code = readFileSync(join(dist, f), 'utf8');
  for (const m of code.matchAll(/(?:from\s*|import\s*\(\s*|import\s*)["']\.\/([\w.-]+\.js)["']/g)) queue.push(m[1]);
}
// The readers as the package builds them, with their libraries: the engine imports './formats.js' (an on-demand
// import), and that file's import() of pdf.js by package name would fail in the page's worker, which has
// no import map. Code splitting keeps each library a chunk its reader imports when the first file of its format
// arrives, so a DOCX loads no pdf.js. pdf.js needs no worker file or `workerSrc`: src/formats/pdf.ts imports
// its worker module, which registers its handler on `globalThis`, so pdf.js parses in the thread that calls it —
// the engine's worker here, as in Node — and the page never waits on it.
const readers = await build({
  entryPoints: { formats: join(dist, READERS) },
  outdir: out,
  chunkNames: 'readers/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: TARGET,
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});
const readerFiles = Object.keys(readers.metafile.outputs).map((f) => relative(out, resolve(root, f)));
// a site that serves the folder passes these libraries on, and their minified code keeps no licence notice: the
// licence of each library the readers bundle (fflate no longer, since the zips inflate with src/formats' own decoder)
const bundled = Object.keys(readers.metafile.inputs).join('\n');
for (const name of ['fflate', 'pdfjs-dist']) {
  if (!bundled.includes(`node_modules/${name}/`)) continue;
  copyFileSync(join(root, 'node_modules', name, 'LICENSE'), join(out, 'readers', `LICENSE-${name}.txt`));
}
// Every import of what the page loads must resolve in a browser: one by package name (an external of the package's
// build) fails only at run time, when a user gets there. esbuild parses the files, so text in comments is no import.
// `node:` modules are let through: the library imports them only on paths a page never takes (a file: URL).
const bare = [];
await build({
  entryPoints: ['app.js', 'worker.js', ...library.filter((f) => f !== READERS), ...readerFiles].map((f) =>
    join(out, f),
  ),
  outdir: out,
  write: false,
  bundle: true,
  splitting: true,
  format: 'esm',
  logLevel: 'silent',
  plugins: [
    {
      name: 'bare-imports',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) => {
          if (!args.path.startsWith('node:')) bare.push(`${relative(out, args.importer)} imports "${args.path}"`);
          return { path: args.path, external: true };
        });
      },
    },
  ],
});
if (bare.length > 0) {
  console.error(`build/web.mjs: a page cannot load a package by its name: ${bare.join('; ')}`);
  process.exit(1);
}

// The default packs, as listed (the worker verifies each file against the SHA-256 of this index).
const packsDir = join(root, 'packs');
const packIndex = JSON.parse(readFileSync(join(packsDir, 'index.json'), 'utf8'));
mkdirSync(join(out, 'packs'));
copyFileSync(join(packsDir, 'index.json'), join(out, 'packs/index.json'));
const packFiles = packIndex.packs.filter((p) => p.default).map((p) => `packs/${p.file}`);
for (const f of packFiles) copyFileSync(join(root, f), join(out, f));

// The texts the starter indexed: the same selection as build/starter.mjs, checked against the
// built dataset (source and document count) so that source offsets point into these very texts.
const require = createRequire(import.meta.url);
const pkg = require('spdx-license-list/package.json');
const licences = require('spdx-license-list/spdx-full.json');
const source = `npm spdx-license-list@${pkg.version}`;
const texts = {};
for (const id of Object.keys(licences).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
  const t = licences[id].licenseText;
  if (typeof t === 'string' && t.trim() !== '') texts[id] = t;
}
const { STARTER_DATASET, loadStarterDataset } = await import(pathToFileURL(join(dist, 'starter.js')).href);
if (STARTER_DATASET.source !== source || STARTER_DATASET.documents !== Object.keys(texts).length) {
  console.error(
    `build/web.mjs: the starter dataset (${STARTER_DATASET.source}, ${STARTER_DATASET.documents} documents) ` +
      `does not match ${source} (${Object.keys(texts).length} texts): rebuild with \`npm run build\`.`,
  );
  process.exit(1);
}
writeFileSync(join(out, 'starter-texts.json'), JSON.stringify({ source, licence: 'CC0-1.0', texts }));

// The starter snapshot as the built engine exports it, and what the worker checks it against.
const lib = await import(pathToFileURL(join(dist, 'index.js')).href);
const engine = await lib.createEngine();
await loadStarterDataset(engine);
const snapshot = engine.exportDataset(STARTER_DATASET.id);
// its content-word pair index, which the worker hands the dataset so that the first analysis does not build it
const contentIndex = await engine.exportContentIndex(STARTER_DATASET.id);
engine.dispose();
writeFileSync(join(out, 'starter.tpds'), snapshot);
writeFileSync(join(out, 'starter.tpci'), contentIndex);
const starter = {
  id: STARTER_DATASET.id,
  source,
  licence: 'CC0-1.0',
  documents: STARTER_DATASET.documents,
  file: 'starter.tpds',
  bytes: snapshot.length,
  sha256: await lib.sha256Hex(snapshot),
  content_index: 'starter.tpci',
};
writeFileSync(join(out, 'starter.json'), `${JSON.stringify(starter, null, 2)}\n`);

const files = [
  'index.html',
  'styles.css',
  'app.js',
  'worker.js',
  ...library.filter((f) => f !== READERS),
  ...readerFiles,
  'starter.json',
  'starter.tpds',
  'starter.tpci',
  'starter-texts.json',
  'packs/index.json',
  ...packFiles,
];
const kb = (f) => `${f} ${(statSync(join(out, f)).size / 1024).toFixed(0)} KiB`;
console.log(
  `web app → ${relative(root, out) || '.'}: ${files.map(kb).join(', ')} (${(performance.now() - t0).toFixed(0)} ms)`,
);
if (dirname(out) !== dist) console.log('(built outside dist/: serve the folder as is)');
