/**
 * Remote corpus indexes in the knowledge base (src/services/kb/remote-indexes.ts, corpus-components.ts): every
 * public infini-gram / infini-gram mini index links to its corpus and through it to the models documented on it;
 * a remote document's metadata names the part of the corpus it comes from; docs/knowledge-base.md lists them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DATASETS,
  DEFAULT_REMOTE_INDEXES,
  REMOTE_INDEXES,
  componentOf,
  knowledgeBase,
  publicRemoteCorpora,
  remoteIndex,
  remoteModelIds,
  type RemoteIndex,
} from '../../src/services/kb/index.js';
import { crawlLink } from '../../src/services/kb/remote-indexes.js';

const kb = knowledgeBase();
const ids = new Set(DATASETS.map((d) => d.id));
const byName = (index: string) => REMOTE_INDEXES.find((r) => r.index === index)!;
const linked = (index: string) => remoteModelIds(kb, byName(index));

describe('REMOTE_INDEXES', () => {
  it('lists every public index of both engines once, with published sizes and a known KB dataset', () => {
    const names = REMOTE_INDEXES.map((r) => `${r.engine}/${r.index}`);
    expect(new Set(names).size).toBe(names.length);
    expect(REMOTE_INDEXES.filter((r) => r.engine === 'infini-gram').map((r) => r.index)).toEqual([
      'v4_olmo-2-0325-32b-instruct_llama',
      'v4_olmo-2-1124-13b-instruct_llama',
      'v4_olmoe-0125-1b-7b-instruct_llama',
      'v4_olmo-mix-1124_llama',
      'v4_dclm-baseline_llama',
      'v4_dolma-v1_7_llama',
      'v4_rpj_llama_s4',
      'v4_piletrain_llama',
      'v4_c4train_llama',
      'v4_dolma-v1_6-sample_llama',
      'v4_dolmasample_olmo',
      'v4_pileval_llama',
      'v4_pileval_gpt2',
    ]);
    expect(REMOTE_INDEXES.filter((r) => r.engine === 'infini-gram-mini').map((r) => r.index)).toEqual([
      'v2_cc_2025-30',
      'v2_cc_2025-26',
      'v2_cc_2025-21',
      'v2_cc_2025-18',
      'v2_cc_2025-13',
      'v2_cc_2025-08',
      'v2_cc_2025-05',
      'v2_dclm_all',
      'v2_piletrain',
      'v2_pileval',
    ]);
    for (const r of REMOTE_INDEXES) {
      expect(ids, r.index).toContain(r.kb_dataset);
      expect(Number.isSafeInteger(r.documents) && r.documents > 0, r.index).toBe(true);
      expect(r.sources.length, r.index).toBeGreaterThan(0);
      expect(Object.isFrozen(r), r.index).toBe(true);
      if (r.engine === 'infini-gram') {
        expect(r.tokenizer, r.index).not.toBeNull();
        expect(Number.isSafeInteger(r.tokens) && r.tokens! > 0, r.index).toBe(true);
        expect(r.bytes, r.index).toBeNull();
      } else {
        expect([r.tokenizer, r.tokens], r.index).toEqual([null, null]);
        expect(Number.isSafeInteger(r.bytes) && r.bytes! > 0, r.index).toBe(true);
      }
      for (const m of r.models) expect(kb.model(m).id, r.index).toBe(m);
    }
    expect(byName('v4_dolmasample_olmo').tokenizer).toBe('olmo');
    expect(byName('v4_pileval_gpt2').tokenizer).toBe('gpt-2');
    expect(byName('v4_rpj_llama_s4')).toMatchObject({ documents: 931_361_530, tokens: 1_385_942_948_192 });
    expect(byName('v2_cc_2025-30')).toMatchObject({
      kb_dataset: 'common-crawl',
      crawl: { id: 'CC-MAIN-2025-30', month: '2025-07' },
    });
  });

  it('maps each corpus to its dataset; Common Crawl crawls to common-crawl', () => {
    const map = Object.fromEntries(REMOTE_INDEXES.map((r) => [r.index, r.kb_dataset]));
    expect(map).toMatchObject({
      v4_piletrain_llama: 'the-pile',
      v2_piletrain: 'the-pile',
      v4_c4train_llama: 'c4',
      v4_rpj_llama_s4: 'redpajama-v1',
      'v4_dolma-v1_7_llama': 'dolma-v1-7',
      'v4_dolma-v1_6-sample_llama': 'dolma',
      'v4_dclm-baseline_llama': 'dclm',
      v2_dclm_all: 'dclm',
      'v4_olmo-mix-1124_llama': 'olmo-mix-1124',
    });
    for (const r of REMOTE_INDEXES.filter((x) => x.index.startsWith('v2_cc_')))
      expect(r.kb_dataset).toBe('common-crawl');
  });

  it('every training-data index links to at least one text model; the Pile validation split to none', () => {
    for (const r of REMOTE_INDEXES) {
      const models = remoteModelIds(kb, r);
      if (r.evaluation) {
        expect(models, r.index).toEqual([]);
        expect(r.kb_dataset).toBe('the-pile-validation');
      } else {
        expect(models.length, r.index).toBeGreaterThan(0);
        for (const m of models) expect(kb.model(m).modality, `${r.index} → ${m}`).toBe('text');
      }
    }
    expect(REMOTE_INDEXES.filter((r) => r.evaluation).map((r) => r.index)).toEqual([
      'v4_pileval_llama',
      'v4_pileval_gpt2',
      'v2_pileval',
    ]);
  });

  it('names the documented models: Pile → Pythia, GPT-J, GPT-NeoX; C4 → T5; RedPajama → INCITE; Dolma → OLMo; DCLM → DCLM-7B; OLMo 2 mixes → OLMo 2', () => {
    for (const index of ['v4_piletrain_llama', 'v2_piletrain']) {
      expect(linked(index)).toEqual(
        expect.arrayContaining(['eleutherai/pythia-6.9b', 'eleutherai/gpt-j-6b', 'eleutherai/gpt-neox-20b']),
      );
    }
    expect(linked('v4_c4train_llama')).toContain('google/t5');
    expect(linked('v4_rpj_llama_s4')).toContain('togethercomputer/redpajama-incite-7b-base');
    expect(linked('v4_dolma-v1_7_llama')).toEqual(['allenai/olmo-7b-0424']);
    expect(linked('v4_dolma-v1_6-sample_llama')).toEqual(
      expect.arrayContaining(['allenai/olmo-1b', 'allenai/olmo-7b']),
    );
    for (const index of ['v4_dclm-baseline_llama', 'v2_dclm_all']) expect(linked(index)).toContain('apple/dclm-7b');
    expect(linked('v4_olmo-mix-1124_llama')).toEqual(
      expect.arrayContaining([
        'allenai/olmo-2-1124-7b',
        'allenai/olmo-2-1124-13b',
        'allenai/olmo-2-0325-32b',
        'allenai/olmo-2-0325-32b-instruct',
      ]),
    );
    expect(kb.modelsTrainedOn('dclm').find((l) => l.model.id === 'apple/dclm-7b')).toMatchObject({
      certainty: 0.95,
      relation: 'named',
    });
  });

  it("an Instruct index is its model's whole training data: named by the model and in `models`", () => {
    const cases: Array<[string, string]> = [
      ['v4_olmo-2-0325-32b-instruct_llama', 'allenai/olmo-2-0325-32b-instruct'],
      ['v4_olmo-2-1124-13b-instruct_llama', 'allenai/olmo-2-1124-13b-instruct'],
      ['v4_olmoe-0125-1b-7b-instruct_llama', 'allenai/olmoe-1b-7b-0125-instruct'],
    ];
    for (const [index, model] of cases) {
      const r = byName(index);
      expect(r.models).toEqual([model]);
      expect(kb.modelsTrainedOn(r.kb_dataset).map((l) => [l.model.id, l.relation, l.certainty])).toEqual([
        [model, 'named', 0.95],
      ]);
    }
    // The OLMo 2 Instruct data contains OLMo-mix-1124, so its DCLM text reaches the Instruct model as a component too.
    expect(kb.descendants('olmo-2-0325-32b-instruct-data')).toEqual(
      expect.arrayContaining(['olmo-mix-1124', 'dolmino-mix-1124', 'tulu-3', 'dclm']),
    );
    for (const r of REMOTE_INDEXES.filter((x) => x.models.length === 0)) expect(r.index).not.toMatch(/instruct/);
  });

  it('Books3 reached through the Pile is a pirated component; Dolma v1.7 is its own version', () => {
    const [via] = kb.modelsTrainedOn('books3').filter((l) => l.model.id === 'eleutherai/pythia-6.9b');
    expect(via).toMatchObject({ relation: 'component', via: ['the-pile', 'books3'] });
    expect(kb.dataset('books3').pirated).toBe(true);
    expect(kb.descendants(byName('v4_piletrain_llama').kb_dataset)).toContain('books3');
    expect(kb.descendants(byName('v4_rpj_llama_s4').kb_dataset)).toContain('books3');
    expect(kb.descendants('the-pile-validation')).toEqual([]);
    // OLMo-1B trained on Dolma v1.5: a match in v1.7 is no evidence about it; OLMo 1.7 reaches v1.5-era Dolma as a component.
    expect(kb.modelsTrainedOn('dolma-v1-7').map((l) => l.model.id)).not.toContain('allenai/olmo-1b');
    expect(kb.modelsTrainedOn('dolma').find((l) => l.model.id === 'allenai/olmo-7b-0424')?.relation).toBe('component');
    expect(kb.resolveDatasetName('Dolma v1.7')).toBe('dolma-v1-7');
    expect(kb.resolveDatasetName('Pile val')).toBe('the-pile-validation');
  });
});

describe('remoteIndex and the defaults', () => {
  it('looks up public names; self-hosted or unknown names are undefined', () => {
    expect(remoteIndex('infini-gram', 'v4_piletrain_llama')).toBe(byName('v4_piletrain_llama'));
    expect(remoteIndex('infini-gram-mini', 'v2_piletrain')?.engine).toBe('infini-gram-mini');
    expect(remoteIndex('infini-gram', 'v2_piletrain')).toBeUndefined();
    expect(remoteIndex('infini-gram-mini', 'v4_piletrain_llama')).toBeUndefined();
    expect(remoteIndex('infini-gram', 'my_selfhosted_index')).toBeUndefined();
    expect(remoteIndex('infini-gram', 'constructor')).toBeUndefined();
    // the mini docs' curl example spells the crawl with a hyphen
    expect(remoteIndex('infini-gram-mini', 'v2_cc-2025-05')?.index).toBe('v2_cc_2025-05');
  });

  it('the default set: six training corpora of infini-gram and the newest crawl of infini-gram mini', () => {
    expect(DEFAULT_REMOTE_INDEXES['infini-gram']).toEqual([
      'v4_piletrain_llama',
      'v4_dolma-v1_7_llama',
      'v4_rpj_llama_s4',
      'v4_c4train_llama',
      'v4_dclm-baseline_llama',
      'v4_olmo-mix-1124_llama',
    ]);
    expect(DEFAULT_REMOTE_INDEXES['infini-gram-mini']).toEqual(['v2_cc_2025-30']);
    for (const [engine, names] of Object.entries(DEFAULT_REMOTE_INDEXES) as Array<
      [RemoteIndex['engine'], readonly string[]]
    >) {
      for (const n of names) expect(remoteIndex(engine, n)?.evaluation, n).toBe(false);
    }
    const newest = REMOTE_INDEXES.filter((r) => r.crawl).sort((a, b) => (a.crawl!.month < b.crawl!.month ? 1 : -1))[0];
    expect(DEFAULT_REMOTE_INDEXES['infini-gram-mini']).toEqual([newest.index]);
  });
});

describe('componentOf', () => {
  const doc = (metadata: Record<string, unknown>, path = 'train/00.jsonl') => ({ path, linenum: 3, metadata });

  it("reads the Pile's pile_set_name: all 22 names, in the documented nestings", () => {
    const names = [
      'Pile-CC',
      'PubMed Central',
      'Books3',
      'OpenWebText2',
      'ArXiv',
      'Github',
      'FreeLaw',
      'StackExchange',
      'USPTO Backgrounds',
      'PubMed Abstracts',
      'Gutenberg (PG-19)',
      'OpenSubtitles',
      'Wikipedia (en)',
      'DM Mathematics',
      'Ubuntu IRC',
      'BookCorpus2',
      'EuroParl',
      'HackerNews',
      'YoutubeSubtitles',
      'PhilPapers',
      'NIH ExPorter',
      'Enron Emails',
    ];
    const got = names.map((n) => componentOf('the-pile', doc({ meta: { pile_set_name: n } }))?.kb_dataset);
    expect(got).toEqual([...kb.dataset('the-pile').components]);
    expect(componentOf('the-pile', doc({ meta: { pile_set_name: 'Books3' } }))).toEqual({
      name: 'Books3',
      kb_dataset: 'books3',
    });
    expect(componentOf('the-pile', doc({ pile_set_name: 'Books3' }))?.kb_dataset).toBe('books3');
    expect(componentOf('the-pile', { meta: { pile_set_name: 'Gutenberg (PG-19)' } })?.kb_dataset).toBe(
      'project-gutenberg',
    );
    // the engine's own string (JSON + newline)
    const raw = JSON.stringify(doc({ meta: { pile_set_name: 'FreeLaw' } })) + '\n';
    expect(componentOf('the-pile', raw)).toEqual({ name: 'FreeLaw', kb_dataset: 'freelaw' });
    expect(componentOf('the-pile-deduplicated', doc({ meta: { pile_set_name: 'Books3' } }))?.kb_dataset).toBe('books3');
    // without path/linenum, and a raw Dolma record whose own `metadata` holds no part field
    expect(componentOf('the-pile', { metadata: { meta: { pile_set_name: 'EuroParl' } } })?.kb_dataset).toBe('europarl');
    expect(componentOf('dolma', { id: 'd1', source: 'c4', metadata: { url: 'https://example.com' } })?.kb_dataset).toBe(
      'c4',
    );
  });

  it('Books3 found in the Pile is the pirated component, linked to the Pile models', () => {
    const c = componentOf('the-pile', doc({ meta: { pile_set_name: 'Books3' } }))!;
    expect(kb.dataset(c.kb_dataset!).pirated).toBe(true);
    expect(kb.modelsTrainedOn(c.kb_dataset!).map((l) => l.model.id)).toEqual(
      expect.arrayContaining(['eleutherai/gpt-j-6b', 'meta/llama-7b']),
    );
  });

  it('the Pile validation split names the part but links none (held out)', () => {
    expect(componentOf('the-pile-validation', doc({ meta: { pile_set_name: 'Books3' } }))).toEqual({
      name: 'Books3',
      kb_dataset: null,
    });
  });

  it('reads RedPajama-1T slices: redpajama_set_name, red_pajama_subset or the folder of the path', () => {
    const sets: Array<[string, string]> = [
      ['RedPajamaCommonCrawl', 'ccnet'],
      ['RedPajamaC4', 'c4'],
      ['RedPajamaGithub', 'github'],
      ['RedPajamaBook', 'redpajama-books'],
      ['RedPajamaArXiv', 'arxiv'],
      ['RedPajamaWikipedia', 'wikipedia'],
      ['RedPajamaStackExchange', 'stackexchange'],
    ];
    for (const [name, id] of sets) {
      expect(componentOf('redpajama-v1', doc({ meta: { redpajama_set_name: name } })), name).toEqual({
        name,
        kb_dataset: id,
      });
      expect(componentOf('redpajama-v1', doc({ redpajama_set_name: name }))?.kb_dataset, name).toBe(id);
    }
    expect(componentOf('redpajama-v1', doc({ red_pajama_subset: 'book' }))?.kb_dataset).toBe('redpajama-books');
    expect(
      componentOf(
        'redpajama-v1',
        doc({ meta: { url: 'x' } }, 'common_crawl/2023-06/en_head_0000.json.gz.dedup.classifier.jsonl'),
      ),
    ).toEqual({
      name: 'common_crawl',
      kb_dataset: 'ccnet',
    });
    expect(componentOf('redpajama-v1', doc({ meta: {} }, 'book/book.jsonl'))?.kb_dataset).toBe('redpajama-books');
    expect(kb.descendants('redpajama-books')).toContain('books3');
    expect(componentOf('redpajama-v1', doc({ meta: {} }, 'unknown/x.jsonl'))).toBeNull();
    expect(componentOf('redpajama-v1', doc({ meta: { redpajama_set_name: 'RedPajamaSomethingNew' } }))).toEqual({
      name: 'RedPajamaSomethingNew',
      kb_dataset: null,
    });
  });

  it("reads Dolma's source field, ignoring case and punctuation, within the corpus's own parts", () => {
    const sources: Array<[string, string]> = [
      ['common-crawl', 'common-crawl'],
      ['c4', 'c4'],
      ['gutenberg', 'project-gutenberg'],
      ['wikipedia', 'wikipedia'],
      ['wiki', 'wikipedia'],
      ['pes2o', 'pes2o'],
      ['s2', 'pes2o'],
      ['stack-dedup', 'the-stack'],
      ['reddit', 'pushshift-reddit'],
      ['Wikibooks', 'wikibooks'],
    ];
    for (const [source, id] of sources)
      expect(componentOf('dolma', doc({ source })), source).toEqual({ name: source, kb_dataset: id });
    expect(componentOf('dolma-v1-7', doc({ source: 'starcoder' }))?.kb_dataset).toBe('starcoder-data');
    expect(componentOf('dolma-v1-7', doc({ source: 'falcon' }))?.kb_dataset).toBe('refinedweb');
    expect(componentOf('dolma-v1-7', doc({ source: 'redpajama/arxiv' }))?.kb_dataset).toBe('arxiv');
    expect(componentOf('dolma-v1-7', doc({ source: 'tulu_flan' }))?.kb_dataset).toBe('flan');
    // known to Dolma, not a dataset of the knowledge base
    expect(componentOf('dolma-v1-7', doc({ source: 'megawika' }))).toEqual({ name: 'megawika', kb_dataset: null });
    // a part that is not in this corpus's DAG (Dolma v1.5 holds no StarCoder data) is not linked
    expect(componentOf('dolma', doc({ source: 'starcoder' }))).toEqual({ name: 'starcoder', kb_dataset: null });
    expect(componentOf('olmo-mix-1124', doc({ source: 'dclm' }))?.kb_dataset).toBe('dclm');
  });

  it('nothing recognisable → null', () => {
    expect(componentOf('the-pile', null)).toBeNull();
    expect(componentOf('the-pile', 'not json')).toBeNull();
    expect(componentOf('the-pile', doc({}))).toBeNull();
    expect(componentOf('the-pile', doc({ meta: { pile_set_name: 7 } }))).toBeNull();
    expect(componentOf('dolma', doc({ id: 'x' }))).toBeNull();
    expect(componentOf('c4', doc({ url: 'https://example.com', timestamp: '2019' }))).toBeNull();
    expect(componentOf('common-crawl', doc({ source: 'common-crawl' }))).toBeNull();
    expect(componentOf('no-such-dataset', doc({ source: 'c4' }))).toBeNull();
  });
});

describe('docs/knowledge-base.md', () => {
  const fmt = (n: number) => n.toLocaleString('en-US');
  /** The row the docs table must carry for one index, from the table and the knowledge base. */
  function docRow(r: RemoteIndex): string {
    const size = r.tokens !== null ? `${fmt(r.tokens)} tokens (${r.tokenizer})` : `${fmt(r.bytes!)} bytes`;
    const links = kb.modelsTrainedOn(r.kb_dataset);
    const named = [...new Set([...r.models, ...links.filter((l) => l.relation === 'named').map((l) => l.model.id)])];
    const rest = remoteModelIds(kb, r).length - named.length;
    const models = r.evaluation
      ? 'none (evaluation split)'
      : named.map((m) => `\`${m}\``).join(', ') + (rest > 0 ? ` (+${rest} through parts)` : '');
    return `| \`${r.index}\` | ${r.engine} | ${r.corpus} | \`${r.kb_dataset}\` | ${fmt(r.documents)} | ${size} | ${models} |`;
  }

  it('lists every remote index with its corpus, KB dataset and linked models', () => {
    const page = readFileSync(new URL('../../docs/knowledge-base.md', import.meta.url), 'utf8');
    for (const r of REMOTE_INDEXES) expect(page, r.index).toContain(docRow(r));
    for (const id of DEFAULT_REMOTE_INDEXES['infini-gram']) expect(page).toContain(`\`${id}\``);
  });
});

