import { readdirSync, readFileSync } from 'node:fs';
import type { PluginBuild } from 'esbuild';
import { relative as relativePath, resolve as resolvePath } from 'node:path';
import { defineConfig, type Options } from 'tsup';

/**
 * The library module, src/library.ts (imported as './library.js', '../library.js' or '../../library.js'): the whole
 * library in one module, built once as dist/library.js / dist/library.cjs, the one bundle that holds the engine.
 */
const LIBRARY = resolvePath(process.cwd(), 'src', 'library.js'); // tsup runs from the package root

/** What the scan's two Node-only files share: one ES module each, no d.ts, beside the other builds' files. */
const NODE_FILE_ALONE = {
  format: ['esm'],
  dts: false,
  clean: false,
  target: 'es2022',
  platform: 'node',
  removeNodeProtocol: false,
  splitting: false,
} satisfies Options;
/** How the library module is imported (a relative path ending in library.js): kept out of the d.ts bundles too. */
const LIBRARY_IMPORT = /^(\.\.?\/)+library\.js$/;

/**
 * An esbuild plugin for the bundles built on the library (the main entry and the sub-entries, http, starter): where
 * a module of a folder that `dirs` matches imports the library module, the import becomes './library.js' /
 * './library.cjs' and stays external, so the library — the Engine, KnowledgeBase and TrainprintError classes that
 * the entries check with instanceof, and the compiled core — exists once, in dist/library.js (or .cjs), whichever
 * entry a program imports.
 */
function libraryExternal(dirs: RegExp) {
  return {
    name: 'library-external',
    setup(build: { initialOptions: { format?: string }; onResolve: (o: { filter: RegExp }, f: (a: { path: string; resolveDir: string }) => { path: string; external: boolean } | undefined) => void }) {
      const file = build.initialOptions.format === 'cjs' ? './library.cjs' : './library.js';
      build.onResolve({ filter: LIBRARY_IMPORT }, (args) =>
        dirs.test(args.resolveDir) && resolvePath(args.resolveDir, args.path) === LIBRARY ? { path: file, external: true } : undefined,
      );
    },
  };
}

/**
 * The sub-entries `trainprint/<name>`: every module of src/entries/, each re-exporting one concern of the library.
 * package.json's "exports" names each (test/unit/entries.test.ts), and build/check-package.mjs checks that each is
 * built as a file of re-exports.
 */
const SUB_ENTRIES = readdirSync('src/entries')
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.slice(0, -'.ts'.length));

/**
 * An esbuild plugin: the on-demand import `specifier` made by a module of the folder `from` becomes './<file>.js' /
 * './<file>.cjs' and stays external, so what it imports is a file of its own (an entry below), loaded only when it
 * is first needed, and the bundle stays one self-contained file (code splitting would move what the two share into a
 * chunk the main file imports).
 */
function onDemand(file: string, specifier: string, from: RegExp) {
  const filter = new RegExp(`^${specifier.replace(/[.]/g, '[.]')}$`);
  return {
    name: `on-demand-${file}`,
    setup(build: PluginBuild) {
      const path = `./${file}.${build.initialOptions.format === 'cjs' ? 'cjs' : 'js'}`;
      build.onResolve({ filter }, (args) => (from.test(args.resolveDir) ? { path, external: true } : undefined));
    },
  };
}

/** The remote corpora's client (src/remote-corpus.ts imports it when a remote dataset is added): dist/remote.js. */
const remoteExternal = onDemand('remote', './remote/index.js', /[\\/]src$/);
/**
 * The WordNet synonym table by stem (src/align/synonyms.ts imports it; build/synonym-stems.mjs writes it from the
 * WordNet table): the 580 KB table is a file of its own that `createEngine` loads before it returns and that a page
 * bundling `trainprint/fingerprint` gets as a file of its own.
 */
const synonymsExternal = onDemand('synonyms', './synonym-stems.generated.js', /[\\/]src[\\/]align$/);
/**
 * The readers of EPUB, PDF and DOCX (src/services/analyze/files.ts imports them when a file first arrives): the
 * engine's bundle carries none of them.
 */
