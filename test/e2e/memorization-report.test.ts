/**
 * assess + report end to end over HTTP, with canaries: a holder registers a work and gets
 * canaries, embeds them in the published copy, an n-gram LM trains on six copies of it (a text
 * copied around the web) and is served on 127.0.0.1; the assessment combines extraction, probe
 * and the canary test, and its HTML report renders in headless Chromium with the evidence spans
 * visible (screenshot: test/output/memorization-report.png).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { Memorization } from '../../src/services/memorization/memorization.js';
import type { Assessment, TrackedWork } from '../../src/services/memorization/types.js';
import { createNgramHandler } from '../../src/models/ngram-server.js';
import { NgramLanguageModel } from '../../src/models/ngram.js';
import { createOpenAICompatibleModel } from '../../src/models/openai.js';
import type { TargetModel } from '../../src/models/types.js';
import { membershipSplit, serveFetchHandler, type Served } from '../fixtures/memorization/http.js';

const split = membershipSplit();
const OUT = fileURLToPath(new URL('../output/', import.meta.url));

let engine: Engine;
let mem: Memorization;
let tracked: TrackedWork;
let trained: TargetModel, untrained: TargetModel;
const servers: Served[] = [];

async function serve(lm: NgramLanguageModel, name: string): Promise<TargetModel> {
  const s = await serveFetchHandler(createNgramHandler(lm, { model: name }));
  servers.push(s);
  return createOpenAICompatibleModel({ baseUrl: `${s.url}/v1`, model: name, topLogprobs: 5 });
}

beforeAll(async () => {
  engine = await createEngine();
  mem = new Memorization(engine);
  tracked = await mem.registerWork({
    work: {
      content: split.popular.text,
      owner: 'press',
      title: 'Press report <script>alert(1)</script> & "quotes"',
      work_type: 'article',
    },
    canaries: { count: 8, words: 24 },
  });
  // the published copy carries every canary three times: twice spread through the text (after 16
  // evenly spaced lines), once in the list at its end
  const lines = split.popular.text.split('\n');
  const every = Math.floor(lines.length / 16);
  const canaryAfter = (i: number) =>
    i % every === every - 1 && i < 16 * every ? tracked.canaries[Math.floor(i / every) % 8] : null;
  const published =
    lines.map((p, i) => (canaryAfter(i) ? `${p}\n${canaryAfter(i)!.text}.` : p)).join('\n') +
    '\n' +
    tracked.canaries.map((c) => c.text).join('.\n');
  const background = split.background.slice(0, 20).map((d) => d.text);
  trained = await serve(
    NgramLanguageModel.train([...background, ...Array(6).fill(published)], { order: 4 }),
    'ngram-popular',
  );
  untrained = await serve(
    NgramLanguageModel.train([...background, ...split.other.slice(0, 6).map((d) => d.text)], { order: 4 }),
    'ngram-clean',
  );
  await mem.addReferenceSet({
    id: 'held-out',
    texts: split.reference.slice(0, 6).map((d) => d.text),
    basis: 'randomized_split',
  });
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('register-work with canaries', () => {
  it('generates and remembers canaries and controls; refuses to regenerate them', async () => {
    expect(tracked.canaries).toHaveLength(8);
    expect(tracked.controls).toHaveLength(32);
    for (const c of [...tracked.canaries, ...tracked.controls]) expect(c.text.split(' ')).toHaveLength(24);
    expect(new Set([...tracked.canaries, ...tracked.controls].map((c) => c.text)).size).toBe(40);
    expect(await mem.getTrackedWork(tracked.work_id)).toEqual(tracked);
    await expect(mem.registerWork({ work_id: tracked.work_id, canaries: { count: 2 } })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(await mem.registerWork({ work_id: tracked.work_id })).toEqual(tracked);
    const work = await engine.getWork(tracked.work_id);
    expect(work.work_hash).toBe(tracked.work_hash);
  });
});

describe('assess + report', () => {
  let a: Assessment;
  it('combines extraction, probe and canaries into factor codes and a level', async () => {
    a = await mem.assess({
      work_id: tracked.work_id,
      model: trained,
      jurisdiction: 'DE',
      extract: { prefixes: 8 },
      probe: { reference: { reference_set: 'held-out' }, chunk_tokens: 64 },
    });
    console.log(
      'assessment',
      a.level,
      a.evidence_tier,
      a.risk,
      a.factors,
      a.limitations,
      a.traps,
      a.probe?.statistics.map((s) => [s.name, s.auc, s.document_test?.p_holm]),
    );
    expect(a.model).toEqual({ id: trained.id, access: 'top_k', kb_model: null });
    expect(a.evidence_tier).toBe('confirmed');
    expect(a.factors).toEqual(
      expect.arrayContaining([
        'verbatim_extraction_verified',
        'trap_sequence_detected',
        'verbatim_memorization',
        'memorization_is_reproduction',
      ]),
    );
    expect(a.risk.modifiers).toContainEqual({ code: 'verbatim_memorization', delta: 0.3 });
    expect(a.level).toBe('critical');
    expect(a.probe!.verdict).toBe('significant');
    expect(a.traps!.detected).toBe(true);
    expect(a.traps!.canary_loss).toBeLessThan(a.traps!.control_loss);
    expect(await mem.getAssessment(a.assessment_id)).toEqual(a);

    // Canaries and controls are drawn afresh each run and are exchangeable for a model that never saw them, so the
    // trap test's p-value is uniform there: at the default trap_alpha (0.01) this assertion would fail in one run of
    // a hundred by design. A smaller alpha keeps the check (no detection without training) without the flake.
    const clean = await mem.assess({
      work_id: tracked.work_id,
      model: untrained,
      extract: { prefixes: 8 },
      trap_alpha: 1e-4,
      probe: { reference: { reference_set: 'held-out' }, chunk_tokens: 64 },
    });
    console.log(
      'clean assessment',
      clean.level,
      clean.evidence_tier,
      clean.factors,
      clean.limitations,
      clean.traps,
      clean.probe?.statistics.map((s) => [s.name, s.auc, s.document_test?.p_holm]),
    );
    expect(clean.level).toBe('none');
    expect(clean.evidence_tier).toBe('inconclusive');
    expect(clean.factors).not.toContain('verbatim_extraction_verified');
    expect(clean.factors).not.toContain('trap_sequence_detected');
    expect(clean.probe!.verdict).toBe('not_significant');
    expect(clean.limitations).toContain('jurisdiction_unspecified');
  });

  it('renders a self-contained report in headless Chromium with the evidence spans visible', async () => {
    const html = await mem.report(a.assessment_id);
    expect(html).not.toMatch(/<script|src=|href=|@import|url\(/i);
    expect(html).toContain('Press report &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;');
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, 'memorization-report.html'), html);
    const profile = mkdtempSync(join(tmpdir(), 'trainprint-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1200, height: 900 },
    });
    try {
      const page = await context.newPage();
      let external = 0;
      await page.route('**/*', (route) => {
        external++;
        return route.abort();
      });
      await page.setContent(html, { waitUntil: 'load' });
      expect(await page.title()).toContain('Press report <script>');
      expect(await page.locator('script').count()).toBe(0);
      const marks = page.locator('figure.span mark');
      const n = await marks.count();
      expect(n).toBeGreaterThanOrEqual(4);
      for (let i = 0; i < Math.min(n, 6); i++) {
        const box = await marks.nth(i).boundingBox();
        expect(box).not.toBeNull();
        expect(box!.width).toBeGreaterThan(0);
        expect(box!.height).toBeGreaterThan(0);
      }
      const first = (await marks.first().textContent()) ?? '';
      expect(first.split(/\s+/).length).toBeGreaterThanOrEqual(8);
      expect(split.popular.text).toContain(first);
      await expect(page.locator('section h2', { hasText: 'Probe against non-member text' }).count()).resolves.toBe(1);
      expect(await page.locator('svg circle').count()).toBeGreaterThan(100);
      await page.screenshot({ path: join(OUT, 'memorization-report.png'), fullPage: true });
      expect(external).toBe(0);
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
