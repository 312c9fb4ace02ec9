/**
 * The sampled search of a 14,000-word work (a novella's length: its passages about 1,000 characters apart) against
 * the fixture infini-gram engine holding its first half, in documents of 600 characters (a paragraph each) and in one
 * document of 500,000 characters, hard-wrapped: every found passage is verified where its document holds it (however
 * close the next passage lies, however short or long the document), and the share's interval covers the truth.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTokenIndex, startInfiniGramServer, type InfiniGramServer } from '../fixtures/infini-gram/index.mjs';
import { createEngine } from '../../src/index.js';
import { resetEndpoints, sharedCache } from '../../src/remote/index.js';
import { estimateShare } from '../../src/corpus/share.js';
import { DETECTION_DESIGN_EFFECT } from '../../src/remote/sampling.js';

const RAW = readFileSync(new URL('../fixtures/texts/gutenberg/austen-persuasion.txt', import.meta.url), 'utf8');
const count = (t: string) => (t.match(/\S+/g) ?? []).length;
/** The work: Persuasion's first 14,000 words or so, a paragraph a line. */
const PARAGRAPHS = (() => {
  const all = RAW.replace(/\r/g, '')
    .split(/\n{2,}/)
    .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
    .filter((p) => count(p) >= 8);
  const out: string[] = [];
  let n = 0;
  for (const p of all) {
    if (n >= 14_000) break;
    out.push(p);
    n += count(p);
  }
  return out;
})();
const WORK = PARAGRAPHS.join('\n\n');
/** The corpus holds the words of the work's first half (by characters: the search's first five strata). */
const HALF = WORK.lastIndexOf(' ', WORK.length / 2);
const HELD = WORK.slice(0, HALF);
const TRUTH = count(HELD) / count(WORK);
const wrap70 = (p: string) => p.replace(/(.{1,70})(?: |$)/g, '$1\n').trim();
const HELD_WRAPPED = HELD.split('\n\n').map(wrap70).join('\n\n');
const CAESAR = readFileSync(new URL('../fixtures/texts/gutenberg/shakespeare-caesar.txt', import.meta.url), 'utf8');

/** A text cut into documents of about `chars` characters at a space. */
function cut(text: string, chars: number): Array<{ text: string }> {
  const out: Array<{ text: string }> = [];
  for (let s = 0; s < text.length; ) {
    let e = Math.min(text.length, s + chars);
    if (e < text.length) e = Math.max(s + 1, text.lastIndexOf(' ', e) + 1);
    out.push({ text: text.slice(s, e) });
    s = e;
  }
  return out;
}

const QUICK = { retryBaseMs: 5, maxRetryDelayMs: 2000, ratePerSecond: 100_000 } as const;

describe('a short work against documents of any length: verified where the passage is', () => {
  let server: InfiniGramServer;
  beforeAll(async () => {
    const filler = cut(CAESAR, 15_000);
    // one document of 500,000 characters: other text, the held half, other text
    const other = CAESAR.repeat(4);
    const before = other.slice(0, 100_000);
    const long = `${before}\n\n${HELD_WRAPPED}\n\n${other.slice(100_000)}`.slice(0, 500_000);
    server = await startInfiniGramServer({
      kind: 'infini-gram',
      indexes: {
        short: buildTokenIndex({ documents: [...filler, ...cut(HELD_WRAPPED, 600)], tokenizer: 'llama' }),
        long: buildTokenIndex({ documents: [...filler, { text: long }], tokenizer: 'llama' }),
      },
    });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  for (const index of ['short', 'long'] as const) {
    it(`documents of ${index === 'short' ? '600' : '500,000'} characters: the found passages verified, the interval covers the truth`, async () => {
      sharedCache.clear();
      resetEndpoints();
      const engine = await createEngine({
        remoteCorpora: [{ id: 'remote', kind: 'infini-gram', endpoint: server.url, index, ...QUICK }],
      });
      try {
        const r = await engine.analyze({ content: WORK, content_type: 'text' });
        const report = r.remote_corpora[0];
        expect(report.outcome).toBe('searched');
        expect(report.calls).toBeLessThanOrEqual(400);
        const s = report.sampling!;
        const docs = s.documents!;
        expect(docs.fetched).toBeGreaterThan(20);
        // passages ~1,000 characters apart in one document each verified against their own place (before: about half)
        expect(docs.verified / docs.fetched).toBeGreaterThanOrEqual(0.9);
        expect(docs.contradicted).toBe(0);
        expect(docs.unchecked).toBe(docs.fetched - docs.verified - docs.contradicted - (docs.refuted ?? 0));
        expect(s.share.ci_95[0]).toBeLessThanOrEqual(TRUTH);
        expect(s.share.ci_95[1]).toBeGreaterThanOrEqual(TRUTH);
        expect(Math.abs(s.share.estimate - TRUTH)).toBeLessThanOrEqual(0.12);
        expect(s.share.ci_rule).toBe('joint');
        expect({ estimate: s.share.estimate, ci_95: s.share.ci_95 }).toEqual(
          estimateShare({
            passages: s.passages,
            found: s.found,
            sensitivity: s.sensitivity,
            sensitivityWorst: s.sensitivity_worst,
            falseFound: s.false_found,
            fetched: docs.fetched,
            verified: docs.verified,
            unchecked: docs.unchecked,
            detectionDesignEffect: DETECTION_DESIGN_EFFECT,
            detection: s.detection,
          }),
        );
      } finally {
        engine.dispose();
      }
    }, 120_000);
  }
});
