import * as lib from '../../dist/index.js';
import * as light from '../../dist/fingerprint.js';
import * as starter from '../../dist/starter.js';
import { SYNONYM_PAIR, TEXTS, smoke } from './smoke.mjs';
import { isDeepStrictEqual } from 'node:util';

const digest = await smoke(lib, starter);
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
console.log(JSON.stringify(digest));
