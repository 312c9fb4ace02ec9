/**
 * Remote corpora against a real engine: the fixture server (test/fixtures/infini-gram) speaks the infini-gram and
 * infini-gram mini APIs over suffix-array indexes of committed public-domain text, on 127.0.0.1. Planted passages
 * of the indexed text must be found with exact spans, clean text must not match, and every failure of the engine
 * must end as a factor code, never as a throw or a silent "no evidence".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildCharIndex,
  buildTokenIndex,
  cleanTexts,
  fixtureCorpus,
  plantedCases,
  startInfiniGramServer,
  type CharIndex,
  type Fault,
  type InfiniGramServer,
  type PlantedCase,
  type TokenIndex,
} from '../fixtures/infini-gram/index.mjs';
import {
  createEngine,
  TrainprintError,
  type AnalysisResult,
  type Engine,
  type RemoteDatasetConfig,
  type RemoteMatch,
} from '../../src/index.js';
import { resetEndpoints, sharedCache } from '../../src/remote/index.js';

/**
 * The time limit of the tests that run tens of analyses or a thousand requests (75-95 s on a 2-core machine at load
 * 60; past the default 120 s at load 40 beside two CPU burners): a bound that catches a hang, not a speed to keep.
 */
const HEAVY_MS = 600_000;

let documents: ReturnType<typeof fixtureCorpus>['documents'];
let tokens: TokenIndex;
let chars: CharIndex;

beforeAll(() => {
  documents = fixtureCorpus().documents;
  tokens = buildTokenIndex({ documents, tokenizer: 'llama' });
  chars = buildCharIndex({ documents });
});

/** Fast retries for the tests (the defaults wait up to seconds). */
const QUICK = { retryBaseMs: 5, maxRetryDelayMs: 2000, ratePerSecond: 100_000 } as const;

async function engineWith(
  config: Partial<RemoteDatasetConfig> & Pick<RemoteDatasetConfig, 'endpoint' | 'kind' | 'index'>,
): Promise<Engine> {
  sharedCache.clear();
  resetEndpoints();
  return createEngine({ remoteCorpora: [{ id: 'remote', ...QUICK, ...config }] });
}

/** The remote match that reports the planted passage: right document, spans within 5 % of the passage. */
function foundExactly(r: AnalysisResult, c: PlantedCase): RemoteMatch | undefined {
  const len = c.passage.end - c.passage.start;
  return r.matches.find((m): m is RemoteMatch => {
    if (m.kind !== 'remote' || m.doc_ix !== c.source.doc_ix) return false;
    const overlap = Math.min(m.query_end, c.passage.end) - Math.max(m.query_start, c.passage.start);
    return overlap >= 0.95 * len && m.query_end - m.query_start <= 1.05 * len;
  });
}

/** A local text of the caller's, to show the local results survive a remote corpus's failure. */
const LOCAL_MEMO =
  'Minutes of the orchard committee: the pruning of the old pear trees is postponed until the frost has passed, the cider press is to be repaired by the blacksmith before the harvest, and the accounts of the spring fair are to be read aloud at the next meeting in the village hall.';

const remoteMatches = (r: AnalysisResult) => r.matches.filter((m): m is RemoteMatch => m.kind === 'remote');