const formatsExternal = onDemand('formats', '../../formats/index.js', /[\\/]src[\\/]services[\\/]analyze$/);
/**
 * The scalar build of the core (src/core/load.ts imports it where SIMD is missing or turned off): a bundle holding the
 * core embeds the SIMD build alone.
 */
const coreScalarExternal = onDemand('core-scalar', './wasm-scalar.generated.js', /[\\/]src[\\/]core$/);
/**
 * The library's own on-demand files, built on it (below): the memorization operations (src/services/memorization/
 * memorization.ts imports them on a first call), the marketplace's (src/services/market/marketplace.ts), the
 * evidence bundle's verifier and the work report's page (src/services/report/on-demand.ts), the webhook delivery loop
 * (src/services/monitors/webhook.ts, on a deliverer's first run or read) and the scan service (src/services/scan/
 * on-demand.ts, on a first scan).
 */
const libraryOnDemand = [
  onDemand('memorization-work', './operations.js', /[\\/]src[\\/]services[\\/]memorization$/),
  onDemand('market-work', './operations.js', /[\\/]src[\\/]services[\\/]market$/),
  onDemand('report-work', './operations.js', /[\\/]src[\\/]services[\\/]report$/),
  onDemand('webhook-work', './operations.js', /[\\/]src[\\/]services[\\/]monitors$/),
  onDemand('scan-work', './operations.js', /[\\/]src[\\/]services[\\/]scan$/),
];

/**
 * What the library shares with the on-demand files built on it: src/on-demand-shared.ts's table, read as text — each
 * entry `'<path under src/>': { name, … },` — as the shared module's file and the names it gives.
 */
const SHARED_MODULES = new Map(
  // an entry on one line, or on several where its names run past the line width
  [...readFileSync('src/on-demand-shared.ts', 'utf8').matchAll(/^ {2}(?:'([\w/.-]+)'|(\w+)): \{([\w,\s]+)\},$/gm)].map(
    (m) => {
      const key = m[1] ?? m[2];
      const names = m[3].split(/[,\s]+/).filter((n) => n !== '');
      return [resolvePath(process.cwd(), 'src', `${key}.ts`), { key, names }] as const;
    },
  ),
);

/**
 * An esbuild plugin for an on-demand file built on the library (`own`: the folder of its modules): a module outside
 * that folder is not bundled again but taken from the library ('./library.js' / './library.cjs', its
 * ON_DEMAND_SHARED), so every class, registry and cache exists once; one that the table lacks fails the build. The
 * folder's own modules are bundled, the few the library holds too as well (constants and pure functions: the
 * near-verbatim blocks, the store keys, the digests, the bundle's signature check), which costs less than sharing
 * every name of them.
 */
function builtOnLibrary(own: RegExp) {
  return {
    name: 'built-on-library',
    setup(build: PluginBuild) {
      const library = build.initialOptions.format === 'cjs' ? './library.cjs' : './library.js';
      build.onResolve({ filter: /^trainprint-library$/ }, () => ({ path: library, external: true }));
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (!args.importer) return undefined; // the entry itself
        const file = resolvePath(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
        // the folder's request contracts (schema.ts) are the library's too: taken from it, so that the schema object
        // the HTTP adapter checked a body against is the one the operation reads the body through (schemaChecked)
        if (own.test(file) && !(SHARED_MODULES.has(file) && /[\\/]schema\.ts$/.test(file))) return undefined;
        // the path relative to the repository: the bundle's comments name it, so no build machine's folder is shipped
        if (SHARED_MODULES.has(file)) return { path: relativePath(process.cwd(), file), namespace: 'library-shared' };
        throw new Error(`${args.importer} imports ${args.path}: add the names it takes to src/on-demand-shared.ts`);
      });
      build.onLoad({ filter: /.*/, namespace: 'library-shared' }, async (args) => {
        const { key, names } = SHARED_MODULES.get(resolvePath(process.cwd(), args.path))!;
        // a name the table does not give is a missing export, which esbuild reports; one destructuring, not a
        // declaration a name (the bundle keeps every name the table gives, used here or not)
        const contents = `import { ON_DEMAND_SHARED } from 'trainprint-library';\nexport const { ${names.join(', ')} } = ON_DEMAND_SHARED[${JSON.stringify(key)}];\n`;
        return { contents, loader: 'js', resolveDir: process.cwd() };
      });
    },
  };
}

