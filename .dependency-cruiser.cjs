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
 *   services/<name>/                         analyze, score, registry, monitors, market, memorization, kb
 *   fingerprint-engine.ts, engine.ts         composition roots (engine-options.ts, create-engine.ts: the
 *                                            Engine's options and factory; remote-corpus.ts: opening a remote
 *                                            corpus); index.ts and fingerprint-entry.ts
 *                                            export them
 *   http/, node/, client/, starter/          the outer ring: public entries only
 *   cli.ts, cli/                             the CLI, in the outer ring too: cli.ts dispatches, cli/ holds the commands
 */
const BOTTOM = '^src/(errors|types)[.]ts$|^src/(util|stats)/';
const KERNELS = '^src/(core|text|sketch|fingerprint|datasets|align)/';
const INFRA = '^src/(store|models|net)/';
const REMOTE = '^src/remote/';
const BELOW_SERVICES = `${BOTTOM}|${KERNELS}|${INFRA}|^src/corpus/|^src/packs/|${REMOTE}`;
const ROOTS = '^src/(engine|engine-options|create-engine|remote-corpus|fingerprint-engine|index|fingerprint-entry)[.]ts$';
// dependency-cruiser's $1 (below) is the first group that matched: the folder, 'cli' for src/cli.ts too, so the
// CLI's entry may import its commands in src/cli/ as the folders' modules import each other
const OUTER = '^src/(http|node|client|starter|cli)/|^src/(cli)[.]ts$';
const PUBLIC_ENTRIES = '^src/(index|fingerprint-entry)[.]ts$|^src/(http|node|client|starter)/index[.]ts$';

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
      to: { path: '^src/core/wasm[.]generated[.]ts$' },
    },
    {
      name: 'below-the-roots',
      comment: 'Nothing under the composition roots imports them (or the outer ring).',
      severity: 'error',
      from: { path: `${BELOW_SERVICES}|^src/services/` },
      to: { path: `${ROOTS}|${OUTER}` },
    },
    {
      name: 'outer-ring-imports-public-entries',
      comment: 'http/, node/, client/, starter/ and the CLI (cli.ts, cli/) use the library as its users do: through its public entries.',
      severity: 'error',
      from: { path: OUTER },
      to: {
        path: '^src/',
        pathNot: [
          PUBLIC_ENTRIES,
          '^src/$1/', // its own folder
          '^src/store/node[.]ts$', // trainprint/node publishes the file store (Node-only code of the store layer)
          '^src/core/base64[.]ts$', // the starter decodes its embedded snapshot like the core decodes its module
          '^src/util/steps[.]ts$', // the handler yields to other requests with the engine's macrotask boundary
        ],
      },
    },
    {
      name: 'http-imports-the-library-surface',
      comment:
        'The HTTP adapter is thin: it reaches the engine and the services (accounts included) only through the main entry, never a service module, a store or another entry.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: {
        path: '^src/',
        pathNot: ['^src/index[.]ts$', '^src/http/', '^src/util/steps[.]ts$'],
      },
    },
    {
      name: 'app-imports-public-entries',
      comment: 'The browser app (not part of the package) uses the library through its public entries only.',
      severity: 'error',
      from: { path: '^app/' },
      to: { path: '^src/', pathNot: PUBLIC_ENTRIES },
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