describe('infini-gram (token-level): planted passages and clean texts', () => {
  let server: InfiniGramServer;
  let engine: Engine;
  beforeAll(async () => {
    server = await startInfiniGramServer({ kind: 'infini-gram', indexes: { v4_piletrain_llama: tokens } });
    engine = await engineWith({ kind: 'infini-gram', index: 'v4_piletrain_llama', endpoint: server.url });
  });
  afterAll(async () => {
    engine?.dispose();
    await server?.close();
  });

  for (const editEvery of [0, 20]) {
    it(`finds ≥ 95 % of 60-word passages${editEvery ? ' with every 20th word changed' : ''} with exact spans, ≤ 250 calls each`, {
      timeout: HEAVY_MS,
    }, async () => {
      const cases = plantedCases({ seed: 11 + editEvery, count: 20, editEvery });
      let found = 0;
      for (const c of cases) {
        // quotations counted: the passage is planted at a random place, sometimes inside the host text's own
        // quotation marks, where analyze reports it as a quotation and leaves it out of the headline by default
        const r = await engine.analyze({ content: c.text, content_type: 'text', quotations: 'count' });
        const report = r.remote_corpora[0];
        expect(report.outcome).toBe('searched');
        expect(report.calls).toBeLessThanOrEqual(250);
        const m = foundExactly(r, c);
        if (!m) continue;
        found++;
        // the source span is the passage in the returned text, which is the document's text
        expect(documents[m.doc_ix].text).toContain(m.source_text.trim());
        const sourceSpan = m.source_text.slice(m.source_start, m.source_end);
        expect(documents[m.doc_ix].text).toContain(sourceSpan);
        if (!editEvery) expect(sourceSpan.split(/\s+/)).toEqual(c.text.slice(m.query_start, m.query_end).split(/\s+/));
        // every 20th word edited keeps 95 % of the words in shared runs: verbatim by the reuse rule, or edited
        expect(editEvery ? ['verbatim', 'edited'] : ['verbatim']).toContain(m.reuse);
        expect(m.count).toBeGreaterThanOrEqual(1);
        expect(r.risk_assessment.factors).toContain('remote_corpus_match');
        expect(r.corpus_evidence.strongest?.kind).toBe('remote');
      }
      expect(found / cases.length).toBeGreaterThanOrEqual(0.95);
    });
  }

  it('reports no match in 30 clean 2,000-word texts (≤ 1 allowed)', { timeout: HEAVY_MS }, async () => {
    let falseMatches = 0;
    for (const text of cleanTexts({ seed: 5, count: 30 })) {
      const r = await engine.analyze({ content: text, content_type: 'text' });
      expect(r.remote_corpora[0].outcome).toBe('searched');
      falseMatches += remoteMatches(r).length;
      expect(r.limitations).not.toContain('remote_corpus_unreachable');
    }
    expect(falseMatches).toBeLessThanOrEqual(1);
  });

  it('links a match to the models of the Pile, through the component the document names (Books3: pirated)', async () => {
    // the fixture labels Persuasion's documents 'Books3'
    const c = plantedCases({ seed: 3, count: 40 }).find((x) =>
      JSON.stringify(documents[x.source.doc_ix].metadata).includes('Books3'),
    )!;
    const r = await engine.analyze({ content: c.text, content_type: 'text', metadata: { jurisdiction: 'US' } });
    const m = foundExactly(r, c)!;
    expect(m.metadata).toMatchObject({ metadata: { meta: { pile_set_name: 'Books3' } } });
    const models = r.attribution_sources.map((s) => s.model);
    expect(models).toEqual(
      expect.arrayContaining(['eleutherai/pythia-6.9b', 'eleutherai/gpt-j-6b', 'eleutherai/gpt-neox-20b']),
    );
    expect(models).not.toContain('stabilityai/stablelm-3b-4e1t'); // "The Pile (without Books3)"
    const pythia = r.attribution_sources.find((s) => s.model === 'eleutherai/pythia-6.9b')!;
    expect(pythia).toMatchObject({ kb_dataset: 'books3', link: 'kb', declared: false, dataset_id: 'remote' });
    expect(pythia.training_dataset).toBe('Books3 (The Pile)');
    expect(r.risk_assessment.factors).toEqual(
      expect.arrayContaining(['remote_corpus_component', 'pirated_source_dataset']),
    );
    expect(r.risk_assessment.factors).not.toContain('declared_dataset_link');
    expect(r.confidence).toBeGreaterThan(50);
  });

  it('a second analysis of the same text is answered from the cache: no calls', async () => {
    const c = plantedCases({ seed: 4, count: 1 })[0];
    const first = await engine.analyze({ content: c.text, content_type: 'text' });
    const calls = server.calls.length;
    const second = await engine.analyze({ content: c.text, content_type: 'text' });
    expect(server.calls.length).toBe(calls);
    expect(second.remote_corpora[0]).toMatchObject({
      calls: 0,
      cached: first.remote_corpora[0].calls + first.remote_corpora[0].cached,
      outcome: 'searched',
    });
    expect(second.matches).toEqual(first.matches);
  });

  it('stays within 400 calls (the default budget, any length) for a 10,000-word text and finds its passages', async () => {
    const cases = plantedCases({ seed: 21, count: 5 });
    let text = '';
    const planted: Array<{ start: number; end: number }> = [];
    for (const c of cases) {
      planted.push({ start: text.length + c.passage.start, end: text.length + c.passage.end });
      text += `${c.text}\n\n`;
    }
    const r = await engine.analyze({ content: text, content_type: 'text' });
    expect(r.remote_corpora[0].calls).toBeLessThanOrEqual(400);
    for (const p of planted)
      expect(remoteMatches(r).some((m) => m.query_start <= p.start + 20 && m.query_end >= p.end - 20)).toBe(true);
  });

  it('sends nothing when the request or the options keep the text here', async () => {
    const c = plantedCases({ seed: 6, count: 1 })[0];
    const calls = server.calls.length;
    const a = await engine.analyze({ content: `${c.text} once`, content_type: 'text', search_remote: false });
    const b = await engine.analyze({ content: `${c.text} twice`, content_type: 'text' }, { remote: false });
    expect(server.calls.length).toBe(calls);
    expect(a.remote_corpora).toEqual([]);
    expect(b.remote_corpora).toEqual([]);
  });

  it('refuses a synchronous search of a remote corpus (NOT_SUPPORTED) and leaves it out with remote: false', async () => {
    expect(() => engine.search('some text')).toThrow(expect.objectContaining({ code: 'NOT_SUPPORTED' }));
    expect(engine.search('some text', { remote: false }).matches).toEqual([]);
    const found = await engine.searchAsync(plantedCases({ seed: 7, count: 1 })[0].text);
    expect(found.remote?.[0].outcome).toBe('searched');
    expect(found.matches.some((m) => m.kind === 'remote')).toBe(true);
  });

  it('refuses data operations on a remote corpus with NOT_SUPPORTED, and lists it among the datasets', () => {
    for (const op of [
      () => engine.exportDataset('remote'),
      () => engine.finalizeDataset('remote'),
      () => engine.documentText('remote', '1'),
      () => engine.declareDataset('remote', { kb_dataset: 'c4' }),
    ]) {
      expect(op).toThrow(expect.objectContaining({ code: 'NOT_SUPPORTED' }));
    }
    const stats = engine.datasets().find((d) => d.id === 'remote')!;
    expect(stats).toMatchObject({
      kind: 'remote',
      kb_dataset: 'the-pile',
      remote: { engine: 'infini-gram', index: 'v4_piletrain_llama', declared: false },
    });
    expect(stats.documents).toBeGreaterThan(1e8); // the public index's published size
  });
});

