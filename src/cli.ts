/**
 * `trainprint` command line: a small demo until the HTTP service lands.
 *   trainprint demo               fingerprint two built-in passages and compare them
 *   trainprint fingerprint FILE   print the fingerprint summary of a UTF-8 file as JSON
 */
import { readFile } from 'node:fs/promises';
import { createEngine, TrainprintError, type Fingerprint } from './index.js';

const A = `It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of
foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season of Light,
it was the season of Darkness, it was the spring of hope, it was the winter of despair.`;
const B = `"IT WAS the best of times; it was the worst of times," wrote Dickens — it was the age of wisdom,
it was the age of foolishness, it was the epoch of belief... and then the reviewer moved on.`;

function summary(fp: Fingerprint) {
  return {
    fingerprint: fp.fingerprint,
    work_hash: fp.work_hash,
    params: fp.params,
    byte_length: fp.byte_length,
    token_count: fp.token_count,
    shingles: fp.shingles.hashes.length,
    winnowed: fp.winnow?.hashes.length ?? 0,
    simhash: fp.simhash === undefined ? undefined : fp.simhash.toString(16).padStart(16, '0'),
    minhash_head: fp.minhash ? Array.from(fp.minhash.subarray(0, 4)) : undefined,
  };
}

async function main(argv: string[]): Promise<number> {
  const [cmd = 'demo', arg] = argv;
  const engine = await createEngine();
  if (cmd === 'demo') {
    const [fa, fb] = [await engine.fingerprint(A), await engine.fingerprint(B)];
    const sim = engine.similarity(fa, fb);
    const shared = [...new Set(fa.winnow!.hashes)].filter((h) => fb.winnow!.hashes.includes(h));
    console.log(JSON.stringify({ engine: engine.variant, a: summary(fa), b: summary(fb), similarity: sim }, null, 2));
    for (const h of shared.slice(0, 3)) {
      const i = fa.winnow!.hashes.indexOf(h), j = fb.winnow!.hashes.indexOf(h);
      console.log(`shared fingerprint ${h.toString(16).padStart(16, '0')}: A "${A.slice(fa.winnow!.starts[i], fa.winnow!.ends[i])}" ~ B "${B.slice(fb.winnow!.starts[j], fb.winnow!.ends[j])}"`);
    }
    return 0;
  }
  if (cmd === 'fingerprint' && arg) {
    const text = await readFile(arg);
    console.log(JSON.stringify(summary(await engine.fingerprint(new Uint8Array(text))), null, 2));
    return 0;
  }
  console.error('usage: trainprint demo | trainprint fingerprint FILE');
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (e: unknown) => {
    console.error(e instanceof TrainprintError ? `${e.code}: ${e.message}` : e);
    process.exitCode = 1;
  },
);
