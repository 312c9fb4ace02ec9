/**
 * engine.analyze end to end (src/services/analyze/): a dataset of real books linked to a knowledge-base
 * dataset, an edited excerpt found with the right document and spans, attribution sources as the
 * KB documents them, high confidence; unrelated text low with factor codes; markup input; the
 * result schema (JSON Schema, validated with Ajv) and the field reference of docs/analyze.md; bad input.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { ANALYSIS_RESULT_SCHEMA, ANALYZE_REQUEST_SCHEMA } from '../../src/services/analyze/schema.js';
import type { AnalysisResult } from '../../src/services/analyze/types.js';
import { knowledgeBase } from '../../src/services/kb/index.js';
import { passageAt, prng } from '../reference/core.js';
import { book } from '../fixtures/texts/index.js';

const BOOKS = ['austen-persuasion', 'chesterton-thursday', 'milton-paradise'];
const code = (c: string) => expect.objectContaining({ code: c });

const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)));
const validResult = ajv.compile(ANALYSIS_RESULT_SCHEMA);
const validRequest = ajv.compile(ANALYZE_REQUEST_SCHEMA);
function expectSchema(r: AnalysisResult): void {
  const json = JSON.parse(JSON.stringify(r));
  if (!validResult(json)) throw new Error(JSON.stringify(validResult.errors, null, 2));
}

/** Replace about `rate` of the words with a fixed word (seeded). */
function editWords(text: string, rate: number, seed: number): string {
  const rnd = prng(seed);
  return text.replace(/\S+/g, (w) => (rnd() < rate ? 'zebra' : w));
}

