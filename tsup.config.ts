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
