/**
 * The evidence bundle of an analysis (src/services/report/): its canonical JSON (RFC 8785), the engine's Ed25519
 * report key kept in the store, the signature and what verification checks — an untouched bundle of a real analysis
 * (an EPUB, sections and attribution sources) verifies with every check ok; a change after signing fails the
 * signature; a bundle re-signed over numbers that do not follow from it (a faulty engine, or a forged key) fails the
 * check of that number; transcripts and sampled shares are recomputed.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import {
  estimateShare,
  SAMPLING_FALSE_FOUND,
  SAMPLING_SENSITIVITY,
  SAMPLING_SENSITIVITY_WORST,
} from '../../src/corpus/share.js';
import { searchedDatasetIds, sectionCoverage } from '../../src/services/analyze/sections.js';
import { rederive } from '../../src/services/report/rederive.js';
import type { AnalysisResult } from '../../src/services/analyze/types.js';
import {
  buildEvidenceBundle,
  canonicalJson,
  loadReportKey,
  REPORT_KEY_RECORD,
  TRAINPRINT_VERSION,
  transcriptDigest,
  verifyEvidenceBundle,
  type EvidenceBundle,
  type ReportKey,
  type TranscriptCall,
} from '../../src/services/report/index.js';
import { MemoryStore } from '../../src/store/memory.js';
import { sha256Portable, toHex } from '../../src/fingerprint/sha256.js';
import { analyseWork, reportEngine } from '../fixtures/work-report.js';

const hex = (s: string) => toHex(sha256Portable(new TextEncoder().encode(s)));
const failed = (v: { checks: readonly { name: string; ok: boolean }[] }) =>
  v.checks.filter((c) => !c.ok).map((c) => c.name);

let engine: Engine;
let result: AnalysisResult;
let text: string;
let key: ReportKey;
let bundle: EvidenceBundle;

beforeAll(async () => {
  engine = await reportEngine();
  result = await analyseWork(engine);
  text = result.extraction!.text!;
  key = await loadReportKey(engine.store);
  bundle = await buildEvidenceBundle({ result, text }, { key, variant: engine.variant });
});

describe('canonicalJson (RFC 8785)', () => {
  it('sorts members by UTF-16 code units at every depth, drops undefined members, writes numbers as ECMAScript', () => {
    expect(canonicalJson({ b: [1, { z: null, a: 'x' }], a: 1e21, é: true, Z: 0.000001, u: undefined })).toBe(
      '{"Z":0.000001,"a":1e+21,"b":[1,{"a":"x","z":null}],"é":true}',
    );
    // RFC 8785 §3.2.3's example of property sorting: by UTF-16 code units, not by code points
    expect(canonicalJson({ '\u{1F600}': 1, '\uFB33': 2 })).toBe('{"\u{1F600}":1,"\uFB33":2}');
    expect(canonicalJson([undefined, 'a\n"'])).toBe('[null,"a\\n\\""]');
  });

  it('is the same for the value and the value read back from its JSON', () => {
    const value = JSON.parse(JSON.stringify(bundle));
    expect(canonicalJson(value)).toBe(canonicalJson(bundle));
  });

  it('refuses what JSON cannot carry', () => {
    for (const bad of [Number.NaN, Infinity, 1n, () => 1]) expect(() => canonicalJson({ x: bad })).toThrow(/canonical/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cyclic/);
  });
});

describe('the report key', () => {
  it('is made once per store, kept there as a private JWK, and the same key after a restart', async () => {
    const store = new MemoryStore();
    const first = await loadReportKey(store);
    const kept = (await store.get(REPORT_KEY_RECORD)) as { kty: string; crv: string; d: string; x: string };
    expect(kept).toMatchObject({ kty: 'OKP', crv: 'Ed25519', x: first.publicKey.public_key });
    expect(kept.d).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // what is published holds no private part
    expect(JSON.stringify(first.publicKey)).not.toContain(kept.d);
    expect(Object.keys(first.publicKey.jwk).sort()).toEqual(['crv', 'kty', 'x']);
    // another process on the same store (a copy of its records) reads the same key; another store makes another
    const again = new MemoryStore();
    await again.put(REPORT_KEY_RECORD, kept);
    expect((await loadReportKey(again)).publicKey).toEqual(first.publicKey);
    expect((await loadReportKey(new MemoryStore())).publicKey.public_key).not.toBe(first.publicKey.public_key);
  });

  it('names the package version of package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(TRAINPRINT_VERSION).toBe(pkg.version);
    expect(bundle.engine).toMatchObject({
      name: 'trainprint',
      version: pkg.version,
      core: { variant: engine.variant },
    });
  });
});

describe('a bundle of a real analysis', () => {
  it('verifies: the signature, the digests, and every number recomputed from it', async () => {
    const v = await verifyEvidenceBundle(canonicalJson(bundle), { text, publicKey: key.publicKey });
    expect(failed(v)).toEqual([]);
    expect(v.valid).toBe(true);
    const names = v.checks.map((c) => c.name);
    for (const name of [
      'canonical_form',
      'signature',
      'signer',
      'text',
      'extraction',
      'matches:pg-copies',
      'coverage:pg-copies',
      'confidence:pg-copies',
      'attribution',
      'confidence',
      'potential_matches',
      'sections',
    ])
      expect(names).toContain(name);
    expect(bundle.text_sha256).toBe(hex(text));
    expect(bundle.extraction).toEqual({ ...result.extraction, text: undefined });
    expect('text' in bundle.extraction!).toBe(false);
  });

  it('fails on a change after signing, on another key, and on another text', async () => {
    const changed = { ...bundle, result: { ...bundle.result, confidence: 99 } };
    expect(failed(await verifyEvidenceBundle(changed))).toContain('signature');
    const other = await loadReportKey(new MemoryStore());
    const wrongKey = await verifyEvidenceBundle(bundle, { publicKey: other.publicKey.public_key });
    expect(failed(wrongKey)).toEqual(['signer']);
    const wrongText = await verifyEvidenceBundle(bundle, { text: `${text} ` });
    expect(failed(wrongText)).toContain('text');
    // a signature made by another key, with the bundle naming that key, verifies only as that key's
    const forged = await buildEvidenceBundle({ result, text }, { key: other, variant: engine.variant });
    expect((await verifyEvidenceBundle(forged)).valid).toBe(true);
    expect(failed(await verifyEvidenceBundle(forged, { publicKey: key.publicKey }))).toEqual(['signer']);
  });

  it('fails the check of a number that does not follow from the bundle, though the signature holds', async () => {
    const ev = result.evidence.datasets[0];
    const cases: Array<[string, AnalysisResult]> = [
      [
        'matches:pg-copies',
        { ...result, evidence: { ...result.evidence, datasets: [{ ...ev, matches: ev.matches + 1 }] } },
      ],
      ['confidence:pg-copies', { ...result, evidence: { ...result.evidence, datasets: [{ ...ev, confidence: 0.5 }] } }],
      ['potential_matches', { ...result, potential_matches: result.potential_matches + 2 }],
      ['confidence', { ...result, confidence: result.confidence - 10 }],
      ['attribution', { ...result, attribution_sources: [{ ...result.attribution_sources[0], link_certainty: 0.2 }] }],
      ['sections', { ...result, sections: result.sections!.map((s) => ({ ...s, coverage: { 'pg-copies': 0.5 } })) }],
      [
        'coverage:pg-copies',
        { ...result, coverage: { 'pg-copies': { ...result.coverage['pg-copies'], share: 0.01 } } },
      ],
    ];
    for (const [check, wrong] of cases) {
      const signed = await buildEvidenceBundle({ result: wrong, text }, { key, variant: engine.variant });
      const v = await verifyEvidenceBundle(signed);
      expect(v.checks.find((c) => c.name === 'signature')?.ok, check).toBe(true);
      expect(failed(v), check).toContain(check);
    }
  });

  it('never throws on what is not a bundle', async () => {
    for (const junk of [
      '',
      'null',
      '[]',
      '{"format":"x"}',
      new Uint8Array([0xff, 0xfe]),
      '{"format":"trainprint-evidence-bundle/1"}',
    ]) {
      const v = await verifyEvidenceBundle(junk as string);
      expect(v.valid).toBe(false);
      expect(failed(v)).toContain('format');
    }
    const noKey = { ...bundle, signature: { ...bundle.signature, public_key: 'short' } };
    expect(failed(await verifyEvidenceBundle(noKey))).toContain('signature');
  });
});

describe('remote corpora: transcripts and a sampled share', () => {
  const calls: TranscriptCall[] = ['q1', 'q2', 'q3'].map((q) => ({ request: hex(q), answer: hex(`answer to ${q}`) }));

  /** The result with a remote corpus searched by sampling, its sections' coverage recomputed as analyze does. */
  function withRemote(found: number, share = estimateShare({ passages: 40, found })): AnalysisResult {
    const spread = [12, 8, 12, 8];
    const sampling = {
      method: 'stratified_passages' as const,
      passages: 40,
      passage_words: 48,
      found,
      share,
      sensitivity: SAMPLING_SENSITIVITY,
      sensitivity_worst: SAMPLING_SENSITIVITY_WORST,
      false_found: SAMPLING_FALSE_FOUND,
      seed: hex(text).slice(0, 16),
      skipped: 0,
      sections: spread.map((n, i) => ({ section: i, passages: n, found: i === 1 ? found : 0 })),
    };
    const remote = {
      dataset_id: 'web',
      engine: 'infini-gram' as const,
      endpoint: 'http://127.0.0.1:9/',
      index: 'v4_fixture_llama',
      outcome: 'searched' as const,
      message: null,
      calls: calls.length,
      cached: 0,
      budget: 60,
      ms: 12,
      samples: 40,
      sampled_every: 0,
      unit: 'tokens' as const,
      documents: 0,
      matches: 0,
      transcript: { calls: calls.length, sha256: transcriptDigest(calls).sha256 },
      sampling,
    };
    const remote_corpora = [remote];
    const ids = searchedDatasetIds(result.evidence.datasets, remote_corpora);
    const document = { text, sections: result.extraction!.sections };
    return { ...result, remote_corpora, sections: sectionCoverage(document, result.matches, ids, remote_corpora) };
  }

  it('recomputes each transcript digest and the sampled share; the bundle lists the indexes searched', async () => {
    const r = withRemote(6);
    const b = await buildEvidenceBundle(
      { result: r, text, transcripts: { web: [...calls].reverse() } },
      { key, variant: 'scalar' },
    );
    expect(b.transcripts.web.entries).toEqual([...calls].sort((x, y) => (x.request < y.request ? -1 : 1)));
    expect(b.remote_indexes).toEqual([
      {
        dataset_id: 'web',
        engine: 'infini-gram',
        endpoint: 'http://127.0.0.1:9/',
        index: 'v4_fixture_llama',
        outcome: 'searched',
      },
    ]);
    const v = await verifyEvidenceBundle(canonicalJson(b));
    expect(failed(v)).toEqual([]);
    expect(v.checks.map((c) => c.name)).toEqual(expect.arrayContaining(['transcript:web', 'sampling:web', 'sections']));
  });

  it('a remote corpus that answered nothing: no section coverage now, and a result of earlier versions (a coverage of 0) still verifies', async () => {
    const r = withRemote(6);
    const down = { ...r.remote_corpora[0], outcome: 'unreachable' as const, samples: 0, sampling: undefined };
    const document = { text, sections: r.extraction!.sections };
    const now = sectionCoverage(document, r.matches, searchedDatasetIds(r.evidence.datasets, [down]), [down]);
    expect(now.every((s) => !('web' in s.coverage))).toBe(true);
    const before = sectionCoverage(
      document,
      r.matches,
      searchedDatasetIds(r.evidence.datasets, [{ dataset_id: 'web' }]),
    );
    expect(before.every((s) => s.coverage.web === 0)).toBe(true);
    for (const sections of [now, before]) {
      const checks = rederive({ ...r, remote_corpora: [down], sections }, text).checks;
      expect(checks.filter((c) => c.name === 'sections')).toEqual([expect.objectContaining({ ok: true })]);
    }
  });

  it('a sampled search cut short: a section it asked nothing of has no coverage, verifies, and so does the 0 of earlier versions', () => {
    const r = withRemote(6);
    const s = r.remote_corpora[0].sampling!;
    const cut = {
      ...r.remote_corpora[0],
      outcome: 'deadline_reached' as const,
      sampling: { ...s, skipped: 12, sections: s.sections.map((x) => (x.section === 2 ? { ...x, passages: 0 } : x)) },
    };
    const document = { text, sections: r.extraction!.sections };
    const ids = searchedDatasetIds(r.evidence.datasets, [cut]);
    const now = sectionCoverage(document, r.matches, ids, [cut]);
    expect(now.map((x) => 'web' in x.coverage)).toEqual([true, true, false, true]);
    const before = now.map((x, i) => (i === 2 ? { ...x, coverage: { ...x.coverage, web: 0 } } : x));
    for (const sections of [now, before]) {
      const checks = rederive({ ...r, remote_corpora: [cut], sections }, text).checks;
      expect(checks.filter((c) => c.name === 'sections')).toEqual([expect.objectContaining({ ok: true })]);
    }
    // a coverage it could not have: still refused
    const forged = now.map((x, i) => (i === 2 ? { ...x, coverage: { ...x.coverage, web: 0.5 } } : x));
    const checks = rederive({ ...r, remote_corpora: [cut], sections: forged }, text).checks;
    expect(checks.filter((c) => c.name === 'sections')).toEqual([expect.objectContaining({ ok: false })]);
  });

  it('a verified share is checked by the rule its result names: joint (ci_rule), else the product of bounds', () => {
    const r = withRemote(6);
    const counts = { passages: 40, found: 6, fetched: 6, verified: 5, unchecked: 1 };
    const detection = { hits: 18, trials: 20 };
    const sample = { ...counts, detection, detectionDesignEffect: 2 };
    const documents = { fetched: 6, verified: 5, contradicted: 0, refuted: 0, unchecked: 1 };
    const check = (share: { estimate: number; ci_95: readonly [number, number]; ci_rule?: 'joint' }) => {
      const s = { ...r.remote_corpora[0].sampling!, documents, detection, share };
      const checks = rederive({ ...r, remote_corpora: [{ ...r.remote_corpora[0], sampling: s }] }, text).checks;
      return checks.filter((c) => c.name === 'sampling:web').map((c) => c.ok);
    };
    const joint = estimateShare(sample);
    const product = estimateShare({ ...sample, ciRule: 'product' });
    expect(joint.ci_95[1] - joint.ci_95[0]).toBeLessThan(product.ci_95[1] - product.ci_95[0]);
    expect(check({ ...joint, ci_rule: 'joint' })).toEqual([true]);
    expect(check(product)).toEqual([true]);
    expect(check({ ...product, ci_rule: 'joint' })).toEqual([false]);
    expect(check(joint)).toEqual([false]);
  });

  it('fails calls that do not hash to the digest, or of another count, and a share not from its counts', async () => {
    const r = withRemote(6);
    const lost = await buildEvidenceBundle(
      { result: r, text, transcripts: { web: calls.slice(1) } },
      { key, variant: 'scalar' },
    );
    expect(failed(await verifyEvidenceBundle(lost))).toEqual(['transcript:web']);
    const none = await buildEvidenceBundle({ result: r, text }, { key, variant: 'scalar' });
    expect(failed(await verifyEvidenceBundle(none))).toEqual(['transcript:web']);
    const inflated = withRemote(6, { estimate: 0.4, ci_95: [0.3, 0.5] });
    const b = await buildEvidenceBundle(
      { result: inflated, text, transcripts: { web: calls } },
      { key, variant: 'scalar' },
    );
    expect(failed(await verifyEvidenceBundle(b))).toEqual(['sampling:web']);
  });
});
