/**
 * A model extraction in the evidence bundle and the work report: signed with the analysis, verified offline (its
 * record of calls hashed again, its text the analysed one, its blocks' in-order check redone with the text), a
 * record changed and signed again fails that check; the report draws one strip with a mark per block.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import type { GenerateOptions, TargetModel } from '../../src/models/types.js';
import type { AnalysisResult } from '../../src/services/analyze/types.js';
import { runWorkExtraction, type WorkExtractionResult } from '../../src/services/memorization/extract-work.js';
import {
  buildEvidenceBundle,
  loadReportKey,
  renderWorkReport,
  verifyEvidenceBundle,
  type ReportKey,
} from '../../src/services/report/index.js';
import { MemoryStore } from '../../src/store/memory.js';
import { analyseWork, reportEngine } from '../fixtures/work-report.js';

let engine: Engine;
let result: AnalysisResult;
let text: string;
let key: ReportKey;
let extraction: WorkExtractionResult;

/** A model that continues the text from the prompt's last five words while they fall in words [from, to). */
function reciter(words: readonly string[], from: number, to: number): TargetModel {
  const index = new Map<string, number>();
  for (let i = 5; i <= words.length; i++) index.set(words.slice(i - 5, i).join(' '), i);
  return {
    id: 'reciter',
    access: 'generations_only',
    chat: true,
    async generate(prompt: string, o: GenerateOptions) {
      const last = (o.messages?.at(-1)?.content ?? prompt).split(/\s+/).slice(-5).join(' ');
      const at = index.get(last);
      return at === undefined || at < from || at >= to
        ? 'the weather was mild and nothing else happened'
        : words.slice(at, Math.min(to, at + 60)).join(' ');
    },
  };
}

beforeAll(async () => {
  engine = await reportEngine();
  result = await analyseWork(engine);
  text = result.extraction!.text!;
  key = await loadReportKey(engine.store);
  const words = text.split(/\s+/).filter(Boolean);
  const from = Math.floor(words.length * 0.3);
  extraction = await runWorkExtraction(new MemoryStore(), {
    text,
    model: reciter(words, from, from + 400),
    budget_calls: 400,
    concurrency: 1,
  });
});

describe('a model extraction in the evidence bundle', () => {
  it('is signed with the analysis and verifies offline, its record hashed again', async () => {
    expect(extraction.blocks.length).toBeGreaterThan(0);
    expect(extraction.nv_recall).toBeGreaterThan(0);
    const bundle = await buildEvidenceBundle(
      { result, text, model_extractions: [extraction] },
      { key, variant: engine.variant },
    );
    expect(bundle.model_extractions).toHaveLength(1);
    const v = await verifyEvidenceBundle(JSON.stringify(bundle), { text });
    const check = v.checks.find((c) => c.name === 'model_extraction:0');
    expect(check?.ok).toBe(true);
    expect(v.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['canonical_form']);
    // a bundle without extractions has no such member (bundles made before stay byte for byte the same)
    const plain = await buildEvidenceBundle({ result, text }, { key, variant: engine.variant });
    expect('model_extractions' in plain).toBe(false);
  });

  it('fails the check when a recorded call is changed, even signed again', async () => {
    const calls = extraction.record.calls.map((c, i) => (i === 1 ? { ...c, answer_sha256: 'f'.repeat(64) } : c));
    const forged = { ...extraction, record: { ...extraction.record, calls } };
    const bundle = await buildEvidenceBundle(
      { result, text, model_extractions: [forged] },
      { key, variant: engine.variant },
    );
    const v = await verifyEvidenceBundle(bundle);
    expect(v.checks.find((c) => c.name === 'signature')?.ok).toBe(true);
    const check = v.checks.find((c) => c.name === 'model_extraction:0');
    expect(check?.ok).toBe(false);
    expect(check?.detail).toMatch(/the calls hash to/);
    expect(v.valid).toBe(false);
  });

  it("fails when the extraction measured another text, or a block's span is not in its generated text", async () => {
    const other = { ...extraction, text_sha256: '0'.repeat(64) };
    const moved = {
      ...extraction,
      blocks: extraction.blocks.map((b) => ({ ...b, start: 0, end: Math.min(text.length, b.end - b.start) })),
    };
    for (const [x, why] of [
      [other, /not the analysed text/],
      [moved, /fewer than 90 %/],
    ] as const) {
      const bundle = await buildEvidenceBundle(
        { result, text, model_extractions: [x] },
        { key, variant: engine.variant },
      );
      const check = (await verifyEvidenceBundle(bundle, { text })).checks.find((c) => c.name === 'model_extraction:0');
      expect(check?.ok).toBe(false);
      expect(check?.detail).toMatch(why);
    }
  });
});

describe('a model extraction in the work report', () => {
  it('draws a strip with a mark per block, its share, calls and transcript digest', async () => {
    const html = await renderWorkReport({ result, text, model_extractions: [extraction] });
    expect(html).toContain('<h2>What models wrote out</h2>');
    const svg = /<svg class="extraction"[\s\S]*?<\/svg>/.exec(html)?.[0] ?? '';
    expect(svg.match(/<rect class="mark/g)).toHaveLength(extraction.blocks.length);
    expect(html).toContain(extraction.record.transcript_sha256);
    expect(await renderWorkReport({ result, text })).not.toContain('What models wrote out');
  });

  it('says no_model_probe only when it shows no extraction: its factors agree with its extraction section', async () => {
    const withLimitation = { ...result, limitations: [...new Set([...result.limitations, 'no_model_probe'])] };
    expect(await renderWorkReport({ result: withLimitation, text })).toContain('<code>no_model_probe</code>');
    const shown = await renderWorkReport({ result: withLimitation, text, model_extractions: [extraction] });
    expect(shown).not.toContain('<code>no_model_probe</code>');
  });
});
