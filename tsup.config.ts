import { resolve as resolvePath } from 'node:path';
import { defineConfig, type Options } from 'tsup';

/**
 * An esbuild plugin for a secondary entry in `src/<dir>`: its imports of the library (`src/index.ts`, as
 * '../index.js' or from a subfolder '../../index.js') become './index.js' / './index.cjs' and stay external, so the
 * engine and TrainprintError classes (which the entries check with instanceof) exist once, in the main bundle.
 */
function mainEntryExternal(dir: string) {
  const inDir = new RegExp(`[\\\\/]src[\\\\/]${dir}([\\\\/].*)?$`);
  const library = resolvePath(process.cwd(), 'src', 'index.js'); // tsup runs from the package root
  return {
    name: 'main-entry-external',
    setup(build: { initialOptions: { format?: string }; onResolve: (o: { filter: RegExp }, f: (a: { path: string; resolveDir: string }) => { path: string; external: boolean } | undefined) => void }) {
      const main = build.initialOptions.format === 'cjs' ? './index.cjs' : './index.js';
      build.onResolve({ filter: /^(\.\.\/)+index\.js$/ }, (args) =>
        inDir.test(args.resolveDir) && resolvePath(args.resolveDir, args.path) === library ? { path: main, external: true } : undefined,
      );
    },
  };
}

/**
 * An esbuild plugin for the bundles that hold the engine: its on-demand import of the remote corpora's client
 * ('./remote/index.js', src/remote-corpus.ts) becomes './remote.js' / './remote.cjs' and stays external, so that code is
 * a file of its own, loaded only when a remote dataset is added, and the main bundle stays one self-contained file
 * (code splitting would move what the two share into a chunk the main file imports).
 */
const remoteExternal = {
  name: 'remote-external',
  setup(build: { initialOptions: { format?: string }; onResolve: (o: { filter: RegExp }, f: (a: { resolveDir: string }) => { path: string; external: boolean } | undefined) => void }) {
    const file = build.initialOptions.format === 'cjs' ? './remote.cjs' : './remote.js';
    build.onResolve({ filter: /^\.\/remote\/index\.js$/ }, (args) => (/[\\/]src$/.test(args.resolveDir) ? { path: file, external: true } : undefined));
  },
};

/**
 * An esbuild plugin for every bundle that holds the aligner: its on-demand import of the WordNet synonym table
 * ('./synonyms.generated.js', src/align/synonyms.ts) becomes './synonyms.js' / './synonyms.cjs' and stays external,
 * so the 580 KB table is a file of its own (the `synonyms` entry below) that `createEngine` loads before it returns
 * and that a page bundling `trainprint/fingerprint` gets as a chunk of its own.
 */
const synonymsExternal = {
  name: 'synonyms-external',
  setup(build: { initialOptions: { format?: string }; onResolve: (o: { filter: RegExp }, f: (a: { resolveDir: string }) => { path: string; external: boolean } | undefined) => void }) {
    const file = build.initialOptions.format === 'cjs' ? './synonyms.cjs' : './synonyms.js';
    build.onResolve({ filter: /^\.\/synonyms\.generated\.js$/ }, (args) => (/[\\/]src[\\/]align$/.test(args.resolveDir) ? { path: file, external: true } : undefined));
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
  esbuildPlugins: [synonymsExternal, ...(extra.esbuildPlugins ?? [])],
});

