/**
 * The work report's page (src/services/report/render-html.ts): a strip per dataset with one mark per match and a
 * boundary per section, a strip for the models linked to it, every text escaped (a title, a document id and a
 * source's text carrying markup), nothing that loads from elsewhere, the passages without the text when it is not at
 * hand, a plain text as one section, a sampled corpus's share with its interval, and what was not checked.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import {
  estimateShare,
  SAMPLING_FALSE_FOUND,
  SAMPLING_SENSITIVITY,
  SAMPLING_SENSITIVITY_WORST,
} from '../../src/corpus/share.js';
import type { AnalysisResult } from '../../src/services/analyze/types.js';
import type { AnalyzedMatch } from '../../src/services/analyze/shared-text.js';
import { FACTORS } from '../../src/services/kb/factors.js';
import { esc } from '../../src/services/memorization/report.js';
import { renderWorkReport } from '../../src/services/report/index.js';
import { analyseWork, CHAPTERS, reportEngine, WORK_TITLE } from '../fixtures/work-report.js';

/** The `<svg>` of the strip whose caption starts with `caption` (HTML as written). */
function stripOf(html: string, caption: string): string {
  const at = html.indexOf(`<figcaption>${caption}`);
  expect(at, caption).toBeGreaterThan(0);
  return html.slice(html.indexOf('<svg', at), html.indexOf('</svg>', at) + 6);
}
const count = (s: string, needle: string) => s.split(needle).length - 1;
/** Anything that would load from elsewhere: a URL in src/href/action, CSS url(), @import, a script or a frame. */
const EXTERNAL = /(?:src|href|action|xlink:href)\s*=\s*["']?\s*(?:https?:)?\/\/|url\(|@import|<script|<iframe|<link/i;

let engine: Engine;
let result: AnalysisResult;
let text: string;

beforeAll(async () => {
  engine = await reportEngine();
  result = await analyseWork(engine);
  text = result.extraction!.text!;
});

describe('renderWorkReport', () => {
  it('draws a strip per dataset with one mark per match and a boundary per section', async () => {
    const html = await renderWorkReport({ result, text });
    const strip = stripOf(html, 'Corpus <code>pg-copies</code>');
    const own = result.matches.filter((m) => m.dataset_id === 'pg-copies');
    expect(own.length).toBe(3);
    expect(count(strip, 'class="mark"')).toBe(own.length);
    expect(count(strip, 'class="edge"')).toBe(CHAPTERS.length - 1);
    for (const m of own) expect(strip).toContain(`characters ${m.query_start.toLocaleString('en-US')}–`);
    // the models linked to it share a strip, each named
    const models = new Set(result.attribution_sources.map((s) => s.model));
    expect(models.size).toBeGreaterThan(1);
    const modelStrip = stripOf(html, 'Models ');
    expect(count(modelStrip, 'class="mark"')).toBe(own.length);
    for (const m of models) expect(html).toContain(`<code>${m}</code>`);
    // per-section coverage, as the result has it
    for (const s of result.sections!) expect(html).toContain(`<td>${s.title}</td>`);
    expect(html).toContain(`${(result.sections![1].coverage['pg-copies'] * 100).toFixed(1)} %`);
  });

  it('escapes every text and loads nothing from elsewhere', async () => {
    const evil = '<img src="https://evil.example/x.png" onerror="alert(1)">';
    const remote = {
      dataset_id: 'web',
      document_id: '<b>doc</b>',
      kind: 'remote',
      query_start: 100,
      query_end: 160,
      source_start: 5,
      source_end: 65,
      tokens: 10,
      score: 1,
      reuse: 'verbatim',
      similarity: 1,
      aligned: true,
      doc_ix: 1,
      shard: 0,
      doc_length: 100,
      source_text: `ctx: ${evil}${'x'.repeat(80)}`,
      count_start: 100,
      count_end: 160,
      count: 3,
      boilerplate: false,
      metadata: null,
    } as AnalyzedMatch;
    const html = await renderWorkReport({ result: { ...result, matches: [...result.matches, remote] }, text });
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('Persuasion &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;quotes&quot;');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=&quot;https://evil.example/x.png&quot;');
    expect(html).not.toContain('<b>doc</b>');
    expect(html).not.toMatch(EXTERNAL);
    expect(WORK_TITLE).toContain('<script>');
  });

  it('shows the source side only, and says so, without the text', async () => {
    const html = await renderWorkReport({ result, text: null });
    expect(html).toContain('The analysed text was not at hand');
    const passage = text.slice(result.matches[1].query_start, result.matches[1].query_end);
    expect(html).not.toContain(passage.slice(0, 200));
    expect(await renderWorkReport({ result, text })).toContain(passage.slice(0, 200));
    expect(count(stripOf(html, 'Corpus <code>pg-copies</code>'), 'class="mark"')).toBe(3);
  });

  it('draws a plain text as one section', async () => {
    const content = `${CHAPTERS[1].text}\n\nA reader's note that follows the chapter.`;
    const r = await engine.analyze({ content, content_type: 'text' });
    const html = await renderWorkReport({ result: r, text: content });
    const strip = stripOf(html, 'Corpus <code>pg-copies</code>');
    expect(count(strip, 'class="edge"')).toBe(0);
    expect(count(strip, 'class="mark"')).toBe(r.matches.filter((m) => m.dataset_id === 'pg-copies').length);
    expect(html).not.toContain('<h3>Per section</h3>');
  });

  it("shows a sampled corpus's share with its interval, and what was not checked", async () => {
    const share = estimateShare({ passages: 40, found: 6 });
    const sampled = {
      dataset_id: 'web',
      engine: 'infini-gram' as const,
      endpoint: 'https://api.infini-gram.io/',
      index: 'v4_piletrain_llama',
      outcome: 'budget_exhausted' as const,
      message: 'the budget of 60 calls was spent',
      calls: 60,
      cached: 0,
      budget: 60,
      ms: 900,
      samples: 40,
      sampled_every: 0,
      unit: 'tokens' as const,
      documents: 0,
      matches: 0,
      transcript: { calls: 60, sha256: 'a'.repeat(64) },
      sampling: {
        method: 'stratified_passages' as const,
        passages: 40,
        passage_words: 48,
        found: 6,
        share,
        sensitivity: SAMPLING_SENSITIVITY,
        sensitivity_worst: SAMPLING_SENSITIVITY_WORST,
        false_found: SAMPLING_FALSE_FOUND,
        seed: '0123456789abcdef',
        skipped: 0,
        sections: [0, 1, 2, 3].map((section) => ({ section, passages: 10, found: section === 1 ? 6 : 0 })),
      },
    };
    const html = await renderWorkReport({ result: { ...result, remote_corpora: [sampled] }, text });
    const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
    expect(html).toContain(
      `≈ <b>${pct(share.estimate)}</b> (95 % interval ${pct(share.ci_95[0])}–${pct(share.ci_95[1])})`,
    );
    expect(html).toContain('<b>budget exhausted</b> after 60 of 60 calls — the budget of 60 calls was spent');
    for (const code of result.limitations) {
      expect(html).toContain(`<code>${code}</code>`);
      expect(html).toContain(esc(FACTORS[code as keyof typeof FACTORS].meaning));
    }
    expect(html).toContain('a'.repeat(64));
  });

  it('renders a result stored before transcripts and sections were kept', async () => {
    const { sections: _sections, ...older } = result;
    const remote = {
      dataset_id: 'web',
      engine: 'infini-gram-mini' as const,
      endpoint: 'https://api.infini-gram-mini.io/',
      index: 'v2_cc_2025-30',
      outcome: 'unreachable' as const,
      message: 'no answer',
      calls: 4,
      cached: 0,
      budget: 300,
      ms: 10_000,
      samples: 0,
      sampled_every: 0,
      unit: 'words' as const,
      documents: 0,
      matches: 0,
    };
    const html = await renderWorkReport({ result: { ...older, remote_corpora: [remote as never] }, text });
    expect(html).toContain('<dt>Transcript <code>web</code></dt><dd>none kept');
    // the sections still come from the extraction, without coverage numbers
    expect(html).toContain('<td>Chapter 2</td><td class="n">—</td>');
  });

  it('prints: passages and strips are kept whole on a page', async () => {
    const html = await renderWorkReport({ result, text });
    expect(html).toMatch(/@media print\{[^}]*@page/);
    expect(html).toMatch(/figure,tr\{break-inside:avoid\}/);
    expect(html).toMatch(/print-color-adjust:exact/);
  });
});