/**
 * An esbuild plugin for every neutral bundle: the library of document extraction (src/formats: pdf.js for PDF, a
 * package dependency; EPUB and DOCX zips inflate with the readers' own decoder) stays external, so it is imported by
 * its dynamic import() when a PDF arrives and no bundle carries it (the neutral bundles' `noExternal` would inline it).
 */
const formatLibrariesExternal = {
  name: 'format-libraries-external',
  setup(build: { onResolve: (o: { filter: RegExp }, f: (a: { path: string }) => { path: string; external: boolean }) => void }) {
    build.onResolve({ filter: /^pdfjs-dist(\/|$)/ }, (args) => ({ path: args.path, external: true }));
  },
};

/**
 * A neutral entry (ESM + CJS + types) for Node, Deno and browsers: the WASM bytes are inline
 * (src/core/wasm.generated.ts), so nothing is fetched or read from disk at run time, and everything
 * the entry imports is bundled so the browser file is self-contained.
 */
const neutral = (entry: Record<string, string>, extra: Partial<Options> = {}): Options => ({
  entry,
  format: ['esm', 'cjs'],
  dts: true,
  clean: false,
  sourcemap: false,
  target: 'es2022',
  platform: 'neutral',
  removeNodeProtocol: false, // Deno needs the `node:` prefix where Node-only entries use it
  noExternal: [/.*/],
  // the CommonJS build loads its on-demand files (remote.cjs, synonyms.cjs) with require(): Node's import() of a
  // CommonJS file gives only `default` for esbuild's neutral output, so the named exports would be missing
  esbuildOptions(o, { format }) {
    if (format === 'cjs') o.supported = { ...o.supported, 'dynamic-import': false };
  },
  ...extra,
  esbuildPlugins: [synonymsExternal, coreScalarExternal, formatLibrariesExternal, formatsExternal, ...(extra.esbuildPlugins ?? [])],
});