describe('publicRemoteCorpora', () => {
  it('configures the default indexes of an engine, one dataset per index named by it', () => {
    const configs = publicRemoteCorpora('infini-gram');
    expect(configs.map((c) => c.id)).toEqual([...DEFAULT_REMOTE_INDEXES['infini-gram']]);
    expect(configs.every((c) => c.kind === 'infini-gram' && c.index === c.id && c.endpoint === undefined)).toBe(true);
    expect(
      publicRemoteCorpora('infini-gram-mini', { indexes: ['v2_cc_2025-05', 'v2_cc_2025-05'] }).map((c) => c.id),
    ).toEqual(['v2_cc_2025-05']);
  });

  it('passes settings and a self-hosted endpoint, which may serve any index', () => {
    const [c] = publicRemoteCorpora('infini-gram', {
      indexes: ['our_index'],
      endpoint: 'http://10.0.0.5:5000/',
      settings: { maxCalls: 300 },
    });
    expect(c).toEqual({
      id: 'our_index',
      kind: 'infini-gram',
      index: 'our_index',
      endpoint: 'http://10.0.0.5:5000/',
      maxCalls: 300,
    });
  });

  it('refuses an unknown public index, an empty list and an unknown engine', () => {
    expect(() => publicRemoteCorpora('infini-gram', { indexes: ['v4_piletrain_llama', 'v4_typo'] })).toThrow(
      /serves no public index v4_typo/,
    );
    expect(() => publicRemoteCorpora('infini-gram', { indexes: [] })).toThrow(/non-empty list/);
    expect(() => publicRemoteCorpora('bing' as never)).toThrow(/engine must be/);
  });
});

