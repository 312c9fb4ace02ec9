// Check the built package: every path in package.json's exports/bin exists (with its types),
// each embedded WebAssembly binary is under the size budget, and the starter snapshot lives only
// in its own entry.
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
// trainprint/starter carries the SPDX licence snapshot (build/starter.mjs) and nothing else: it
// reuses the main entry (./index.js, ./index.cjs), and no other file carries its bytes.
const base64 = read('starter.js').match(/base64: "([A-Za-z0-9+/=]{1024,})"/)?.[1];
if (!base64) { console.error('package check: dist/starter.js holds no embedded snapshot'); process.exit(1); }
if (!/from\s*"\.\/index\.js"/.test(read('starter.js')) || !/require\("\.\/index\.cjs"\)/.test(read('starter.cjs'))) {
  console.error('package check: dist/starter.js / starter.cjs must import ./index.js / ./index.cjs');
  process.exit(1);
}
for (const f of ['starter.js', 'starter.cjs']) {
  if (size(f) - base64.length > 16 * 1024) { console.error(`package check: dist/${f} holds more than its snapshot (${size(f)} B)`); process.exit(1); }
}
const probes = [0.25, 0.5, 0.75].map((at) => base64.slice(Math.floor(base64.length * at), Math.floor(base64.length * at) + 64));
for (const f of ['index.js', 'index.cjs', 'node.js', 'cli.js']) {
  const text = read(f);
  if (probes.some((p) => text.includes(p))) { console.error(`package check: dist/${f} contains the starter snapshot`); process.exit(1); }
}
console.log(`package check: ok (index.js ${size('index.js')} B, index.cjs ${size('index.cjs')} B, node.js ${size('node.js')} B, ` +
  `starter.js ${size('starter.js')} B with a ${base64.length} B base64 snapshot)`);
