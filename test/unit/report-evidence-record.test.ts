// The evidence record of a stored analysis, one for every door: the owner's extractions of the analysed text (found by
// its SHA-256) join it, another owner's and another text's do not; the text's digest is carried so the bundle does
// not hash the text again (the same text_sha256 either way); extractions from files are refused unless they measured
// the analysed text.
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/create-engine.js';
import { sha256Hex } from '../../src/fingerprint/sha256.js';
import type { WorkExtractionResult } from '../../src/services/memorization/extract-work.js';
import { storeWorkExtraction } from '../../src/services/memorization/stored-extractions.js';
import {
  buildEvidenceBundle,
  evidenceRecord,
  loadReportKey,
  recordWithExtractions,
  signedEvidence,
} from '../../src/services/report/index.js';

const TEXT =
  'It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness.';

/** The members a stored extraction is keyed and bundled by (the record is not re-measured here). */
const extraction = (textSha256: string, n: number) =>
  ({
    text_sha256: textSha256,
    record: { transcript_sha256: String(n).repeat(64) },
    blocks: [],
  }) as unknown as WorkExtractionResult;

describe('evidenceRecord', () => {
  it("joins the owner's extractions of the analysed text, and no one else's", async () => {
    const engine = await createEngine();
    const r = await engine.analyze({ content: TEXT, content_type: 'text' }, { owner: 'acme' });
    const digest = await sha256Hex(TEXT);
    await storeWorkExtraction(engine.store, 'acme', extraction(digest, 1));
    await storeWorkExtraction(engine.store, 'globex', extraction(digest, 2));
    await storeWorkExtraction(engine.store, 'acme', extraction(await sha256Hex(`${TEXT} Another.`), 3));
    const record = await evidenceRecord(engine, r.analysis_id, 'acme');
    expect(record.text_sha256).toBe(digest);
    expect(record.model_extractions?.map((x) => x.record.transcript_sha256)).toEqual(['1'.repeat(64)]);
    expect(record.catalogue_audits).toBeUndefined();
    await expect(evidenceRecord(engine, r.analysis_id, 'globex')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const { bundle } = await signedEvidence(engine, r.analysis_id, 'acme');
    const key = await loadReportKey(engine.store);
    // the digest carried and the digest computed agree
    const again = await buildEvidenceBundle({ result: record.result, text: TEXT }, { key, variant: engine.variant });
    expect(bundle.text_sha256).toBe(again.text_sha256);
    expect(bundle.model_extractions).toHaveLength(1);
    engine.dispose();
  });

  it('refuses an extraction of another text, or one with no text to bind it to', async () => {
    const engine = await createEngine();
    const r = await engine.analyze({ content: TEXT, content_type: 'text' });
    const record = await evidenceRecord(engine, r.analysis_id);
    const digest = await sha256Hex(TEXT);
    const ok = await recordWithExtractions(record, [extraction(digest, 4)]);
    expect(ok.model_extractions).toHaveLength(1);
    await expect(recordWithExtractions(record, [extraction('0'.repeat(64), 5)])).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('extraction 1 measured another text'),
    });
    await expect(recordWithExtractions({ ...record, text: null }, [extraction(digest, 6)])).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect(await recordWithExtractions(record, [])).toBe(record);
    engine.dispose();
  });
});