describe('infini-gram with byte-level (GPT-2 style) tokens', () => {
  it('maps Ġ tokens and finds planted passages', { timeout: HEAVY_MS }, async () => {
    const gpt2 = buildTokenIndex({ documents, tokenizer: 'gpt2' });
    const server = await startInfiniGramServer({ kind: 'infini-gram', indexes: { fixture_gpt2: gpt2 } });
    const engine = await engineWith({
      kind: 'infini-gram',
      index: 'fixture_gpt2',
      endpoint: server.url,
      kb_dataset: 'the-pile',
    });
    try {
      const cases = plantedCases({ seed: 8, count: 8, editEvery: 20 });
      let found = 0;
      for (const c of cases)
        if (foundExactly(await engine.analyze({ content: c.text, content_type: 'text' }), c)) found++;
      expect(found).toBeGreaterThanOrEqual(7);
      // a self-hosted index with a declared corpus: the link is the caller's declaration
      const r = await engine.analyze({ content: cases[0].text, content_type: 'text' });
      expect(r.attribution_sources[0].declared).toBe(true);
    } finally {
      engine.dispose();
      await server.close();
    }
  });
});

describe('infini-gram mini (character-level)', () => {
  let server: InfiniGramServer;
  let engine: Engine;
  beforeAll(async () => {
    server = await startInfiniGramServer({ kind: 'infini-gram-mini', indexes: { v2_piletrain: chars } });
    engine = await engineWith({ kind: 'infini-gram-mini', index: 'v2_piletrain', endpoint: server.url });
  });
  afterAll(async () => {
    engine?.dispose();
    await server?.close();
  });

  /** `text` analyzed on an engine whose calls take 150 ms each, with a 2.5 s deadline: a search cut short. */
  async function analyzeSlowly(text: string) {
    server.setLatency(150);
    const slow = await engineWith({
      kind: 'infini-gram-mini',
      index: 'v2_piletrain',
      endpoint: server.url,
      deadlineMs: 2500,
    });
    try {
      return await slow.analyze({ content: text, content_type: 'text' });
    } finally {
      slow.dispose();
      server.setLatency(0);
    }
  }

  it('a slow engine cut by the deadline: the tiles asked are spread over the text, so a copy at its end is found', async () => {
    // 150 ms a call: sampling stops at 70 % of the deadline with about half the tiles asked. Asked in the text's order
    // they never reached the planted passage at the end, and the analysis read the end of the text as clean
    const [c] = plantedCases({ seed: 48, count: 1 });
    const passage = c.text.slice(c.passage.start, c.passage.end);
    const text = `${c.text.slice(0, c.passage.start)}${c.text.slice(c.passage.end)} ${passage}`;
    const r = await analyzeSlowly(text);
    expect(r.remote_corpora[0].outcome).toBe('deadline_reached');
    const m = remoteMatches(r).find((x) => x.doc_ix === c.source.doc_ix);
    expect(m, 'the planted passage at the end, found before the deadline').toBeDefined();
    expect(m!.query_end).toBeGreaterThan(text.length - passage.length);
  });

  it('a slow engine cut by the deadline: the report says how far apart the tiles it asked lie, not the spacing planned', async () => {
    // uncut, 2,000 words are tiled every 11 words (full coverage: a copy of 23 words or more is found); cut at about half
    // the tiles, the text between them was asked every 22–44 words, where a shorter copy is missed: that is said
    // (sampled_every, remote_corpus_sampled), not the planned 11 of a search that covered the text
    const [text] = cleanTexts({ seed: 61, count: 1 });
    const uncut = await engine.analyze({ content: text, content_type: 'text' });
    expect(uncut.remote_corpora[0].outcome).toBe('searched');
    expect(uncut.remote_corpora[0].sampled_every).toBe(11);
    expect(uncut.limitations).not.toContain('remote_corpus_sampled');
    const r = await analyzeSlowly(text);
    const report = r.remote_corpora[0];
    expect(report.outcome).toBe('deadline_reached');
    expect(report.samples).toBeLessThan(uncut.remote_corpora[0].samples);
    expect(report.sampled_every).toBeGreaterThanOrEqual(22);
    expect(r.limitations).toContain('remote_corpus_sampled');
  });

  it('finds planted passages (verbatim and edited) with exact spans within 250 calls, and nothing in clean text', {
    timeout: HEAVY_MS,
  }, async () => {
    let found = 0,
      total = 0;
    for (const editEvery of [0, 20]) {
      for (const c of plantedCases({ seed: 31 + editEvery, count: 10, editEvery })) {
        const r = await engine.analyze({ content: c.text, content_type: 'text' });
        expect(r.remote_corpora[0]).toMatchObject({ outcome: 'searched', unit: 'words' });
        expect(r.remote_corpora[0].calls).toBeLessThanOrEqual(250);
        total++;
        if (foundExactly(r, c)) found++;
      }
    }
    expect(found / total).toBeGreaterThanOrEqual(0.95);
    let falseMatches = 0;
    for (const text of cleanTexts({ seed: 9, count: 10 }))
      falseMatches += remoteMatches(await engine.analyze({ content: text, content_type: 'text' })).length;
    expect(falseMatches).toBe(0);
  });

  it('gets windows cut inside a multi-byte character again, one byte shorter', async () => {
    // the server's refusal of a window that cuts a UTF-8 character, for every even max_ctx_len
    const cut =
      'Failed to decode document text with UTF-8. This is likely because the context was cut off in the middle of a multi-byte char. Please try with a different max context length.';
    const asked: number[] = [];
    server.setFault((({ body }: { body: { query_type?: string; max_ctx_len?: number } }) => {
      if (body?.query_type !== 'get_doc_by_rank') return undefined;
      asked.push(body.max_ctx_len!);
      return body.max_ctx_len! % 2 === 0 ? { status: 200, body: { error: cut } } : undefined;
    }) as never);
    sharedCache.clear();
    const c = plantedCases({ seed: 12, count: 1 })[0];
    const r = await engine.analyze({ content: c.text, content_type: 'text' });
    server.setFault(undefined as never);
    expect(r.remote_corpora[0].outcome).toBe('searched');
    expect(foundExactly(r, c)).toBeDefined();
    if (asked[0] % 2 === 0) expect(asked[1]).toBe(asked[0] - 1);
  });
});

