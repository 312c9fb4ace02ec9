/**
 * A catalogue audit in the evidence bundle: signed with the analysis of one of its works and verified offline (its
 * `audit_sha256` computed again from the works' transcript digests, its catalogue figures from its works' verdicts); a
 * record changed — a digest, a verdict, a figure — fails that check even when the bundle is signed again.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import type { GenerateOptions, TargetModel } from '../../src/models/types.js';
import type { AnalysisResult } from '../../src/services/analyze/types.js';
import { auditCatalogue, type CatalogueAuditResult } from '../../src/services/memorization/audit.js';
import {
  buildEvidenceBundle,
  loadReportKey,
  verifyEvidenceBundle,
  type ReportKey,
} from '../../src/services/report/index.js';
import { analyseWork, reportEngine } from '../fixtures/work-report.js';

let engine: Engine;
let result: AnalysisResult;
let text: string;
let key: ReportKey;
let audit: CatalogueAuditResult;

/** A model that continues `words` from the prompt's last five words, and writes filler for any other prompt. */
function reciter(words: readonly string[]): TargetModel {
  const index = new Map<string, number>();
  for (let i = 5; i <= words.length; i++) index.set(words.slice(i - 5, i).join(' '), i);
  return {
    id: 'reciter',
    access: 'generations_only',
    chat: true,
    async generate(prompt: string, o: GenerateOptions) {
      const last = (o.messages?.at(-1)?.content ?? prompt).split(/\s+/).slice(-5).join(' ');
      const at = index.get(last);
      return at === undefined ? 'the weather was mild and nothing else happened' : words.slice(at, at + 60).join(' ');
    },
  };
}

beforeAll(async () => {
  engine = await reportEngine();
  result = await analyseWork(engine);
  text = result.extraction!.text!;
  key = await loadReportKey(engine.store);
  const words = text.split(/\s+/).filter(Boolean);
  const other = Array.from({ length: 400 }, (_, i) => `word${(i * 7919) % 997}`).join(' ');
  audit = await auditCatalogue({
    model: reciter(words),
    works: [
      { id: 'the-work', text },
      { id: 'unseen', text: other },
    ],
    budget_calls: 120,
    concurrency: 1,
    prompt_variants: 1,
  });
});

const bundleOf = (a: CatalogueAuditResult) =>
  buildEvidenceBundle({ result, text, catalogue_audits: [a] }, { key, variant: engine.variant });

describe('a catalogue audit in the evidence bundle', () => {
  it('is signed with the analysis and verifies offline, its digest and figures computed again', async () => {
    expect(audit.works.map((w) => w.verdict)).toEqual(['reproduced', 'not_found']);
    const bundle = await bundleOf(audit);
    expect(bundle.catalogue_audits?.[0]?.audit_sha256).toBe(audit.audit_sha256);
    const v = await verifyEvidenceBundle(bundle, { text });
    expect(v.checks.find((c) => c.name === 'catalogue_audit:0')?.ok).toBe(true);
    expect(v.valid).toBe(true);
    // a bundle without audits has no such member (bundles made before stay byte for byte the same)
    const plain = await buildEvidenceBundle({ result, text }, { key, variant: engine.variant });
    expect('catalogue_audits' in plain).toBe(false);
  });

  it('refuses a bundle whose audit record was changed after signing', async () => {
    const bundle = structuredClone(await bundleOf(audit)) as any;
    bundle.catalogue_audits[0].works[1].verdict = 'reproduced';
    const v = await verifyEvidenceBundle(bundle);
    expect(v.checks.find((c) => c.name === 'signature')?.ok).toBe(false);
    expect(v.checks.find((c) => c.name === 'catalogue_audit:0')?.ok).toBe(false);
    expect(v.valid).toBe(false);
  });

  it('fails the check when a digest, a verdict or a figure is changed, even signed again', async () => {
    const [seen, unseen] = audit.works;
    const forgeries: Array<[CatalogueAuditResult, RegExp]> = [
      [{ ...audit, works: [{ ...seen, transcript_sha256: 'f'.repeat(64) }, unseen] }, /hash to/],
      [
        { ...audit, works: [seen, { ...unseen, verdict: 'reproduced' }] },
        /catalogue\.reproduced is 1, its works give 2/,
      ],
      [{ ...audit, catalogue: { ...audit.catalogue, share: 0.01 } }, /catalogue\.share/],
      [{ ...audit, calls: audit.calls - 1 }, /its works cost/],
      [{ ...audit, works: [seen, { ...unseen, miss_probability: 0.0001 }] }, /miss_probability/],
    ];
    for (const [forged, why] of forgeries) {
      const v = await verifyEvidenceBundle(await bundleOf(forged));
      expect(v.checks.find((c) => c.name === 'signature')?.ok).toBe(true);
      const check = v.checks.find((c) => c.name === 'catalogue_audit:0');
      expect(check?.ok, why.source).toBe(false);
      expect(check?.detail).toMatch(why);
      expect(v.valid).toBe(false);
    }
  });
});