describe('crawlLink', () => {
  const crawls = REMOTE_INDEXES.filter((r) => r.crawl !== undefined);

  it('halves the link of a model released before the crawl, says why, and leaves the others', () => {
    const link = { certainty: 0.75, reason: 'Documented on Common Crawl.' };
    const crawl = { id: 'CC-MAIN-2025-05', month: '2025-01' };
    expect(crawlLink(link, { release_year: 2023 }, crawl)).toEqual({
      late: true,
      certainty: 0.375,
      reason:
        "Documented on Common Crawl. The crawl searched (CC-MAIN-2025-05) postdates the model's release (2023), so the link counts half.",
    });
    // the year of the crawl itself, an unknown release year, no crawl: the link as it is
    for (const [model, c] of [
      [{ release_year: 2025 }, crawl],
      [{ release_year: null }, crawl],
      [{ release_year: 2019 }, undefined],
    ] as const)
      expect(crawlLink(link, model, c)).toEqual({ late: false, ...link });
  });

  it('gives every crawl and every linked model of the knowledge base the half-weight rule analyze and score applied', () => {
    expect(crawls.length).toBeGreaterThan(0);
    let late = 0;
    for (const index of crawls)
      for (const link of kb.modelsTrainedOn(index.kb_dataset, { modality: 'any' })) {
        const got = crawlLink(link, link.model, index.crawl);
        const year = link.model.release_year;
        const want = year !== null && year < Number(index.crawl!.month.slice(0, 4));
        expect(got.late).toBe(want);
        expect(got.certainty).toBe(want ? Math.round(link.certainty * 0.5 * 1e4) / 1e4 : link.certainty);
        expect(got.reason.startsWith(link.reason)).toBe(true);
        if (want) late++;
      }
    expect(late).toBeGreaterThan(0);
  });
});
