/**
 * The layers of src/ and the rules between them (docs/architecture.md), checked in CI by
 * `npm run check:layers`. From the bottom up:
 *
 *   errors.ts, types.ts, util/, stats/       shared by everything
 *   core/                                    the TypeScript half of the WebAssembly ABI
 *   text/ → sketch/ → fingerprint/ → datasets/, align/
 *   store/, models/, net/                    infrastructure for the services (net/: the egress host policy)
 *   corpus/                                  the loaded datasets and their search
 *   remote/                                  remote corpora (infini-gram engines): loaded by the engine on demand
 *   packs/                                   reference packs: portrait snapshots with provenance
 *   formats/                                 the text of EPUB, PDF and DOCX files (on text/, errors.ts, util/), for the
 *                                            services; its libraries (fflate, pdfjs-dist) are loaded on demand
 *   services/<name>/                         analyze, score, registry, monitors, market, memorization, kb
 *   fingerprint-engine.ts, dataset-engine.ts, engine.ts   composition roots (engine-options.ts, create-engine.ts: the
 *                                            Engine's options and factory; remote-corpus.ts: opening a remote
 *                                            corpus); library.ts exports them with everything below (the whole
 *                                            library, internal); index.ts and entries/<name>.ts, the main entry
 *                                            and the sub-entries, re-export parts of it; fingerprint-entry.ts is
 *                                            the fingerprint engine alone; scan-engine.ts the datasets and the scan
 *                                            alone, which scan-library.ts exports to the file scan of the CLI
 *   http/, node/, client/, starter/          the outer ring: the library module and the public entries only
 *   cli.ts, cli/                             the CLI, in the outer ring too: cli.ts dispatches, cli/ holds the commands
 */
const BOTTOM = '^src/(errors|types)[.]ts$|^src/(util|stats)/';
const KERNELS = '^src/(core|text|sketch|fingerprint|datasets|align)/';
const INFRA = '^src/(store|models|net)/';
const REMOTE = '^src/remote/';
const BELOW_SERVICES = `${BOTTOM}|${KERNELS}|${INFRA}|^src/corpus/|^src/packs/|${REMOTE}`;
const ROOTS =
  '^src/(engine|engine-options|create-engine|remote-corpus|fingerprint-engine|dataset-engine|scan-engine|library|scan-library|on-demand-shared|index|fingerprint-entry)[.]ts$|^src/entries/';
// dependency-cruiser's $1 (below) is the first group that matched: the folder, 'cli' for src/cli.ts too, so the
// CLI's entry may import its commands in src/cli/ as the folders' modules import each other
const OUTER = '^src/(http|node|client|starter|cli)/|^src/(cli)[.]ts$';
const PUBLIC_ENTRIES =
  '^src/(index|fingerprint-entry)[.]ts$|^src/entries/[^/]+[.]ts$|^src/(http|node|client|starter)/index[.]ts$';
