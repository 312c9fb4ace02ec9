// Point the entries' d.ts files at the library's: the entries built on the library (the main entry, the sub-entries,
// http, node, starter, and the client's types) take its types from dist/library.d.ts (.d.cts), so that a type is one
// type whichever entry names it — `createHandler` of 'trainprint/http' accepts the `Engine` of 'trainprint' (two
// declarations of a class with private members would be two types). tsup.config.ts keeps the library module out of
// their d.ts bundles, but rollup writes that import as the entry's source folder sees it ('../library.js' from
// src/http/index.ts) and with '.js' in the CommonJS types too; this rewrites it to the file beside each, './library.js'
// in a .d.ts and './library.cjs' in a .d.cts (library.d.cts, the CommonJS types).
// Run after tsup (package.json "build"); a second run changes nothing. build/check-package.mjs checks the result.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

const dist = new URL('../dist/', import.meta.url);
const LIBRARY_IMPORT = /(from\s*|import\s*\(\s*)(['"])(?:\.\.?\/)+library\.c?js\2/g;
let changed = 0;
for (const file of readdirSync(dist).filter((f) => /\.d\.c?ts$/.test(f) && !f.startsWith('library.'))) {
  const text = readFileSync(new URL(file, dist), 'utf8');
  const to = file.endsWith('.d.cts') ? './library.cjs' : './library.js';
  const fixed = text.replace(LIBRARY_IMPORT, (_, head, quote) => `${head}${quote}${to}${quote}`);
  if (fixed !== text) {
    writeFileSync(new URL(file, dist), fixed);
    changed++;
  }
}
console.log(`entry types: ${changed} d.ts files now import the library's types from ./library.js / ./library.cjs`);
