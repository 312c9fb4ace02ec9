/**
 * Factor codes, jurisdictions, risk and revenue (src/services/kb/factors.ts, src/services/kb/jurisdictions.ts,
 * src/services/analyze/risk.ts, src/services/analyze/revenue.ts), and calibration reproducibility.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FACTORS, factorTable } from '../../src/services/kb/factors.js';
import { EU_MEMBERS, jurisdictionTable, resolveJurisdiction } from '../../src/services/kb/jurisdictions.js';
import { assessRisk } from '../../src/services/analyze/risk.js';
import { chooseWorkType, estimateRevenue } from '../../src/services/analyze/revenue.js';
import { CALIBRATION, datasetConfidence } from '../../src/services/analyze/calibration.js';
import { sigmoid } from '../../src/stats/logistic.js';

const code = (c: string) => expect.objectContaining({ code: c });

describe('factor codes', () => {
  it('one table of unique snake_case codes, each with meaning and source, all in docs/knowledge-base.md', () => {
    const rows = factorTable();
    expect(new Set(rows.map((r) => r.code)).size).toBe(rows.length);
    const readme = readFileSync(new URL('../../docs/knowledge-base.md', import.meta.url), 'utf8');
    for (const r of rows) {
      expect(r.code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(r.meaning.length).toBeGreaterThan(10);
      expect(r.source.length).toBeGreaterThan(3);
      expect(readme, r.code).toContain('`' + r.code + '`');
    }
    // the codes that results, docs and clients rely on exist
    for (const c of [
      'verbatim_overlap',
      'long_verbatim_run',
      'near_duplicate',
      'dataset_disclosed_by_provider',
      'training_data_undisclosed',
      'no_indexed_dataset_match',
      'short_text_low_power',
      'tdm_opt_out_declared',
      'reference_sample_only',
    ]) {
      expect(FACTORS).toHaveProperty(c);
    }
    // every jurisdiction code is a known factor
    for (const j of jurisdictionTable()) for (const f of j.factors) expect(FACTORS).toHaveProperty(f);
  });
});

describe('jurisdictions', () => {
  it('layers EU, country and subdivision; normalises aliases; refuses non-ISO shapes', () => {
    expect(resolveJurisdiction('de')).toMatchObject({
      code: 'DE',
      layers: ['EU', 'DE'],
      base: 0.55,
      eu: true,
      known: true,
    });
    expect(resolveJurisdiction('DE').factors).toEqual([
      'tdm_exception_with_opt_out',
      'training_summary_required',
      'memorization_is_reproduction',
    ]);
    expect(resolveJurisdiction('FR')).toMatchObject({ code: 'FR', layers: ['EU'], base: 0.5, eu: true });
    expect(resolveJurisdiction('US-CA')).toMatchObject({ layers: ['US', 'US-CA'], base: 0.5 });
    expect(resolveJurisdiction('US-NY')).toMatchObject({ code: 'US-NY', layers: ['US'], base: 0.45 });
    expect(resolveJurisdiction('uk')).toMatchObject({ code: 'GB', base: 0.6 });
    expect(resolveJurisdiction('EL')).toMatchObject({ code: 'GR', eu: true });
    expect(resolveJurisdiction('BR')).toMatchObject({ code: 'BR', layers: [], base: 0.5, known: false });
    expect(EU_MEMBERS.size).toBe(27);
    for (const bad of ['EU-DE', 'USA', 'U', '', 'US-CALI', 'us_ca', 42, null])
      expect(() => resolveJurisdiction(bad), String(bad)).toThrow(code('INVALID_INPUT'));
  });
});

describe('risk', () => {
  const us = resolveJurisdiction('US');
  it('levels from the weight; none without a match; weak attribution scales the weight', () => {
    const base = {
      jurisdiction: us,
      anyMatch: true,
      attributionLow: 0.9,
      optOut: 'none',
      pirated: false,
      workType: 'code',
    } as const;
    expect(assessRisk({ ...base, anyMatch: false })).toMatchObject({ level: 'none' });
    expect(assessRisk(base)).toMatchObject({ level: 'medium', score: 0.45, attribution_scale: 1 });
    expect(assessRisk({ ...base, pirated: true, workType: 'book' })).toMatchObject({ level: 'high', score: 0.75 });
    expect(assessRisk({ ...base, pirated: true, workType: 'book', optOut: 'applies' })).toMatchObject({
      level: 'critical',
      score: 0.8,
    });
    const weak = assessRisk({ ...base, attributionLow: 0.2 });
    expect(weak).toMatchObject({ level: 'low', score: 0.09, attribution_scale: 0.2 });
    expect(weak.factors).toContain('attribution_uncertain');
    const de = assessRisk({ ...base, jurisdiction: resolveJurisdiction('DE'), optOut: 'applies' });
    expect(de.modifiers).toEqual([{ code: 'tdm_opt_out_declared', delta: 0.2 }]);
    expect(de.score).toBe(0.75);
    expect(assessRisk({ ...base, jurisdiction: null }).base_weight).toBe(0.5);
    expect(assessRisk({ ...base, jurisdiction: resolveJurisdiction('GB'), pirated: true }).modifiers).toEqual([
      { code: 'pirated_source_dataset', delta: 0.15 },
    ]);
  });
});

describe('revenue', () => {
  it('books per title over 36 months, text per word, code none; sums over providers', () => {
    const two = [
      { provider: 'A', p_used: [0.5, 0.8, 0.9] as const },
      { provider: 'B', p_used: [0.1, 0.2, 0.3] as const },
    ];
    const b = estimateRevenue('book', 'metadata', 100_000, two);
    expect(b.basis).toMatchObject({ method: 'per_title_36m', deal_ids: [9], quantity: 1, term_months: 36 });
    expect(b.monthly).toBeCloseTo(((0.8 + 0.2) * 3750) / 36, 2);
    expect(b.basis.low).toBeCloseTo(((0.5 + 0.1) * 2500) / 36, 2);
    expect(b.basis.high).toBeCloseTo(((0.9 + 0.3) * 5000) / 36, 2);
    const a = estimateRevenue('news', 'metadata', 36_000, two);
    expect(a.monthly).toBeCloseTo((1.0 * 0.001 * 36_000) / 36, 2);
    expect(a.factors).toEqual(['low_confidence_rate']);
    const c = estimateRevenue('code', 'form', 500, two);
    expect(c).toMatchObject({ monthly: null, factors: ['no_market_anchor'] });
    expect(estimateRevenue('book', 'length', 50_000, []).monthly).toBe(0);
  });
  it('chooses the work type by metadata, form, then length', () => {
    expect(chooseWorkType('news', 'x', 10)).toEqual({ type: 'news', source: 'metadata' });
    expect(
      chooseWorkType(
        undefined,
        'import x from "y";\nconst a = 1;\nfunction f() {\n  return a;\n}\nexport default f;\n',
        20,
      ),
    ).toEqual({ type: 'code', source: 'form' });
    expect(chooseWorkType(undefined, 'words '.repeat(10), 40_000)).toEqual({ type: 'book', source: 'length' });
    expect(chooseWorkType(undefined, 'words '.repeat(10), 39_999)).toEqual({ type: 'article', source: 'length' });
  });
});

describe('calibration', () => {
  const logit = (p: number) => Math.log(p / (1 - p));
  it('is the stored fit: the floor by length without evidence, the curve by strength with it, prior by Bayes', () => {
    expect(CALIBRATION.id).toMatch(/^cal-\d{4}-\d{2}-\d{2}-[0-9a-f]{8}$/);
    for (const kind of ['exact', 'portrait'] as const) {
      const f = CALIBRATION.kinds[kind];
      expect(CALIBRATION.metrics[kind].ece_max).toBeLessThanOrEqual(0.03);
      // the floor: one step per length bucket, never rising with length
      for (let i = 1; i < f.floor.length; i++) expect(f.floor[i].p).toBeLessThanOrEqual(f.floor[i - 1].p);
      for (const [i, point] of f.floor.entries()) {
        const words = point.words;
        const c = datasetConfidence(kind, 0, 0.5, words);
        expect(c.p).toBeCloseTo(point.p, 9);
        expect([c.lo, c.hi]).toEqual([expect.closeTo(point.lo, 9), expect.closeTo(point.hi, 9)]);
        // the step holds up to its bound
        if (point.below !== null) {
          expect(datasetConfidence(kind, 0, 0.5, point.below - 1).p).toBeCloseTo(point.p, 9);
          expect(datasetConfidence(kind, 0, 0.5, point.below).p).toBeCloseTo(f.floor[i + 1].p, 9);
        }
      }
      // confidence without evidence does not rise with length, up to 100,000 words
      let last = 1;
      for (const w of [10, 70, 100, 150, 400, 1000, 1500, 2000, 5000, 100_000]) {
        const p = datasetConfidence(kind, 0, 0.5, w).p;
        expect(p).toBeLessThanOrEqual(last);
        last = p;
      }
      for (const s of [2, 10, 100]) {
        const x = Math.min(s, CALIBRATION.strength_cap);
        const c = datasetConfidence(kind, s, 0.5, 400);
        const curve = sigmoid(f.evidence.a + f.evidence.b * x);
        expect(c.p).toBeCloseTo(Math.max(curve, datasetConfidence(kind, 0, 0.5, 400).p), 12);
        expect(c.lo).toBeLessThanOrEqual(c.p);
        expect(c.hi).toBeGreaterThanOrEqual(c.p);
        // more evidence never lowers a confidence
        expect(c.p).toBeGreaterThanOrEqual(datasetConfidence(kind, 0, 0.5, 400).p);
        const low = datasetConfidence(kind, s, 0.01, 400);
        expect(logit(low.p)).toBeCloseTo(logit(c.p) + logit(0.01), 9);
      }
    }
    expect(CALIBRATION.provenance).toMatchObject({ code: 'bench/eval-calibration.mjs' });
  });
});
