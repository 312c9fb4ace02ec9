/**
 * An evidence bundle as served (its canonical JSON, src/services/report/) fails verification when any one of its
 * bytes changes, wherever it is and whatever it becomes: 200 positions drawn with a seeded PRNG, each byte XORed
 * with a non-zero mask. A flip may break the JSON or the UTF-8, change a value (the signature fails) or change the
 * bytes but not the value — an exponent's `e` into `E` — which the canonical-form check catches. The untouched
 * bytes verify.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildEvidenceBundle,
  canonicalJson,
  loadReportKey,
  verifyEvidenceBundle,
} from '../../../src/services/report/index.js';
import { analyseWork, reportEngine } from '../../fixtures/work-report.js';
import { prng } from '../../reference/core.js';

const FLIPS = 200;

let bytes: Uint8Array;
/** A bundle with a number JSON writes with an exponent (a chance of 3.2e-23). */
let exponent: string;

beforeAll(async () => {
  const engine = await reportEngine();
  const result = await analyseWork(engine);
  const key = await loadReportKey(engine.store);
  const text = result.extraction!.text!;
  const bundle = await buildEvidenceBundle({ result, text }, { key, variant: engine.variant });
  bytes = new TextEncoder().encode(canonicalJson(bundle));
  const [ev] = result.evidence.datasets;
  const small = { ...result, evidence: { ...result.evidence, datasets: [{ ...ev, chance: 3.2e-23 }] } };
  exponent = canonicalJson(await buildEvidenceBundle({ result: small, text }, { key, variant: engine.variant }));
});

describe('a bundle with one byte changed', () => {
  it('verifies untouched', async () => {
    expect((await verifyEvidenceBundle(bytes)).valid).toBe(true);
  });

  it(`fails at each of ${FLIPS} random positions, with any change of the byte`, async () => {
    const next = prng(46);
    const passed: string[] = [];
    for (let i = 0; i < FLIPS; i++) {
      const at = Math.floor(next() * bytes.length);
      const mask = 1 + Math.floor(next() * 255);
      const changed = bytes.slice();
      changed[at] ^= mask;
      const v = await verifyEvidenceBundle(changed);
      if (v.valid) passed.push(`byte ${at} ^ ${mask}`);
    }
    expect(passed).toEqual([]);
  });

  it('fails when an exponent changes case, a change JSON.parse does not see', async () => {
    expect((await verifyEvidenceBundle(exponent)).valid).toBe(true);
    const at = exponent.indexOf('3.2e-23') + 3;
    const changed = `${exponent.slice(0, at)}E${exponent.slice(at + 1)}`;
    expect(JSON.parse(changed)).toEqual(JSON.parse(exponent));
    const v = await verifyEvidenceBundle(changed);
    expect(v.checks.find((c) => c.name === 'signature')?.ok).toBe(true);
    expect(v.checks.find((c) => c.name === 'canonical_form')?.ok).toBe(false);
    expect(v.valid).toBe(false);
  });
});
