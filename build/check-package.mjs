// Check the built package: every path in package.json's exports/bin exists (with its types),
// and each embedded WebAssembly binary is under the size budget.
import { existsSync, readFileSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const missing = [];
const walk = (node) => {
  if (typeof node === 'string') { if (!existsSync(new URL(node, root))) missing.push(node); }
  else if (node && typeof node === 'object') for (const v of Object.values(node)) walk(v);
};
walk(pkg.exports);
walk(pkg.bin);
if (missing.length) {
  console.error(`package check: missing ${missing.join(', ')}`);
  process.exit(1);
}
for (const f of ['core.wasm', 'core.simd.wasm']) {
  const size = statSync(new URL(`build/out/${f}`, root)).size;
  if (size >= 64 * 1024) { console.error(`${f} is ${size} bytes (budget 64 KiB)`); process.exit(1); }
}
const size = (f) => statSync(new URL(`dist/${f}`, root)).size;
const read = (f) => readFileSync(new URL(`dist/${f}`, root), 'utf8');
// The neutral entry must not import node:* (it runs in browsers); only trainprint/node and the CLI may.
for (const f of ['index.js', 'index.cjs']) {
  if (/(?:from\s*|require\(|import\()\s*["']node:/.test(read(f))) { console.error(`package check: dist/${f} imports node:*`); process.exit(1); }
}
// trainprint/node reuses the main entry instead of bundling a second copy of the library and its core.
if (!/from\s*"\.\/index\.js"/.test(read('node.js')) || size('node.js') > 64 * 1024) {
  console.error(`package check: dist/node.js must import ./index.js and stay small (${size('node.js')} B)`);
  process.exit(1);
}
console.log(`package check: ok (index.js ${size('index.js')} B, index.cjs ${size('index.cjs')} B, node.js ${size('node.js')} B)`);