const core: Options[] = [
  // shims: the CommonJS build gets an import.meta.url (from __filename) for the packs folder's default URL
  neutral({ index: 'src/index.ts' }, { clean: true, shims: true, esbuildPlugins: [remoteExternal] }),
  // the remote corpora's client, loaded by the engine on demand (above): self-contained, with its own copy of the
  // normaliser and the alignment it uses (TrainprintError is recognised across bundles by its registered symbol)
  neutral({ remote: 'src/remote/index.ts' }, { dts: false }),
  // the WordNet synonym table that the aligner imports on demand (synonymsExternal above)
  neutral({ synonyms: 'src/align/synonyms.generated.ts' }, { dts: false }),
  // 'trainprint/fingerprint': the fingerprint engine alone (no datasets, knowledge base, store or
  // services). TrainprintError is recognised across the two bundles by a registered symbol
  // (src/errors.ts), so instanceof still works.
  neutral({ fingerprint: 'src/fingerprint-entry.ts' }),
  {
    // 'trainprint/node' (Node only: node:fs, node:zlib, fzstd, hyparquet stay external). Its imports
    // of the main entry ('../index.js') are rewritten to './index.js' and left external, so the
    // library (its TrainprintError class, its compiled core) exists once, not twice; its imports of the
    // HTTP entry become './http.js' likewise, and the file store's import of the error table goes to the
    // main entry for the same reason. The PostgreSQL
    // driver (`pg`, a dependency) stays external and is imported only when a PostgreSQL store opens.
    // build-worker: the worker thread of parallel index builds, loaded by node.js from beside itself.
    entry: { node: 'src/node/index.ts', 'build-worker': 'src/node/build-worker.ts' },
    format: ['esm'],
    dts: true,
    clean: false,
    target: 'es2022',
    platform: 'node',
    removeNodeProtocol: false,
    esbuildPlugins: [{
      name: 'main-entry-external',
      setup(build) {
        build.onResolve({ filter: /^\.\.\/index\.js$/ }, (args) =>
          /[\\/]src[\\/]node$/.test(args.resolveDir) ? { path: './index.js', external: true } : undefined);
        // the worker pool parses JSON bodies with the HTTP entry's function: imported from it, not copied
        build.onResolve({ filter: /^\.\.\/http\/index\.js$/ }, (args) =>
          /[\\/]src[\\/]node$/.test(args.resolveDir) ? { path: './http.js', external: true } : undefined);
        build.onResolve({ filter: /^\.\.\/errors\.js$/ }, (args) =>
          /[\\/]src[\\/]store$/.test(args.resolveDir) ? { path: './index.js', external: true } : undefined);
        const postgres = /[\\/]src[\\/]store[\\/]postgres$/;
        build.onResolve({ filter: /^\.\.\/\.\.\/errors\.js$/ }, (args) =>
          postgres.test(args.resolveDir) ? { path: './index.js', external: true } : undefined);
      },
    }],
  },
  {
    // the thread of trainprint/node's worker pool (src/node/offload.ts loads it by URL beside node.js): one
    // self-contained file with its own copy of the core and the pure work functions; no types, no entry
    entry: { 'offload-worker': 'src/node/offload-worker.ts' },
    esbuildPlugins: [remoteExternal, synonymsExternal],
    format: ['esm'],
    dts: false,
    clean: false,
    target: 'es2022',
    platform: 'node',
    removeNodeProtocol: false,
    noExternal: [/.*/],
  },
  // 'trainprint/http': the Fetch-API handler (every runtime). Its imports of the library ('../index.js')
  // stay external ('./index.js' / './index.cjs'), so TrainprintError — which the error mapping checks
  // with instanceof — exists once.
  neutral({ http: 'src/http/index.ts' }, { esbuildPlugins: [mainEntryExternal('http')] }),
  // 'trainprint/client': the HTTP client (fetch only, every runtime), without the engine: imports
  // only types from the library, so nothing of the 700 KB main entry comes with it.
  neutral({ client: 'src/client/index.ts' }),
  {
    // The CLI is a thin layer over the built entries: the imports of the library, the node helpers,
    // the starter dataset and the HTTP entry, by its entry (src/cli.ts: './index.js' …) and by its
    // commands (src/cli/*.ts: '../index.js' …), become './index.js', './node.js', './starter.js' and
    // './http.js' (external), so every class exists once and the starter's 5 MB load only when a
    // command asks for it.
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
          [resolvePath(src, 'index.js')]: './index.js',
          [resolvePath(src, 'node', 'index.js')]: './node.js',
          [resolvePath(src, 'starter', 'index.js')]: './starter.js',
          [resolvePath(src, 'http', 'index.js')]: './http.js',
        };
        const cli = /[\\/]src([\\/]cli)?$/;
        build.onResolve({ filter: /^\.\.?\/((node|starter|http)\/)?index\.js$/ }, (args) => {
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
// the main entry; its imports of '../index.js' become './index.js' / './index.cjs' and stay
// external, so the engine and TrainprintError classes exist once and the bytes stay out of index.js.
const starter: Options = neutral({ starter: 'src/starter/index.ts' }, { esbuildPlugins: [mainEntryExternal('starter')] });

export default defineConfig((options) => (options.env?.TRAINPRINT_BUILD === 'starter' ? [starter] : core));
