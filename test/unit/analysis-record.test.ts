/**
 * The record kept beside a stored analysis (the text its spans point into) reads back as the text analysed:
 * stored as UTF-8 bytes, non-ASCII and astral characters included, and a record kept as a string (how records
 * were first stored) still reads.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { MemoryStore } from '../../src/store/index.js';

const TEXT =
  'Ünïcödé prose — with an astral 𝔘 and a CJK 漢字 — long enough to search: the quick brown fox jumps over ' +
  'the lazy dog while the river keeps running past the mill and the miller counts his sacks of flour.';

describe('the analysis record', () => {
  it('keeps the analysed text as bytes and reads it back as the same text', async () => {
    const store = new MemoryStore();
    const engine = await createEngine({ store });
    await engine.addDataset({ id: 'd' }, [{ id: 'a', text: TEXT }]);
    const r = await engine.analyze({ content: TEXT, content_type: 'text' });
    const kept = (await store.get(`analysis-record/${r.analysis_id}`)) as { utf8?: unknown };
    expect(kept.utf8).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(kept.utf8 as Uint8Array)).toBe(TEXT);
    const { result, text, transcripts } = await engine.getAnalysisRecord(r.analysis_id);
    expect(result).toEqual(r);
    expect(text).toBe(TEXT);
    expect(transcripts).toEqual({});
    // the work hash is made of the same bytes
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(TEXT)));
    expect(r.work_hash).toBe(`sha256:${Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')}`);
  });

  it('reads a record kept as a string', async () => {
    const store = new MemoryStore();
    const engine = await createEngine({ store });
    const r = await engine.analyze({ content: TEXT, content_type: 'text' });
    await store.put(`analysis-record/${r.analysis_id}`, { text: TEXT, transcripts: {} });
    expect((await engine.getAnalysisRecord(r.analysis_id)).text).toBe(TEXT);
  });
});