const core: Options[] = [
  // the library: every name of src/library.ts, in one self-contained bundle (and one d.ts) that the entries import.
  // shims: the CommonJS build gets an import.meta.url (from __filename) for the packs folder's default URL
  neutral({ library: 'src/library.ts' }, { clean: true, shims: true, esbuildPlugins: [remoteExternal, ...libraryOnDemand] }),
  // 'trainprint' and 'trainprint/<name>': files of re-exports of './library.js' (their d.ts too: the types are
  // library.d.ts's, so `Engine` is one type whichever entry names it). build/entry-types.mjs points the d.cts files
  // at './library.cjs'.
  neutral(
    { index: 'src/index.ts', ...Object.fromEntries(SUB_ENTRIES.map((name) => [name, `src/entries/${name}.ts`])) },
    { splitting: false, external: [LIBRARY_IMPORT], esbuildPlugins: [libraryExternal(/[\\/]src([\\/]entries)?$/)] },
  ),
  // the remote corpora's client, loaded by the engine on demand (above): self-contained, with its own copy of the
  // normaliser and the alignment it uses (TrainprintError is recognised across bundles by its registered symbol)
  neutral({ remote: 'src/remote/index.ts' }, { dts: false }),
  // document extraction (EPUB, PDF, DOCX), loaded on demand by the services (formatsExternal above)
  neutral({ formats: 'src/formats/index.ts' }, { dts: false }),
  // the WordNet synonym table that the aligner imports on demand (synonymsExternal above)
  neutral({ synonyms: 'src/align/synonym-stems.generated.ts' }, { dts: false }),
  // the scalar build of the core, imported on demand where SIMD is missing or off (coreScalarExternal above)
  neutral({ 'core-scalar': 'src/core/wasm-scalar.generated.ts' }, { dts: false }),
  // the memorization operations, the marketplace's, the bundle verifier, the webhook delivery loop and the scan
  // service, built on the library (builtOnLibrary above)
  neutral(
    { 'memorization-work': 'src/services/memorization/operations.ts' },
    { dts: false, esbuildPlugins: [builtOnLibrary(/[\\/]src[\\/]services[\\/]memorization[\\/]/)] },
  ),
  neutral(
    { 'market-work': 'src/services/market/operations.ts' },
    { dts: false, esbuildPlugins: [builtOnLibrary(/[\\/]src[\\/]services[\\/]market[\\/]/)] },
  ),
  neutral(
    { 'report-work': 'src/services/report/operations.ts' },
    { dts: false, esbuildPlugins: [builtOnLibrary(/[\\/]src[\\/]services[\\/]report[\\/]/)] },
  ),
  neutral(
    { 'webhook-work': 'src/services/monitors/operations.ts' },
    { dts: false, esbuildPlugins: [builtOnLibrary(/[\\/]src[\\/]services[\\/]monitors[\\/]/)] },
  ),
  neutral(
    { 'scan-work': 'src/services/scan/operations.ts' },
    { dts: false, esbuildPlugins: [builtOnLibrary(/[\\/]src[\\/]services[\\/]scan[\\/]/)] },
  ),
  // 'trainprint/fingerprint': the fingerprint engine alone (no datasets, knowledge base, store or
  // services). TrainprintError is recognised across the two bundles by a registered symbol
  // (src/errors.ts), so instanceof still works.
  neutral({ fingerprint: 'src/fingerprint-entry.ts' }),
  {
    // 'trainprint/node' (Node only: node:fs, node:zlib, fzstd, hyparquet stay external). Its imports
    // of the library module ('../library.js') are rewritten to './library.js' and left external, so the
    // library (its TrainprintError class, its compiled core) exists once, not twice; its imports of the
    // HTTP entry become './http.js' likewise, and the file store's import of the error table goes to the
    // library for the same reason. The PostgreSQL
    // driver (`pg`, a dependency) stays external and is imported only when a PostgreSQL store opens.
    // build-worker: the worker thread of parallel index builds, loaded by node.js from beside itself.
    // extract-worker: the thread of the document pool (src/node/extract-pool.ts), loaded by node.js from beside itself.
    entry: {
      node: 'src/node/index.ts',
      'build-worker': 'src/node/build-worker.ts',
      'extract-worker': 'src/node/extract-worker.ts',
    },
    format: ['esm'],
    dts: true,
    clean: false,
    target: 'es2022',
    platform: 'node',
    removeNodeProtocol: false,
    // external: for the d.ts (library.d.ts's types); noExternal: so that the plugin below, not tsup, rewrites it.
    // @msgpack/msgpack is bundled, from its ES modules: its package names only its CommonJS build ("main"), which
    // Node imports as 15 files, each read by the CommonJS export lexer: importing it cost a bare Node process
    // ≈ 30 ms of CPU, which every process that loads trainprint/node paid (`trainprint scan` among them)
    external: [LIBRARY_IMPORT],
    noExternal: [LIBRARY_IMPORT, '@msgpack/msgpack'],
    esbuildOptions(o) {
      o.mainFields = ['module', 'main'];
    },
    esbuildPlugins: [{
      name: 'library-external',
      setup(build) {
        // from src/node and its folders (src/node/queue: '../../library.js'), by the file the import names
        build.onResolve({ filter: LIBRARY_IMPORT }, (args) =>
          /[\\/]src[\\/]node([\\/].*)?$/.test(args.resolveDir) && resolvePath(args.resolveDir, args.path) === LIBRARY
            ? { path: './library.js', external: true }
            : undefined);
        // the worker pool parses JSON bodies with the HTTP entry's function: imported from it, not copied
        build.onResolve({ filter: /^\.\.\/http\/index\.js$/ }, (args) =>
          /[\\/]src[\\/]node$/.test(args.resolveDir) ? { path: './http.js', external: true } : undefined);
        build.onResolve({ filter: /^\.\.\/errors\.js$/ }, (args) =>
          /[\\/]src[\\/]store$/.test(args.resolveDir) ? { path: './library.js', external: true } : undefined);
        const postgres = /[\\/]src[\\/]store[\\/]postgres$/;
        build.onResolve({ filter: /^\.\.\/\.\.\/errors\.js$/ }, (args) =>
          postgres.test(args.resolveDir) ? { path: './library.js', external: true } : undefined);
      },
    }],
  },
  {
    // the file scan of `trainprint scan` (src/node/scan/alone.ts, which the CLI's scan imports as './scan-files.js'):
    // one self-contained file in which every import of the library module is src/scan-library.ts, the scan engine and
    // the few names the file scan takes, so a scan compiles ≈ 0.9 MB instead of the library's 1.36 MB (and runs none
    // of the services' top levels). Node-only like trainprint/node: node:*, fzstd, hyparquet and pg stay external; the
    // on-demand files (synonyms, the scalar core, remote corpora, document formats) are loaded from beside it
    entry: { 'scan-files': 'src/node/scan/alone.ts' },
    ...NODE_FILE_ALONE,
    // entities (the HTML reader's tables) bundled as the library bundles it: from node_modules it was three more
    // files for Node to resolve, read and compile at the start of every scan
    noExternal: [LIBRARY_IMPORT, '@msgpack/msgpack', 'entities'],
    esbuildOptions(o) {
      o.mainFields = ['module', 'main'];
    },
    esbuildPlugins: [
      {
        name: 'scan-library',
        setup(build) {
          const scanLibrary = resolvePath(process.cwd(), 'src', 'scan-library.ts');
          build.onResolve({ filter: LIBRARY_IMPORT }, (args) =>
            resolvePath(args.resolveDir, args.path) === LIBRARY ? { path: scanLibrary } : undefined);
        },
      },
      remoteExternal,
      synonymsExternal,
      coreScalarExternal,
      formatsExternal,
      formatLibrariesExternal,
    ],
  },
  {
    // the worker thread of a file scan with threads (`scanFiles` of trainprint/node and `trainprint scan --threads`:
    // src/node/scan/pool.ts loads it by URL from beside itself): src/node/scan/worker.ts, whose one import of the file
    // scan's module (./alone.js) becomes './scan-files.js' and stays external, so each thread compiles the scan engine
    // (above) and not the library with trainprint/node
    entry: { 'scan-worker': 'src/node/scan/worker.ts' },
    ...NODE_FILE_ALONE,
    esbuildPlugins: [
      {
        name: 'scan-files-external',
        setup(build) {
          const alone = resolvePath(process.cwd(), 'src', 'node', 'scan', 'alone.js');
          build.onResolve({ filter: /^\.\/alone\.js$/ }, (args) =>
            resolvePath(args.resolveDir, args.path) === alone ? { path: './scan-files.js', external: true } : undefined);
        },
      },
    ],
  },
  {
    // the thread of trainprint/node's worker pool (src/node/offload.ts loads it by URL beside node.js): one
    // self-contained file with its own copy of the core and the pure work functions; no types, no entry. Document
    // extraction is not its work (the document pool's threads read files): its on-demand import of the readers stays
    // './formats.js', and their library (pdf.js) stays in node_modules, as in every other bundle
    entry: { 'offload-worker': 'src/node/offload-worker.ts' },
    // one file, never split into chunks. The library's own on-demand files (the memorization, marketplace and
    // verification operations) stay external as in the library: the thread's pure work never calls them
    splitting: false,
    esbuildPlugins: [
      remoteExternal,
      synonymsExternal,
      coreScalarExternal,
      formatsExternal,
      formatLibrariesExternal,
      ...libraryOnDemand,
    ],
    format: ['esm'],
    dts: false,
    clean: false,
    target: 'es2022',
    platform: 'node',
    removeNodeProtocol: false,
    noExternal: [/.*/],
  },
  // 'trainprint/http': the Fetch-API handler (every runtime). Its imports of the library ('../library.js',
  // '../../library.js') stay external ('./library.js' / './library.cjs'), so TrainprintError — which the error
  // mapping checks with instanceof — exists once, and the Engine its d.ts names is library.d.ts's.
  neutral(
    { http: 'src/http/index.ts' },
    { external: [LIBRARY_IMPORT], esbuildPlugins: [libraryExternal(/[\\/]src[\\/]http([\\/].*)?$/)] },
  ),
  // 'trainprint/client': the HTTP client (fetch only, every runtime), without the engine: imports
  // only types from the library (library.d.ts's), so nothing of the 700 KB library comes with it.
  neutral({ client: 'src/client/index.ts' }, { external: [LIBRARY_IMPORT] }),
  {
    // The CLI is a thin layer over the built entries: the imports of the library, the node helpers,
    // the starter dataset, the HTTP entry and the fingerprint entry, by its entry (src/cli.ts: './library.js' …)
    // and by its commands (src/cli/*.ts: '../library.js' …), become './library.js', './node.js', './starter.js',
    // './http.js' and './fingerprint.js' (external), so every class exists once and the starter's 5 MB load only
    // when a command asks for it. Each command is imported when it runs (src/cli.ts), so its module is a chunk of
    // its own and a process loads only its command's entries: `fingerprint` of a text file the fingerprint entry.
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    dts: false,
    clean: false,
    target: 'es2022',
    platform: 'node',
    removeNodeProtocol: false,
    banner: { js: '#!/usr/bin/env node' },
    esbuildPlugins: [{
      name: 'entries-external',
      setup(build) {
        // by the file each import names (tsup runs from the package root), whichever of the two folders it is in
        const src = resolvePath(process.cwd(), 'src');
        const to: Record<string, string> = {
          [LIBRARY]: './library.js',
          [resolvePath(src, 'node', 'index.js')]: './node.js',
          [resolvePath(src, 'starter', 'index.js')]: './starter.js',
          [resolvePath(src, 'http', 'index.js')]: './http.js',
          [resolvePath(src, 'fingerprint-entry.js')]: './fingerprint.js',
          [resolvePath(src, 'node', 'scan', 'alone.js')]: './scan-files.js',
        };
        const cli = /[\\/]src([\\/]cli)?$/;
        build.onResolve({ filter: /^\.\.?\/(library|fingerprint-entry|(node|starter|http)\/index|node\/scan\/alone)\.js$/ }, (args) => {
          const file = cli.test(args.resolveDir) ? to[resolvePath(args.resolveDir, args.path)] : undefined;
          return file ? { path: file, external: true } : undefined;
        });
      },
    }],
  },
];

