/**
 * An extraction's and an audit's `words` are the text's words as every other door counts them (countWords: runs of
 * non-space characters), their `tokens` the engine's word tokens the measure runs on (a hyphen or an apostrophe parts
 * a word: 10,966 words of Julius Caesar's opening are 11,174 tokens). The digests are not moved by it: the same calls
 * as a build made before (test/fixtures/extraction-digests/results.json, made by make.mjs with f568ea1's dist, where
 * `words` held the token count), so the same transcript and audit digests, and those results as they were kept still
 * verify in an evidence bundle signed today.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import type { AnalysisResult } from '../../src/services/analyze/types.js';
import { auditCatalogue, type CatalogueAuditResult } from '../../src/services/memorization/audit.js';
import { runWorkExtraction, type WorkExtractionResult } from '../../src/services/memorization/extract-work.js';
import { buildEvidenceBundle, loadReportKey, verifyEvidenceBundle } from '../../src/services/report/index.js';
import { MemoryStore } from '../../src/store/memory.js';
import { countWords } from '../../src/util/space.js';
// @ts-expect-error: a plain ES module shared with make.mjs, which runs under Node without a build
import { reciterModel, WORKS } from '../fixtures/extraction-digests/inputs.mjs';
import { reportEngine } from '../fixtures/work-report.js';

interface Kept {
  readonly extraction: WorkExtractionResult;
  readonly audit: CatalogueAuditResult;
}

const fixture = (p: string) => new URL(`../fixtures/${p}`, import.meta.url);
const before: Kept = JSON.parse(readFileSync(fixture('extraction-digests/results.json'), 'utf8'));
const works: Array<{ id: string; text: string }> = WORKS.map((w: { id: string; path: string; chars: number }) => ({
  id: w.id,
  text: readFileSync(fixture(w.path), 'utf8').slice(0, w.chars),
}));
const book = works[0].text;
let now: Kept;

beforeAll(async () => {
  const extraction = await runWorkExtraction(new MemoryStore(), {
    text: book,
    model: reciterModel(book),
    budget_calls: 120,
    concurrency: 1,
  });
  const audit = await auditCatalogue({
    works,
    model: reciterModel(book),
    budget_calls: 200,
    concurrency: 1,
  });
  now = { extraction, audit };
});

describe("an extraction's words", () => {
  it('are the words every door counts, the tokens named apart', () => {
    const x = now.extraction;
    expect(x.words).toBe(countWords(book));
    expect(x.words).toBe(book.match(/\S+/g)?.length);
    expect(x.words).toBe(10_966);
    // the tokens are what the result made before called words
    expect(x.tokens).toBe(before.extraction.words);
    expect(x.tokens).toBe(11_174);
    expect(x.nv_recall).toBe(before.extraction.nv_recall);
    const [s] = x.sections;
    expect([s.words, s.tokens]).toEqual([x.words, x.tokens]);
    expect(s.nv_recall).toBe(s.tokens > 0 ? Math.round((s.tokens_in_blocks / s.tokens) * 1e4) / 1e4 : 0);
  });

  it("are an audit's works' words the same way", () => {
    for (const [i, w] of now.audit.works.entries()) {
      expect(w.words).toBe(countWords(works[i].text));
      expect(w.tokens).toBe(before.audit.works[i].words);
    }
    expect(now.audit.works.map((w) => w.words)).toEqual([10_966, 142]);
  });
});

describe('the digests', () => {
  it('are those of the build before: the same calls, the same transcript and audit digests', () => {
    expect(now.extraction.record.transcript_sha256).toBe(before.extraction.record.transcript_sha256);
    expect(now.extraction.record.calls.map((c) => c.request_sha256)).toEqual(
      before.extraction.record.calls.map((c) => c.request_sha256),
    );
    expect(now.audit.audit_sha256).toBe(before.audit.audit_sha256);
    expect(now.audit.works.map((w) => w.transcript_sha256)).toEqual(before.audit.works.map((w) => w.transcript_sha256));
  });

  describe('in an evidence bundle', () => {
    let engine: Engine;
    let result: AnalysisResult;
    beforeAll(async () => {
      engine = await reportEngine();
      result = await engine.analyze({ content: book, content_type: 'text' });
    });

    it('results kept before (words as tokens, no tokens) still verify, and today results beside them', async () => {
      const key = await loadReportKey(engine.store);
      for (const kept of [before, now]) {
        const bundle = await buildEvidenceBundle(
          { result, text: book, model_extractions: [kept.extraction], catalogue_audits: [kept.audit] },
          { key, variant: engine.variant },
        );
        const v = await verifyEvidenceBundle(JSON.stringify(bundle), { text: book });
        const named = (n: string) => v.checks.find((c) => c.name === n);
        expect(named('model_extraction:0')?.ok, named('model_extraction:0')?.detail).toBe(true);
        expect(named('catalogue_audit:0')?.ok, named('catalogue_audit:0')?.detail).toBe(true);
        expect(named('signature')?.ok).toBe(true);
      }
    });
  });
});