describe('analyze', () => {
  let engine: Engine;
  let unrelated: string;
  beforeAll(async () => {
    engine = await createEngine();
    await engine.addDataset(
      { id: 'pg-sample', name: 'Project Gutenberg sample', kb_dataset: 'project-gutenberg' },
      BOOKS.map((b) => ({ id: b, text: book(b) })),
    );
    unrelated = passageAt(book('shakespeare-caesar'), 20_000, 400).text;
  });

  it('finds an edited excerpt: right document and spans, KB attribution, high confidence', async () => {
    const src = book('austen-persuasion');
    const p = passageAt(src, 120_000, 160);
    const excerpt = editWords(p.text, 0.05, 3);
    const content =
      'A review quoted the novel at length:\n\n' +
      excerpt +
      '\n\nThe reviewer then moved on to other matters entirely.';
    const r = await engine.analyze({
      content,
      content_type: 'text',
      metadata: { work_type: 'book', jurisdiction: 'US' },
    });
    expectSchema(r);
    expect(r.success).toBe(true);
    expect(r.fingerprint).toBe((await engine.fingerprint(content)).fingerprint);
    // matches: the right document, spans inside the excerpt and at its place in the source
    const exact = r.matches.filter((m) => m.kind === 'exact');
    expect(exact.length).toBeGreaterThan(0);
    const at = content.indexOf(excerpt);
    for (const m of exact) {
      expect(m.document_id).toBe('austen-persuasion');
      expect(m.query_start).toBeGreaterThanOrEqual(at);
      expect(m.query_end).toBeLessThanOrEqual(at + excerpt.length);
      expect(m.source_start!).toBeGreaterThanOrEqual(p.start - 50);
      expect(m.source_end!).toBeLessThanOrEqual(p.end + 50);
    }
    const covered = exact.reduce((t, m) => t + (m.query_end - m.query_start), 0);
    expect(covered / excerpt.length).toBeGreaterThan(0.6);
    expect(r.potential_matches).toBe(1);
    // attribution: exactly the text models the KB links to Project Gutenberg
    const want = knowledgeBase()
      .modelsTrainedOn('project-gutenberg')
      .map((l) => l.model.id)
      .sort();
    expect(want.length).toBeGreaterThan(3);
    expect(r.attribution_sources.map((s) => s.model).sort()).toEqual(want);
    for (const s of r.attribution_sources) {
      expect(s).toMatchObject({ kb_dataset: 'project-gutenberg', dataset_id: 'pg-sample', link: 'kb', declared: true });
      expect(s.confidence).toBeLessThanOrEqual(100 * s.link_certainty); // 0..100, like the top-level confidence
      expect(s.confidence_ci_95[0]).toBeLessThanOrEqual(s.confidence);
      expect(s.confidence_ci_95[1]).toBeGreaterThanOrEqual(s.confidence);
      expect(s.citations.length).toBeGreaterThan(0);
    }
    expect(r.confidence).toBeGreaterThanOrEqual(80);
    expect(r.confidence_ci_95[0]).toBeLessThanOrEqual(r.confidence);
    // the top-level confidence is its best source's, on the same scale and rounding
    const first = r.attribution_sources[0];
    expect([r.confidence, r.confidence_ci_95]).toEqual([first.confidence, first.confidence_ci_95]);
    expect(r.risk_assessment.factors).toEqual(
      expect.arrayContaining([
        'verbatim_overlap',
        'long_verbatim_run',
        'declared_dataset_link',
        'fair_use_case_by_case',
        'public_domain_source',
      ]),
    );
    // Project Gutenberg's texts are public domain in the USA: the risk of using the text, not of infringing it, and
    // no licensing revenue rests on it
    expect(r.risk_assessment.level).toBe('low');
    expect(r.risk_assessment.modifiers).toContainEqual({ code: 'public_domain_source', delta: -1 });
    expect(r.estimated_revenue.basis).toMatchObject({ method: 'per_title_36m', providers: [] });
    expect(r.estimated_revenue.monthly).toBe(0);
    expect(r.limitations).toEqual(
      expect.arrayContaining(['reference_sample_only', 'paraphrase_not_detectable', 'calibrated_on_development_data']),
    );
    // the same copy in a dataset of books under copyright (declared BookCorpus): risk and revenue as the tables say —
    // a book, per title over 36 months, one term per provider
    const copyrighted = await createEngine();
    await copyrighted.addDataset({ id: 'books', kb_dataset: 'bookcorpus' }, [{ id: 'austen-persuasion', text: src }]);
    const c = await copyrighted.analyze({
      content,
      content_type: 'text',
      metadata: { work_type: 'book', jurisdiction: 'US' },
    });
    expect(['medium', 'high', 'critical']).toContain(c.risk_assessment.level);
    expect(c.risk_assessment.factors).not.toContain('public_domain_source');
    const providers = new Set(c.attribution_sources.map((s) => s.provider));
    expect(providers.size).toBeGreaterThan(0);
    expect(c.estimated_revenue.currency).toBe('USD');
    expect(c.estimated_revenue.basis).toMatchObject({
      method: 'per_title_36m',
      deal_ids: [9],
      quantity: 1,
      term_months: 36,
    });
    expect(c.estimated_revenue.basis.providers.length).toBe(providers.size);
    const mid = c.estimated_revenue.basis.providers.reduce((t, p) => t + p.p_used[1] * 3750, 0) / 36;
    expect(c.estimated_revenue.monthly).toBeCloseTo(mid, 1);
    expect(c.estimated_revenue.basis.low!).toBeLessThanOrEqual(c.estimated_revenue.monthly!);
    expect(c.estimated_revenue.basis.high!).toBeGreaterThanOrEqual(c.estimated_revenue.monthly!);
    copyrighted.dispose();
    // evidence explains the numbers
    const ev = r.evidence.datasets.find((d) => d.dataset_id === 'pg-sample')!;
    expect(ev.strength).toBeGreaterThan(10);
    const best = ev.confidence * Math.max(...r.attribution_sources.map((s) => s.link_certainty));
    expect(Math.max(...r.attribution_sources.map((s) => s.confidence))).toBeCloseTo(100 * best, 0);
    // stored
    expect(await engine.getAnalysis(r.analysis_id)).toEqual(r);
  });

  it('gives unrelated real text low confidence and says why', async () => {
    const r = await engine.analyze({ content: unrelated, content_type: 'text' });
    expectSchema(r);
    expect(r.matches).toEqual([]);
    expect(r.potential_matches).toBe(0);
    expect(r.attribution_sources).toEqual([]);
    expect(r.confidence).toBe(0);
    expect(r.risk_assessment.level).toBe('none');
    expect(r.estimated_revenue.monthly).toBe(0);
    expect(r.limitations).toEqual(
      expect.arrayContaining(['no_indexed_dataset_match', 'reference_sample_only', 'jurisdiction_unspecified']),
    );
    const ev = r.evidence.datasets[0];
    expect(ev.confidence).toBeLessThan(0.25);
    expect(ev.chance).toBeGreaterThan(0.01);
  });

  it('reads markdown and html, with spans into the original content', async () => {
    const p = passageAt(book('chesterton-thursday'), 80_000, 120).text;
    const words = p.split(/\s+/);
    const md = `# A heading\n\nSome *intro* text.\n\n> ${words.slice(0, 60).join(' ')} **${words.slice(60).join(' ')}**\n\n[link](https://example.org)`;
    const html = `<html><head><style>p{}</style></head><body><p>Intro &amp; more.</p><blockquote>${words.slice(0, 60).join(' ')} <em>${words.slice(60).join(' ')}</em></blockquote></body></html>`;
    for (const [content, content_type] of [
      [md, 'markdown'],
      [html, 'html'],
    ] as const) {
      const r = await engine.analyze({ content, content_type });
      expectSchema(r);
      expect(r.content_type).toBe(content_type);
      const m = r.matches.find((x) => x.kind === 'exact')!;
      expect(m.document_id).toBe('chesterton-thursday');
      const quoted = content.slice(m.query_start, m.query_end);
      expect(quoted.length).toBeGreaterThan(200);
      // the span is original markup text: it starts and ends with words of the passage
      expect(p).toContain(quoted.split(/\s+/)[0].replace(/[*<].*$/, ''));
      expect(r.confidence).toBeGreaterThan(50);
    }
  });

  it('declared models, opt-out, jurisdictions and the EU layer move the risk as the table says', async () => {
    const e = await createEngine();
    await e.addDataset({ id: 'mine', models: ['eleutherai/pythia-6.9b'] }, [
      { id: 'a', text: book('milton-paradise') },
    ]);
    const content = passageAt(book('milton-paradise'), 50_000, 200).text;
    const us = await e.analyze({
      content,
      content_type: 'text',
      metadata: { jurisdiction: 'US', work_type: 'article' },
    });
    const de = await e.analyze({
      content,
      content_type: 'text',
      metadata: { jurisdiction: 'de', work_type: 'article', declarations: { tdm_opt_out: true, since: '2020-01-01' } },
    });
    expectSchema(us);
    expect(us.attribution_sources).toEqual([
      expect.objectContaining({
        model: 'eleutherai/pythia-6.9b',
        link: 'declared',
        disclosure: 'declared',
        link_certainty: 1,
      }),
    ]);
    expect(us.risk_assessment.base_weight).toBe(0.45);
    expect(de.risk_assessment.jurisdiction).toBe('DE');
    expect(de.risk_assessment.base_weight).toBe(0.55);
    expect(de.risk_assessment.modifiers).toEqual(
      expect.arrayContaining([
        { code: 'tdm_opt_out_declared', delta: 0.2 },
        { code: 'licensing_market_exists', delta: 0.05 },
      ]),
    );
    expect(de.risk_assessment.factors).toEqual(
      expect.arrayContaining(['tdm_exception_with_opt_out', 'memorization_is_reproduction', 'tdm_opt_out_declared']),
    );
    expect(de.risk_assessment.score).toBeGreaterThan(us.risk_assessment.score);
    // an opt-out declared after every linked model's release did not apply to them
    const late = await e.analyze({
      content,
      content_type: 'text',
      metadata: { declarations: { tdm_opt_out: true, since: '2030-01-01' } },
    });
    expect(late.limitations).toContain('opt_out_after_model_release');
    expect(late.risk_assessment.modifiers.map((m) => m.code)).not.toContain('tdm_opt_out_declared');
    // per-word revenue for an article: P(used) × $0.001 × words / 36
    expect(us.estimated_revenue.basis).toMatchObject({ method: 'per_word_amortised', deal_ids: [17], unit: 'word' });
    const pUsed = us.estimated_revenue.basis.providers[0].p_used[1]; // the source's confidence as a probability
    expect(pUsed * 100).toBeCloseTo(us.attribution_sources[0].confidence, 1);
    expect(us.estimated_revenue.monthly).toBeCloseTo((pUsed * 0.001 * us.tokens) / 36, 2);
    expect(us.limitations).toContain('low_confidence_rate');
    // code has no market anchor
    const c = await e.analyze({
      content: 'const a = 1;\nfunction f() {\n  return a;\n}\nexport { f };\n',
      content_type: 'text',
    });
    expect(c.estimated_revenue.monthly).toBeNull();
    expect(c.limitations).toEqual(expect.arrayContaining(['no_market_anchor', 'short_text_low_power']));
  });

  it('starts with no datasets: says so, never invents a link', async () => {
    const e = await createEngine();
    const r = await e.analyze({ content: unrelated, content_type: 'text' });
    expectSchema(r);
    expect(r.confidence).toBe(0);
    expect(r.evidence.datasets).toEqual([]);
    expect(r.limitations).toContain('no_datasets_loaded');
  });

  it('refuses bad input with clear codes', async () => {
    const bad: Array<[unknown, string]> = [
      [undefined, 'INVALID_INPUT'],
      [{ content_type: 'text' }, 'INVALID_INPUT'],
      [{ content: '', content_type: 'text' }, 'INVALID_INPUT'],
      [{ content: '   \n', content_type: 'text' }, 'INVALID_INPUT'],
      [{ content: 42, content_type: 'text' }, 'INVALID_INPUT'],
      [{ content: 'x', content_type: 'rtf' }, 'INVALID_INPUT'],
      [{ content: 'x' }, 'INVALID_INPUT'],
      [{ content: 'x', content_type: 'text', extra: 1 }, 'INVALID_INPUT'],
      [{ content: 'x', content_type: 'text', metadata: { work_type: 'poem' } }, 'INVALID_INPUT'],
      [{ content: 'x', content_type: 'text', metadata: { jurisdiction: 'EU-DE' } }, 'INVALID_INPUT'],
      [{ content: 'x', content_type: 'text', metadata: { jurisdiction: 'USA' } }, 'INVALID_INPUT'],
      [{ content: 'x', content_type: 'text', metadata: { declarations: { since: 'yesterday' } } }, 'INVALID_INPUT'],
      [{ content: 'x', content_type: 'text', metadata: { declarations: { tdm_opt_out: 'yes' } } }, 'INVALID_INPUT'],
      [{ content: 'x'.repeat(10 * 1024 * 1024 + 1), content_type: 'text' }, 'PAYLOAD_TOO_LARGE'],
      [{ content: 'é'.repeat(5 * 1024 * 1024 + 1), content_type: 'text' }, 'PAYLOAD_TOO_LARGE'],
    ];
    for (const [req, c] of bad)
      await expect(engine.analyze(req as never), JSON.stringify(req)?.slice(0, 80)).rejects.toEqual(code(c));
    const unknownType = await engine
      .analyze({ content: 'x', content_type: 'rtf' } as never)
      .catch((e: Error) => e.message);
    expect(unknownType).toContain('"text", "markdown", "html", "epub", "pdf", "docx"');
    // every bad option is INVALID_OPTIONS naming it, never a TypeError from inside
    const badOptions: unknown[] = [
      null,
      'fast',
      [],
      { prior: 1 },
      { prior: '0.5' },
      { sliceMs: '3' },
      { sliceMs: -1 },
      { sliceMs: Number.NaN },
      { signal: 'stop' },
      { signal: {} },
      { signal: null },
      { remote: 'no' },
      { offload: {} },
      { offload: null },
      { owner: 42 },
      { owner: '' },
      { datasets: 'all' },
      { candidates: -1 },
      { alignBudgetMs: '2s' },
      { colour: 'blue' },
    ];
    for (const o of badOptions)
      await expect(
        engine.analyze({ content: 'some text', content_type: 'text' }, o as never),
        JSON.stringify(o),
      ).rejects.toEqual(code('INVALID_OPTIONS'));
    await expect(engine.getAnalysis('an_nope')).rejects.toEqual(code('NOT_FOUND'));
    // the request schema agrees with the validation on shape
    expect(validRequest({ content: 'x', content_type: 'text', metadata: { jurisdiction: 'US-CA' } })).toBe(true);
    expect(validRequest({ content: 'x', content_type: 'rtf' })).toBe(false);
  });

  it('declareDataset: a loaded dataset gains (and loses) its declared KB link; the file keeps it', async () => {
    const e = await createEngine();
    await e.addDataset({ id: 'plain' }, [{ id: 'm', text: book('milton-paradise') }]);
    const content = passageAt(book('milton-paradise'), 90_000, 150).text;
    expect((await e.analyze({ content, content_type: 'text' })).attribution_sources).toEqual([]);
    e.declareDataset('plain', { kb_dataset: 'PG-19' });
    const r = await e.analyze({ content, content_type: 'text' });
    expect(r.attribution_sources.length).toBeGreaterThan(3);
    expect(r.attribution_sources.every((x) => x.kb_dataset === 'project-gutenberg' && x.declared)).toBe(true);
    const fresh = await createEngine();
    await fresh.importDataset(e.exportDataset('plain'));
    expect(fresh.corpus.descriptor('plain').kb_dataset).toBe('project-gutenberg');
    e.declareDataset('plain', { kb_dataset: null, models: ['EleutherAI/pythia-6.9b'] });
    expect(e.corpus.descriptor('plain')).toMatchObject({ models: ['eleutherai/pythia-6.9b'] });
    expect(e.corpus.descriptor('plain').kb_dataset).toBeUndefined();
    expect(() => e.declareDataset('plain', { kb_dataset: 'nope' })).toThrow(code('NOT_FOUND'));
    expect(() => e.declareDataset('nope', { kb_dataset: 'c4' })).toThrow(code('NOT_FOUND'));
    expect(() => e.declareDataset('plain', { other: 1 } as never)).toThrow(code('INVALID_INPUT'));
  });

  it('refuses unknown knowledge-base ids in dataset declarations', async () => {
    const e = await createEngine();
    await expect(e.addDataset({ id: 'x', kb_dataset: 'no-such-set' }, [])).rejects.toEqual(code('NOT_FOUND'));
    await expect(e.addDataset({ id: 'y', models: ['acme/unknown-model'] }, [])).rejects.toEqual(code('NOT_FOUND'));
  });

  it('documents every result field in docs/analyze.md', () => {
    const readme = readFileSync(new URL('../../docs/analyze.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## The analyze result'));
    const fields = new Set<string>();
    const walk = (schema: Record<string, unknown>, path: string) => {
      const props = schema.properties as Record<string, Record<string, unknown>> | undefined;
      if (props)
        for (const [k, v] of Object.entries(props)) {
          fields.add(path + k);
          walk(v, `${path}${k}.`);
        }
      const items = schema.items as Record<string, unknown> | undefined;
      if (items && typeof items === 'object') walk(items, path.replace(/\.$/, '[].'));
      const add = schema.additionalProperties as Record<string, unknown> | undefined;
      if (add && typeof add === 'object') walk(add, path.replace(/\.$/, '.<id>.'));
    };
    walk(ANALYSIS_RESULT_SCHEMA as unknown as Record<string, unknown>, '');
    const missing = [...fields].filter((f) => !section.includes('`' + f + '`'));
    expect(missing).toEqual([]);
  });
});