// 'trainprint/starter': the embedded SPDX licence dataset (build/generated/starter-dataset.ts, ≈ 5 MB
// of base64). Its snapshot is made by build/starter.mjs with the built dist/index.js, so this entry
// is a second pass: `tsup --env.TRAINPRINT_BUILD starter` (see package.json "build"). Neutral like
// the main entry; its imports of '../library.js' become './library.js' / './library.cjs' and stay
// external, so the engine and TrainprintError classes exist once and the bytes stay out of the library.
const starter: Options = neutral(
  { starter: 'src/starter/index.ts' },
  { external: [LIBRARY_IMPORT], esbuildPlugins: [libraryExternal(/[\\/]src[\\/]starter$/)] },
);

/**
 * Where `tsc -p tsconfig.types.json` (package.json "build", between the two tsup passes) writes the declarations of
 * every module the entries reach, src/ as build/out/types/src/: one TypeScript program for all of them. Each config
 * with types once made a program of its own from the sources in its own thread (seven programs, each type-checking
 * the whole library, side by side on the CI's two cores); the d.ts bundles are now made from these files, which
 * rollup-plugin-dts reads without a program, and they come out byte for byte as before.
 */
const DECLARATIONS = 'build/out/types';

/** The declaration file tsc writes for each entry of `config` ({ library: 'build/out/types/src/library.d.ts' }). */
function declarationEntries(config: Options): Record<string, string> {
  const entry = config.entry as Record<string, string>;
  return Object.fromEntries(
    Object.entries(entry).map(([name, file]) => [name, `${DECLARATIONS}/${file.replace(/\.ts$/, '.d.ts')}`]),
  );
}

/**
 * The configs of the files (JavaScript only), and the d.ts pass of each config that has types: the same entries,
 * format and externals (the library module stays external where the files import it), the declarations above as
 * input, nothing else built or cleaned.
 */
const withTypes = [...core, starter].filter((config) => config.dts === true);
const filesOnly = (config: Options): Options => ({ ...config, dts: false });
const typesOnly = (config: Options): Options => ({
  ...config,
  clean: false,
  dts: { only: true, entry: declarationEntries(config) },
});

// First pass: every file but the starter's. Second (after build/starter.mjs has made its snapshot and tsc the
// declarations): the starter's file and every d.ts.
export default defineConfig((options) =>
  options.env?.TRAINPRINT_BUILD === 'starter' ? [filesOnly(starter), ...withTypes.map(typesOnly)] : core.map(filesOnly),
);