// The whole library in one module (src/library.ts): internal, not a package export. The outer ring imports it, and the
// main entry and the sub-entries re-export it, so that tsup builds it once (dist/library.js) and every class is one.
const LIBRARY = '^src/library[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      comment: 'Folders form layers: no two folders may import each other, directly or around a circle.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      comment:
        'No module imports itself back through others, type-only imports included (they vanish at run time, but a circle of types still ties the modules into one unit to read and change).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'services-never-import-the-engine',
      comment: 'A service is made by a factory from what it needs (corpus, store, functions), never from the Engine.',
      severity: 'error',
      from: { path: '^src/services/' },
      to: { path: ROOTS },
    },
    {
      name: 'nothing-below-services-imports-a-service',
      comment: 'The corpus, the kernels and the infrastructure know nothing of the services built on them.',
      severity: 'error',
      from: { path: BELOW_SERVICES },
      to: { path: '^src/services/' },
    },
    {
      name: 'nothing-below-the-corpus-imports-it',
      severity: 'error',
      from: { path: `${BOTTOM}|${KERNELS}|${INFRA}` },
      to: { path: '^src/corpus/' },
    },
    {
      name: 'nothing-below-remote-imports-it',
      comment: 'Remote corpora are searched by the corpus through an interface it defines (corpus/remote-types.ts).',
      severity: 'error',
      from: { path: `${BOTTOM}|${KERNELS}|${INFRA}|^src/corpus/|^src/packs/` },
      to: { path: REMOTE },
    },
    {
      name: 'formats-build-on-text-errors-util',
      comment: 'Document extraction (src/formats) reads files with the HTML extraction of src/text, the error table and src/util, and nothing else of the library.',
      severity: 'error',
      from: { path: '^src/formats/' },
      to: { path: '^src/', pathNot: ['^src/formats/', '^src/text/', '^src/errors[.]ts$', '^src/util/'] },
    },
    {
      name: 'nothing-below-the-services-imports-formats',
      comment: 'The services (and what is above them) extract documents; the kernels, infrastructure, corpus and remote corpora know nothing of files.',
      severity: 'error',
      from: { path: BELOW_SERVICES },
      to: { path: '^src/formats/' },
    },
    {
      name: 'remote-code-loads-on-demand',
      comment: 'Only the engine loads src/remote, by a dynamic import when a remote dataset is added: an engine that uses none carries none of its code.',
      severity: 'error',
      from: { path: `^src/services/|${ROOTS}` },
      to: { path: REMOTE, dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'remote-takes-the-alignment-from-the-engine',
      comment: 'dist/remote.js is a file of its own: the normaliser and the alignment come from the engine (ALIGNMENT_KIT), not a second copy.',
      severity: 'error',
      from: { path: REMOTE },
      to: { path: '^src/(align|text|fingerprint|sketch|datasets)/|^src/corpus/(alignment|alignment-kit|content-pairs|content-words|corpus)[.]ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'kernels-do-not-import-infrastructure',
      comment: 'Fingerprints, datasets and alignment run in every runtime and know no store or model adapter.',
      severity: 'error',
      from: { path: `${BOTTOM}|${KERNELS}` },
      to: { path: INFRA },
    },
    {
      name: 'bottom-imports-nothing-above',
      severity: 'error',
      from: { path: BOTTOM },
      to: { path: `${KERNELS}|^src/corpus/|^src/services/|${ROOTS}|${OUTER}` },
    },
    {
      name: 'kernel-layers-import-downward',
      comment: 'core → text → sketch → fingerprint → datasets/align, each importing only the ones before it.',
      severity: 'error',
      from: { path: '^src/(core|text|sketch|fingerprint)/' },
      to: { path: '^src/(datasets|align)/' },
    },
    {
      name: 'core-is-the-bottom-of-the-kernels',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/(text|sketch|fingerprint)/' },
    },
    {
      name: 'text-below-sketch-and-fingerprint',
      severity: 'error',
      from: { path: '^src/text/' },
      to: { path: '^src/(sketch|fingerprint)/' },
    },
    {
      name: 'sketch-below-fingerprint',
      severity: 'error',
      from: { path: '^src/sketch/' },
      to: { path: '^src/fingerprint/' },
    },
    {
      name: 'only-core-loads-the-wasm-module',
      comment: 'The generated module (the WebAssembly bytes) is loaded and instantiated by src/core alone.',
      severity: 'error',
      from: { pathNot: '^src/core/' },
      to: { path: '^src/core/wasm(-scalar)?[.]generated[.]ts$' },
    },
    {
      name: 'below-the-roots',
      comment: 'Nothing under the composition roots imports them (or the outer ring).',
      severity: 'error',
      from: { path: `${BELOW_SERVICES}|^src/services/` },
      to: { path: `${ROOTS}|${OUTER}` },
    },
    {
      name: 'outer-ring-imports-the-library-module',
      comment:
        'http/, node/, client/, starter/ and the CLI (cli.ts, cli/) use the library as a whole, through the library module (src/library.ts) — not the layers below it — and the public entries; the library module exports what they need, so whatever they use is a name of the package (an entry re-exports it) without being the main entry\'s.',
      severity: 'error',
      from: { path: OUTER },
      to: {
        path: '^src/',
        pathNot: [
          LIBRARY,
          PUBLIC_ENTRIES,
          '^src/$1/', // its own folder
          '^src/store/node[.]ts$', // trainprint/node publishes the file store (Node-only code of the store layer)
          '^src/store/node-kit[.]ts$', // the scan queue's tables are migrated and connected as the store's are
          '^src/core/base64[.]ts$', // the starter decodes its embedded snapshot like the core decodes its module
          '^src/util/steps[.]ts$', // the handler yields to other requests with the engine's macrotask boundary
          '^src/util/timers[.]ts$', // the client's abortable wait between retries (imports nothing: bundled as is)
          '^src/node/scan/alone[.]ts$', // the CLI's scan: the file scan on the scan engine (dist/scan-files.js)
          '^src/scan-library[.]ts$', // which alone imports (the rule below), in place of the library module
        ],
      },
    },
    {
      name: 'only-the-cli-scan-imports-the-scan-library',
      comment:
        "The scan library (src/scan-library.ts) is the library module of one bundle, dist/scan-files.js (tsup.config.ts): its entry, src/node/scan/alone.ts, imports it; every other module of the outer ring takes the library module.",
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/node/scan/alone[.]ts$'] },
      to: { path: '^src/scan-library[.]ts$' },
    },
    {
      name: 'http-imports-the-library-surface',
      comment:
        'The HTTP adapter is thin: it reaches the engine and the services (accounts included) only through the library module, never a service module, a store or an entry.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: {
        path: '^src/',
        pathNot: [LIBRARY, '^src/http/', '^src/util/steps[.]ts$'],
      },
    },
    {
      name: 'outer-ring-imports-the-library-not-its-entries',
      comment:
        "The main entry and the sub-entries only re-export the library module: the outer ring imports the module itself, the one import that tsup.config.ts makes './library.js' in its bundles (an import of an entry would bundle a second copy of the library).",
      severity: 'error',
      from: { path: OUTER },
      to: { path: '^src/index[.]ts$|^src/entries/' },
    },
    {
      name: 'entries-re-export-the-library',
      comment:
        'The main entry (src/index.ts) and the sub-entries (src/entries/) are lists of re-exports of the library module, so that their bundles are files of re-exports of dist/library.js and a class exists once (tsup.config.ts).',
      severity: 'error',
      from: { path: '^src/index[.]ts$|^src/entries/' },
      to: { path: '^src/', pathNot: LIBRARY },
    },
    {
      name: 'only-entries-and-the-outer-ring-import-the-library-module',
      comment: 'The library module is the top of the library: nothing in it imports it back (the layers import each other).',
      severity: 'error',
      from: { path: '^src/', pathNot: `${OUTER}|^src/index[.]ts$|^src/entries/` },
      to: { path: LIBRARY },
    },
    {
      name: 'app-imports-public-entries',
      comment:
        'The browser app (not part of the package) uses the library through its public entries only, and bundles the quotation rule’s table of marks (a module with no imports) rather than copy it; the job types’ descriptions are built into a file of their own with no import (build/web.mjs), so that showing job results over a served API loads no library.',
      severity: 'error',
      from: { path: '^app/' },
      to: { path: '^src/', pathNot: [PUBLIC_ENTRIES, '^src/text/quotation-marks[.]ts$', '^src/services/jobs/descriptions[.]ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|build/generated|node_modules)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