describe('faults: every failure is a factor code, never a throw', () => {
  let server: InfiniGramServer;
  beforeAll(async () => {
    server = await startInfiniGramServer({ kind: 'infini-gram', indexes: { v4_piletrain_llama: tokens } });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function withFault(
    fault: ((call: { n: number; body: { query_type?: string } }) => Fault | undefined) | undefined,
    config: Partial<RemoteDatasetConfig> = {},
  ) {
    server.setFault(fault as never);
    return engineWith({ kind: 'infini-gram', index: 'v4_piletrain_llama', endpoint: server.url, ...config });
  }

  it('a server failing every 7th call (503 pages): ≥ 90 % still found', { timeout: HEAVY_MS }, async () => {
    const engine = await withFault(({ n }) => (n % 7 === 0 ? { status: 503, html: true } : undefined));
    const cases = plantedCases({ seed: 41, count: 10 });
    let found = 0;
    for (const c of cases) {
      const r = await engine.analyze({ content: c.text, content_type: 'text' });
      if (foundExactly(r, c)) found++;
    }
    expect(found / cases.length).toBeGreaterThanOrEqual(0.9);
    engine.dispose();
  });

  it('a socket closed without an answer on every 5th call is retried', async () => {
    const engine = await withFault(({ n }) => (n % 5 === 0 ? { closeSocket: true } : undefined));
    const c = plantedCases({ seed: 42, count: 1 })[0];
    const r = await engine.analyze({ content: c.text, content_type: 'text' });
    expect(r.remote_corpora[0].outcome).toBe('searched');
    expect(foundExactly(r, c)).toBeDefined();
    engine.dispose();
  });

  it('429 with Retry-After: the client waits as long as it asks, then goes on', async () => {
    let limited = 0,
      seen = 0;
    const engine = await withFault(() => (++seen === 3 ? (limited++, { status: 429, retryAfter: 1 }) : undefined));
    const c = plantedCases({ seed: 43, count: 1 })[0];
    const t0 = Date.now();
    const r = await engine.analyze({ content: c.text, content_type: 'text' });
    expect(limited).toBe(1);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(r.remote_corpora[0].outcome).toBe('searched');
    expect(foundExactly(r, c)).toBeDefined();
    engine.dispose();
  });

  it('a server that rate-limits every call: remote_corpus_rate_limited', async () => {
    const engine = await withFault(() => ({ status: 429, retryAfter: 0 }), { maxRetries: 1 });
    const r = await engine.analyze({ content: plantedCases({ seed: 44, count: 1 })[0].text, content_type: 'text' });
    expect(r.remote_corpora[0].outcome).toBe('rate_limited');
    expect(r.limitations).toContain('remote_corpus_rate_limited');
    // nothing answered: no evidence entry, coverage or "nothing matched" read from the refused calls
    expect(r.remote_corpora[0].samples).toBe(0);
    expect(r.evidence.datasets).toEqual([]);
    expect(r.coverage).toEqual({});
    expect(r.limitations).not.toContain('no_indexed_dataset_match');
    engine.dispose();
  });

  it('a server that is down: analyze answers within 30 s with remote_corpus_unreachable', async () => {
    const down = await startInfiniGramServer({ kind: 'infini-gram', indexes: { x: tokens } });
    const url = down.url;
    await down.close();
    const engine = await engineWith({ kind: 'infini-gram', index: 'x', endpoint: url, retryBaseMs: 250 });
    const t0 = Date.now();
    const r = await engine.analyze({ content: plantedCases({ seed: 45, count: 1 })[0].text, content_type: 'text' });
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(r.remote_corpora[0].outcome).toBe('unreachable');
    expect(r.limitations).toContain('remote_corpus_unreachable');
    expect(r.remote_corpora[0].message).toMatch(/no connection|did not answer/);
    // an answer of no evidence says the corpus was not searched (it is not listed as searched), and with nothing
    // searched it claims no absence
    expect(r.corpus_evidence.summary).toMatch(
      /^No corpus was searched, so this says nothing either way.* Searched: 0 local datasets .* and 0 remote corpora; not searched: "remote" \(unreachable\)\./,
    );
    // and no number reads as one: before, the corpus had an evidence entry (chance 1, confidence 0 with the
    // interval [0, 0.0036] of a text searched and found clean), a coverage of 0 and `no_indexed_dataset_match`
    expect(r.evidence.datasets.map((d) => d.dataset_id)).not.toContain('remote');
    // nothing searched: nothing is known either way, not a confident 0
    expect([r.confidence, r.confidence_ci_95]).toEqual([0, [0, 100]]);
    expect(Object.keys(r.coverage)).not.toContain('remote');
    expect(r.limitations).not.toContain('no_indexed_dataset_match');
    engine.dispose();
  });

  it('a server that never answers: the search ends at its deadline', async () => {
    const engine = await withFault(() => ({ hang: true }), { timeoutMs: 300, deadlineMs: 2000 });
    const t0 = Date.now();
    const r = await engine.analyze({ content: plantedCases({ seed: 46, count: 1 })[0].text, content_type: 'text' });
    expect(Date.now() - t0).toBeLessThan(6000);
    expect(r.remote_corpora[0].outcome).toBe('unreachable');
    engine.dispose();
    server.setFault(undefined as never);
  });

  it('a slow engine that would pass the deadline: what it answered is kept (deadline_reached), the hit fetched in the time left', async () => {
    // 150 ms a call: the samples of 2,000 words need longer than the deadline allows; sampling stops at 70 % of it
    // and the documents of what it found are fetched in the rest (before, every answer was lost: "unreachable")
    server.setLatency(150);
    try {
      const engine = await withFault(undefined, { deadlineMs: 2500 });
      const [c] = plantedCases({ seed: 48, count: 1 });
      const passage = c.text.slice(c.passage.start, c.passage.end);
      const text = `${passage} ${c.text.slice(0, c.passage.start)}${c.text.slice(c.passage.end)}`;
      const t0 = Date.now();
      const r = await engine.analyze({ content: text, content_type: 'text' });
      const report = r.remote_corpora[0];
      expect(report.outcome).toBe('deadline_reached');
      expect(report.message).toMatch(
        /planned samples were not asked: sampling stops at 70 % of the deadline of 2500 ms/,
      );
      expect(r.limitations).toContain('remote_corpus_deadline_reached');
      expect(r.limitations).not.toContain('remote_corpus_unreachable');
      // the places asked before the deadline lie further apart than the 16 tokens planned: said, not read as covered
      expect(report.sampled_every).toBeGreaterThanOrEqual(32);
      expect(r.limitations).toContain('remote_corpus_sampled');
      const m = remoteMatches(r).find((x) => x.doc_ix === c.source.doc_ix);
      expect(m, 'the planted passage, found before the deadline').toBeDefined();
      expect(m!.query_start).toBeLessThan(passage.length);
      expect(m!.source_text.length).toBeGreaterThan(0.9 * passage.length);
      // an answer of partial evidence says so: partly searched, not "not searched"
      expect(Date.now() - t0).toBeLessThan(2500 + 4000);
      engine.dispose();
    } finally {
      server.setLatency(0);
      server.setFault(undefined as never);
    }
  });

  it('malformed JSON and undocumented answers: remote_corpus_error', async () => {
    const engine = await withFault(() => ({ malformedJson: true }), { maxRetries: 0 });
    const r = await engine.analyze({ content: plantedCases({ seed: 47, count: 1 })[0].text, content_type: 'text' });
    expect(r.remote_corpora[0].outcome).toBe('invalid_response');
    expect(r.limitations).toContain('remote_corpus_error');
    engine.dispose();
  });

  it('an engine answering 200 with 50 MB: cut off at 16 MiB, invalid_response (the engine did answer), never held whole', async () => {
    const before = server.bodyBytesSent;
    // the fixture waits out back-pressure once per 1 MiB piece: a wait that left its listener behind would pile them
    // on the response, and node warns past ten
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const engine = await withFault(() => ({ hugeBody: 50 << 20 }), { maxRetries: 0 });
    const r = await engine.analyze({ content: plantedCases({ seed: 47, count: 1 })[0].text, content_type: 'text' });
    await new Promise((resolve) => setImmediate(resolve)); // node emits a warning on the next tick
    process.off('warning', onWarning);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    expect(r.remote_corpora[0].outcome).toBe('invalid_response');
    expect(r.remote_corpora[0].message).toMatch(/a body over 16777216 bytes/);
    expect(r.limitations).toContain('remote_corpus_error');
    // the client stopped reading: the server wrote at most the cap and what the socket buffers held, per call
    const calls = Math.max(1, r.remote_corpora[0].calls);
    expect(server.bodyBytesSent - before).toBeLessThan(calls * 24 * (1 << 20));
    engine.dispose();
  });

  // Answers that parse but do not mean what the API says: each ends the search as invalid_response, never a
  // silent "searched, nothing found"; the analysis still answers, and the bad answers are not cached.
  const hostile: Array<[string, string, (a: Record<string, any>) => unknown, RegExp]> = [
    ['token_ids of the wrong type', 'infgram_prob', (a) => ({ ...a, token_ids: [-1, 1.5, 'x'] }), /token_ids/],
    ['tokens with non-strings', 'infgram_prob', (a) => ({ ...a, tokens: [1, null] }), /tokens/],
    ['suffix_len of 2^60', 'infgram_prob', (a) => ({ ...a, suffix_len: 2 ** 60 }), /suffix_len/],
    [
      'suffix_len longer than the prompt',
      'infgram_prob',
      (a) => ({ ...a, suffix_len: (a.token_ids as number[]).length + 5 }),
      /suffix_len is longer than the prompt/,
    ],
    [
      'segments out of range',
      'find',
      (a) => ({
        ...a,
        segment_by_shard: [
          [5, -1],
          [-3, 10],
        ],
      }),
      /segment/,
    ],
    [
      'a document with a lone surrogate',
      'get_doc_by_rank',
      (a) => ({
        ...a,
        spans: [[`\ud800${(a.spans as [string, unknown][])[0][0]}`, null], ...(a.spans as unknown[]).slice(1)],
      }),
      /lone surrogate/,
    ],
  ];
  for (const [name, queryType, alter, message] of hostile) {
    it(`an engine answering ${name}: invalid_response, the analysis still answers`, async () => {
      const engine = await withFault(({ body }) => (body?.query_type === queryType ? { alter } : undefined), {
        maxRetries: 0,
      });
      await engine.addDataset({ id: 'local' }, [{ id: 'memo', text: LOCAL_MEMO }]);
      const c = plantedCases({ seed: 50, count: 1 })[0];
      const r = await engine.analyze({ content: `${c.text}\n\n${LOCAL_MEMO}`, content_type: 'text' });
      expect(r.remote_corpora[0].outcome).toBe('invalid_response');
      expect(r.remote_corpora[0].message).toMatch(message);
      expect(r.limitations).toContain('remote_corpus_error');
      expect(r.matches.some((m) => m.kind === 'exact' && m.dataset_id === 'local')).toBe(true);
      // nothing of that search is kept: the same text against a healthy engine finds the planted passage
      server.setFault(undefined as never);
      const again = await engine.analyze({ content: c.text, content_type: 'text' });
      expect(again.remote_corpora[0].outcome).toBe('searched');
      expect(foundExactly(again, c)).toBeTruthy();
      engine.dispose();
    });
  }

  it("an index the server does not have: remote_corpus_error with the server's message", async () => {
    server.setFault(undefined as never);
    const engine = await engineWith({
      kind: 'infini-gram',
      index: 'v4_no_such_index',
      endpoint: server.url,
      kb_dataset: 'c4',
    });
    const r = await engine.analyze({
      content: 'Some text to look up in an index that is not there, long enough to sample.',
      content_type: 'text',
    });
    expect(r.remote_corpora[0].outcome).toBe('rejected');
    expect(r.remote_corpora[0].message).toMatch(/Invalid index/);
    engine.dispose();
  });

  it('huge counts: the span is boilerplate, shown but left out of the evidence', async () => {
    const engine = await withFault(({ body }) => (body?.query_type === 'find' ? { hugeCounts: true } : undefined));
    const c = plantedCases({ seed: 48, count: 1 })[0];
    const r = await engine.analyze({ content: c.text, content_type: 'text' });
    const m = remoteMatches(r)[0];
    expect(m.boilerplate).toBe(true);
    expect(m.count).toBeGreaterThan(1e15);
    expect(r.risk_assessment.factors).toContain('remote_boilerplate');
    expect(r.risk_assessment.factors).not.toContain('remote_corpus_match');
    expect(r.evidence.datasets[0].chance).toBeGreaterThan(1e-3);
    engine.dispose();
  });

  it('truncated documents: what the window holds is aligned, nothing is thrown', async () => {
    const engine = await withFault(({ body }) =>
      body?.query_type === 'get_doc_by_rank' ? { truncateDocument: true } : undefined,
    );
    const c = plantedCases({ seed: 49, count: 1 })[0];
    const r = await engine.analyze({ content: c.text, content_type: 'text' });
    expect(r.remote_corpora[0].outcome).toBe('searched');
    for (const m of remoteMatches(r)) expect(documents[m.doc_ix].text).toContain(m.source_text.trim());
    engine.dispose();
  });

  it('cancellation: the calls stop with the request', async () => {
    server.setFault(undefined as never);
    server.setLatency(20);
    const engine = await engineWith({ kind: 'infini-gram', index: 'v4_piletrain_llama', endpoint: server.url });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const before = server.calls.length;
    const r = await engine.analyze(
      { content: cleanTexts({ seed: 50, count: 1 })[0], content_type: 'text' },
      { signal: controller.signal },
    );
    const made = server.calls.length - before;
    await new Promise((res) => setTimeout(res, 300));
    expect(server.calls.length - before).toBeLessThanOrEqual(made + 8); // at most the calls in flight finish
    expect(r.remote_corpora[0].outcome).toBe('cancelled');
    expect(r.limitations).toContain('remote_corpus_cancelled');
    server.setLatency(0);
    engine.dispose();
  });
});

describe('configuration', () => {
  it('refuses bad configurations with INVALID_OPTIONS and a taken id with ALREADY_EXISTS', async () => {
    const engine = await createEngine();
    const bad: unknown[] = [
      { id: 'x', kind: 'infini-gram', index: 'v4_piletrain_llama', endpoint: 'ftp://example.org/' },
      { id: 'x', kind: 'infini-gram', index: 'v4_piletrain_llama', endpoint: 'https://user:pw@example.org/' },
      { id: 'x', kind: 'elastic', index: 'v4_piletrain_llama' },
      { id: 'x', kind: 'infini-gram', index: 'bad name' },
      { id: '', kind: 'infini-gram', index: 'v4_piletrain_llama' },
      { id: 'x', kind: 'infini-gram', index: 'v4_piletrain_llama', maxCalls: 0 },
      { id: 'x', kind: 'infini-gram', index: 'v4_piletrain_llama', surprise: true },
      null,
    ];
    for (const config of bad) {
      await expect(engine.addRemoteDataset(config as RemoteDatasetConfig)).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
      });
    }
    await expect(
      engine.addRemoteDataset({ id: 'x', kind: 'infini-gram', index: 'my_index', kb_dataset: 'no-such-dataset' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const stats = await engine.addRemoteDataset({ id: 'pile', kind: 'infini-gram', index: 'v4_piletrain_llama' });
    expect(stats.remote?.endpoint).toBe('https://api.infini-gram.io/'); // nothing is sent when it is added
    await expect(
      engine.addRemoteDataset({ id: 'pile', kind: 'infini-gram-mini', index: 'v2_piletrain' }),
    ).rejects.toBeInstanceOf(TrainprintError);
    expect(engine.removeDataset('pile')).toBe(true);
    engine.dispose();
  });
});

describe('score and monitors consult the remote corpora for registered works', () => {
  let server: InfiniGramServer;
  beforeAll(async () => {
    server = await startInfiniGramServer({ kind: 'infini-gram', indexes: { v4_piletrain_llama: tokens } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('scores a work against a model of the corpus, and keeps the answers in the store for the next time', async () => {
    const { MemoryStore } = await import('../../src/index.js');
    const store = new MemoryStore();
    sharedCache.clear();
    resetEndpoints();
    const config = {
      id: 'pile',
      kind: 'infini-gram',
      index: 'v4_piletrain_llama',
      endpoint: server.url,
      ...QUICK,
    } as const;
    const engine = await createEngine({ store, remoteCorpora: [config] });
    const c = plantedCases({ seed: 61, count: 1 })[0];
    const work = await engine.registerWork({ content: c.text, owner: 'acme', title: 'A planted chapter' });
    const s = await engine.score({
      work_hash: work.work_hash,
      target_model: 'eleutherai/pythia-6.9b',
      jurisdiction: 'US',
    });
    expect(s.remote_corpora[0]).toMatchObject({ dataset_id: 'pile', outcome: 'searched' });
    expect(s.evidence.datasets[0]).toMatchObject({ dataset_id: 'pile', kind: 'remote' });
    expect(s.reused_share.flagged_chunks).toBeGreaterThanOrEqual(1);
    expect(s.tier).toBe('confirmed'); // a ≥ 50-word verbatim passage in a corpus the model documents
    expect(s.factors).toContain('remote_corpus_match');
    expect((await store.scan('remote-cache/')).length).toBeGreaterThan(100);
    engine.dispose();
    // another process on the same store: the answers come from the store, not the engine
    sharedCache.clear();
    const again = await createEngine({ store, remoteCorpora: [config] });
    const calls = server.calls.length;
    const s2 = await again.score({
      work_hash: work.work_hash,
      target_model: 'eleutherai/pythia-6.9b',
      jurisdiction: 'US',
    });
    expect(server.calls.length).toBe(calls);
    expect(s2.score).toBe(s.score);
    again.dispose();
  });

  it('a score whose only dataset of the model did not answer says nothing is known, not "no match"', async () => {
    const down = await startInfiniGramServer({ kind: 'infini-gram', indexes: { v4_piletrain_llama: tokens } });
    const url = down.url;
    await down.close();
    sharedCache.clear();
    resetEndpoints();
    const engine = await createEngine({
      remoteCorpora: [{ id: 'pile', kind: 'infini-gram', index: 'v4_piletrain_llama', endpoint: url, ...QUICK }],
    });
    try {
      const work = await engine.registerWork({ content: plantedCases({ seed: 64, count: 1 })[0].text, owner: 'acme' });
      const s = await engine.score({
        work_hash: work.work_hash,
        target_model: 'eleutherai/gpt-j-6b',
        jurisdiction: 'US',
      });
      expect(s.remote_corpora[0]).toMatchObject({ dataset_id: 'pile', outcome: 'unreachable', samples: 0 });
      expect(s.limitations).toContain('remote_corpus_unreachable');
      // before: an entry of chance 1, "no chunk matched in the datasets searched", the score's interval [0, 0] and a
      // reused share of 0 of 10 chunks at most 0.28 — the numbers of a work searched and found clean
      expect(s.evidence.datasets).toEqual([]);
      expect(s.limitations).not.toContain('no_indexed_dataset_match');
      expect(s.tier).toBe('inconclusive');
      expect(s.tier_reasons.map((r) => r.code)).toContain('model_datasets_not_searched');
      expect(s.tier_reasons.map((r) => r.code)).not.toContain('no_match_in_model_datasets');
      expect(s.ci_95).toEqual([0, 100]);
      expect(s.reused_share.ci_95).toEqual([0, 1]);
    } finally {
      engine.dispose();
    }
  });

  /** A fresh engine of the corpus while its server closes every socket (no answer cached, the endpoint not down). */
  async function engineDuringOutage() {
    sharedCache.clear();
    resetEndpoints();
    server.setFault((() => ({ closeSocket: true })) as never);
    return createEngine({
      remoteCorpora: [
        { id: 'pile', kind: 'infini-gram', index: 'v4_piletrain_llama', endpoint: server.url, ...QUICK, maxRetries: 0 },
      ],
    });
  }

  it('a monitor does not take an outage for absence, and raises match.found once the corpus answers', async () => {
    const engine = await engineDuringOutage();
    const c = plantedCases({ seed: 62, count: 1 })[0];
    const work = await engine.registerWork({ content: c.text, owner: 'acme' });
    const monitor = await engine.createMonitor({ work_id: work.work_id, models: ['eleutherai/pythia-6.9b'] });
    expect(await engine.evaluateMonitors()).toEqual([]);
    expect((await engine.getMonitor(monitor.monitor_id)).last).toEqual({});
    server.setFault(undefined as never);
    resetEndpoints(); // the endpoint counted as down: a fresh start of the process
    const events = await engine.evaluateMonitors();
    expect(events.map((e) => e.type)).toContain('match.found');
    const found = events.find((e) => e.type === 'match.found')!;
    expect(found.data).toMatchObject({ model: 'eleutherai/pythia-6.9b', datasets: ['pile'] });
    expect(found.data.flagged_chunks).toBeGreaterThanOrEqual(1);
    // the next evaluation finds nothing new
    expect((await engine.evaluateMonitors()).filter((e) => e.type === 'match.found')).toEqual([]);
    engine.dispose();
  });

  it('a monitor of two models of one corpus during an outage records neither: the first\'s failed search is not the second\'s "nothing found"', async () => {
    const engine = await engineDuringOutage();
    try {
      const work = await engine.registerWork({ content: plantedCases({ seed: 63, count: 1 })[0].text, owner: 'acme' });
      const monitor = await engine.createMonitor({
        work_id: work.work_id,
        models: ['eleutherai/pythia-6.9b', 'eleutherai/gpt-j-6b'],
      });
      expect(await engine.evaluateMonitors()).toEqual([]);
      // before: the second model read the first's chunk findings from the evaluation's cache, with no outcome, and
      // was recorded as evaluated (inconclusive, 0 flagged chunks)
      expect((await engine.getMonitor(monitor.monitor_id)).last).toEqual({});
    } finally {
      server.setFault(undefined as never);
      engine.dispose();
    }
  });
});
