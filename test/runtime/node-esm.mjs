import * as lib from '../../dist/index.js';
import * as light from '../../dist/fingerprint.js';
import * as models from '../../dist/models.js';
import * as text from '../../dist/text.js';
import * as starter from '../../dist/starter.js';
import { SYNONYM_PAIR, TEXTS, oneLibrary, smoke } from './smoke.mjs';
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';

const digest = await smoke({ ...lib, ...models, ...text }, starter);
// trainprint/fingerprint and the main entry share one aligner and one synonym table (loaded on demand by each
// createEngine): compare gives the same answer from both
const [full, fingerprintOnly] = [await lib.createEngine(), await light.createEngine()];
for (const [a, b] of [SYNONYM_PAIR, [TEXTS.english, `${TEXTS.english} And more.`]]) {
  const [x, y] = [full.compare(a, b, { minLength: 0 }), fingerprintOnly.compare(a, b, { minLength: 0 })];
  if (!isDeepStrictEqual(x, y)) {
    console.error(`trainprint/fingerprint compares otherwise than trainprint: ${JSON.stringify([x, y])}`);
    process.exit(1);
  }
}
// every entry of package.json built on the library (all but the separate bundles fingerprint and client)
const { exports } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const entries = {};
for (const [key, target] of Object.entries(exports)) {
  const file = target.import?.default ?? target.node?.default;
  if (file && !['./fingerprint', './client'].includes(key))
    entries[`trainprint${key.slice(1)}`] = await import(new URL(`../../${file}`, import.meta.url).href);
}
const problems = await oneLibrary(entries);
if (problems.length) {
  console.error(`the entries are not one library (ESM):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(JSON.stringify(digest));
