import { defineConfig } from 'tsup';

// One neutral build serves Node (ESM + CJS), Deno and browsers: the WASM bytes are inline
// (src/engine/wasm.generated.ts), so nothing is fetched or read from disk at run time.
export default defineConfig([
  {
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: false,
    target: 'es2022',
    platform: 'neutral',
    removeNodeProtocol: false, // Deno needs the `node:` prefix where Node-only entries use it
    noExternal: [/.*/], // bundle everything the library imports so the browser file is self-contained
  },
  {
    // 'trainprint/node' (Node only: node:fs, node:zlib, fzstd, hyparquet stay external). Its imports
    // of the main entry ('../index.js') are rewritten to './index.js' and left external, so the
    // library (its TrainprintError class, its compiled core) exists once, not twice.
    entry: { node: 'src/node/index.ts' },
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
      },
    }],
  },
  {
    // The CLI bundles the library and the node helpers (one copy of each, inside cli.js).
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    dts: false,
    clean: false,
    target: 'es2022',
    platform: 'node',
    removeNodeProtocol: false,
    banner: { js: '#!/usr/bin/env node' },
  },
]);
