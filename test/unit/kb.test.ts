/** Knowledge base (src/services/kb/): the generated facts, the dataset table, the entry map and the certainty rules. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isTrainprintError } from '../../src/errors.js';
import {
  CERTAINTY,
  DATASETS,
  ENTRY_MAP,
  KB_FACTS_SOURCE,
  KB_MODEL_FACTS,
  KnowledgeBase,
  MODEL_FACTS,
  MODEL_FACTS_SUPPLEMENT,
  knowledgeBase,
  providerSlug,
  type KbDataset,
  type KbModelFact,
} from '../../src/services/kb/index.js';
// @ts-expect-error plain JS build script
import { FACTS_LABEL, factsDeclarations, recordProblems } from '../../build/kb.mjs';

const kb = knowledgeBase();

/** The link of one model to a dataset, if any. */
const link = (dataset: string, model: string, modality: 'text' | 'image' | 'any' = 'text') =>
  kb.modelsTrainedOn(dataset, { modality }).find((l) => l.model.id === model);

/** The error code thrown by `fn`, or undefined. */
function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return isTrainprintError(e) ? e.code : `not a TrainprintError: ${String(e)}`;
  }
  return undefined;
}

describe('kb facts', () => {
  // The facts file is not in the repository: `node build/kb.mjs --check` compares the module with it (a
  // changed value shows only there). Here: the module holds records the generator accepts, in the exact
  // layout the generator writes, with a consistent source line and header.
  it('models.generated.ts holds valid records, written as build/kb.mjs writes them', () => {
    expect(recordProblems(JSON.parse(JSON.stringify(MODEL_FACTS)))).toEqual([]);
    expect(KB_FACTS_SOURCE.records).toBe(MODEL_FACTS.length);
    expect(KB_FACTS_SOURCE.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(KB_FACTS_SOURCE.file).toBe(FACTS_LABEL);
    const module = readFileSync(new URL('../../src/services/kb/models.generated.ts', import.meta.url), 'utf8');
    const d = factsDeclarations(MODEL_FACTS, KB_FACTS_SOURCE.sha256, KB_FACTS_SOURCE.file);
    expect(module).toContain(d.source);
    expect(module).toContain(d.shared);
    expect(module).toContain(d.facts);
    expect(module).toContain(`// sha256 of the source: ${KB_FACTS_SOURCE.sha256}\n`);
    // the generator refuses what the type would misdescribe
    const bad = [
      { ...MODEL_FACTS[0], modality: 'audio' },
      { ...MODEL_FACTS[0], extra: 1 },
    ];
    expect(recordProblems(bad)).toEqual([
      'record 0: modality audio',
      expect.stringMatching(/^record 1: fields are /),
      `record 1: duplicate model ${MODEL_FACTS[0].model}`,
    ]);
  });

  it('the hand-curated supplement holds valid records with sources, none of them a generated model', () => {
    expect(recordProblems(JSON.parse(JSON.stringify(MODEL_FACTS_SUPPLEMENT)))).toEqual([]);
    expect(recordProblems(JSON.parse(JSON.stringify(KB_MODEL_FACTS)))).toEqual([]);
    expect(KB_MODEL_FACTS).toEqual([...MODEL_FACTS, ...MODEL_FACTS_SUPPLEMENT]);
    for (const f of MODEL_FACTS_SUPPLEMENT) {
      expect(f.sources.length, f.model).toBeGreaterThan(0);
      expect(f.notes.length, f.model).toBeGreaterThan(20);
    }
    expect(MODEL_FACTS_SUPPLEMENT.map((f) => f.model)).toEqual([
      'apple/dclm-7b',
      'allenai/olmo-7b-0424',
      'allenai/olmo-2-0325-32b',
      'allenai/olmo-2-0325-32b-instruct',
      'allenai/olmo-2-1124-13b-instruct',
      'allenai/olmoe-1b-7b-0125-instruct',
    ]);
  });

  it('has at least 50 models with unique lower-case ids', () => {
    const models = kb.models();
    expect(models.length).toBeGreaterThanOrEqual(50);
    expect(models.length).toBe(MODEL_FACTS.length + MODEL_FACTS_SUPPLEMENT.length);
    expect(models.length).toBe(58);
    expect(new Set(models.map((m) => m.id)).size).toBe(models.length);
    for (const m of models) {
      expect(m.id).toBe(m.id.toLowerCase());
      expect(['text', 'image']).toContain(m.modality);
      expect(Object.isFrozen(m) && Object.isFrozen(m.training_datasets)).toBe(true);
    }
  });

  it('every provider has an id, a lookup and its models', () => {
    const names = [...new Set(KB_MODEL_FACTS.map((f) => f.provider))];
    const providers = kb.providers();
    expect(providers.map((p) => p.name)).toEqual(names);
    for (const p of providers) {
      expect(p.id).toBe(providerSlug(p.name));
      expect(p.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(kb.provider(p.id)).toBe(p);
      expect(kb.provider(p.name)).toBe(p);
      expect(p.models.length).toBeGreaterThan(0);
      expect(p.models).toEqual(kb.models({ provider: p.id }).map((m) => m.id));
      for (const id of p.models) expect(kb.model(id).provider_id).toBe(p.id);
    }
    const meta = kb.provider('meta');
    expect(meta.models).toEqual(expect.arrayContaining(['meta/llama-7b', 'meta-llama/llama-2-7b', 'facebook/opt-66b']));
    expect(kb.provider('Allen Institute for AI').id).toBe('allen-institute-for-ai');
  });
});

describe('kb dataset table and entry map', () => {
  const ids = new Set(DATASETS.map((d) => d.id));

  it('defines the required ids, once each', () => {
    expect(ids.size).toBe(DATASETS.length);
    for (const id of [
      'the-pile',
      'c4',
      'dolma',
      'refinedweb',
      'the-stack',
      'the-stack-v2',
      'books3',
      'project-gutenberg',
      'wikipedia',
      'common-crawl',
      'redpajama-v1',
      'bookcorpus',
      'webtext',
      'webtext2',
      'books1',
      'books2',
      'arxiv',
      'github',
      'stackexchange',
      'pile-cc',
      'openwebtext2',
      'pes2o',
      's2orc',
      'dclm',
      'fineweb-edu',
      'mc4',
      'roots',
      'cosmopedia',
      'starcoder-data',
      'openwebmath',
      'algebraic-stack',
      'proof-pile-2',
      'olmo-mix-1124',
      'dolmino-mix-1124',
      'olmoe-mix-0924',
      'cc-stories',
      'ccnews',
      'pushshift-reddit',
      'opensubtitles',
      'uspto',
      'dm-mathematics',
      'hackernews',
      'laion-5b',
      'laion-2b-en',
      'databricks-dolly-15k',
      'ccnet',
    ]) {
      expect(ids, id).toContain(id);
    }
    for (const d of DATASETS) {
      expect(d.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(d.aliases.length, d.id).toBeGreaterThan(0);
      expect(d.sources.length, d.id).toBeGreaterThan(0);
      expect(d.description.length, d.id).toBeGreaterThan(20);
    }
  });

  it('maps every training_datasets string of the facts and the supplement, and nothing else', () => {
    const strings = new Set(KB_MODEL_FACTS.flatMap((f) => f.training_datasets));
    for (const s of strings) expect(ENTRY_MAP, s).toHaveProperty([s]);
    expect(Object.keys(ENTRY_MAP).sort()).toEqual([...strings].sort());
    expect(new Set(MODEL_FACTS.flatMap((f) => f.training_datasets)).size).toBe(92);
    expect(strings.size).toBe(102);
  });

  it('refers only to defined ids, and components form a DAG', () => {
    for (const d of DATASETS) {
      for (const c of d.components) expect(ids, `${d.id} ⊃ ${c}`).toContain(c);
      expect(kb.descendants(d.id), d.id).not.toContain(d.id);
    }
    for (const [name, m] of Object.entries(ENTRY_MAP)) {
      for (const id of [...m.datasets, ...(m.excludes ?? []), ...(m.subset_of ?? [])])
        expect(ids, `${name} → ${id}`).toContain(id);
    }
  });

  it('names resolve to one dataset only', () => {
    // the constructor refuses colliding aliases; check that the table's names resolve to their own dataset
    for (const d of DATASETS)
      for (const a of [d.id, d.name, ...d.aliases]) expect(kb.resolveDatasetName(a), a).toBe(d.id);
  });

  it('maps the documented examples', () => {
    expect(ENTRY_MAP['C4 (15%)']).toEqual({ datasets: ['c4'], share: '15%' });
    expect(ENTRY_MAP['Project Gutenberg + Books3 (4.5%)'].datasets).toEqual(['project-gutenberg', 'books3']);
    expect(ENTRY_MAP['The Pile (without Books3)']).toEqual({ datasets: ['the-pile'], excludes: ['books3'] });
    expect(ENTRY_MAP['RedPajama-Data (without Books3)']).toEqual({ datasets: ['redpajama-v1'], excludes: ['books3'] });
    const subset =
      ENTRY_MAP[
        'The Pile subset (Pile-CC, OpenWebText2, USPTO, Project Gutenberg, OpenSubtitles, Wikipedia, DM Mathematics, HackerNews)'
      ];
    expect(subset.datasets).toEqual([
      'pile-cc',
      'openwebtext2',
      'uspto',
      'project-gutenberg',
      'opensubtitles',
      'wikipedia',
      'dm-mathematics',
      'hackernews',
    ]);
    expect(subset.subset_of).toEqual(['the-pile']);
    for (const s of ['Books, English (13%)', 'curated corpora (not enumerated on the card)', 'undisclosed']) {
      expect(ENTRY_MAP[s].datasets, s).toEqual([]);
    }
    expect(ENTRY_MAP['Books, English (13%)'].share).toBe('13%');
  });

  it('records the documented compositions', () => {
    expect(kb.dataset('the-pile').components).toEqual(
      expect.arrayContaining([
        'pile-cc',
        'books3',
        'project-gutenberg',
        'wikipedia',
        'arxiv',
        'github',
        'stackexchange',
        'openwebtext2',
        'uspto',
        'opensubtitles',
        'dm-mathematics',
        'hackernews',
      ]),
    );
    expect(kb.dataset('the-pile').components).toHaveLength(22);
    expect(kb.descendants('redpajama-v1')).toEqual(
      expect.arrayContaining([
        'common-crawl',
        'c4',
        'github',
        'books3',
        'project-gutenberg',
        'arxiv',
        'wikipedia',
        'stackexchange',
      ]),
    );
    expect(kb.dataset('dolma').components).toEqual(
      expect.arrayContaining([
        'common-crawl',
        'c4',
        'the-stack',
        'pushshift-reddit',
        'pes2o',
        'project-gutenberg',
        'wikipedia',
      ]),
    );
    expect(kb.dataset('proof-pile-2').components).toEqual(['arxiv', 'openwebmath', 'algebraic-stack']);
    expect(kb.ancestors('books3')).toEqual(expect.arrayContaining(['the-pile', 'redpajama-v1']));
    expect(
      kb
        .datasets()
        .filter((d) => d.pirated)
        .map((d) => d.id),
    ).toEqual(['books3']);
    expect(kb.dataset('books3').description).toMatch(/Bibliotik/);
  });

  it('resolves names: case, punctuation, qualifiers and documented strings', () => {
    expect(kb.resolveDatasetName('C4 (15%)')).toBe('c4');
    expect(kb.resolveDatasetName('PG-19')).toBe('project-gutenberg');
    expect(kb.resolveDatasetName('pg19')).toBe('project-gutenberg');
    expect(kb.resolveDatasetName('the pile')).toBe('the-pile');
    expect(kb.resolveDatasetName('Colossal Clean Crawled Corpus')).toBe('c4');
    expect(kb.resolveDatasetName('RedPajama-Data (without Books3)')).toBe('redpajama-v1');
    expect(kb.resolveDatasetName('Falcon RefinedWeb extract')).toBe('refinedweb');
    expect(kb.resolveDatasetName('Project Gutenberg + Books3 (4.5%)')).toBeNull();
    expect(kb.resolveDatasetName('Books, English (13%)')).toBeNull();
    expect(kb.resolveDatasetName('no such corpus')).toBeNull();
    expect(kb.resolveDatasetName('')).toBeNull();
    expect(kb.dataset('BOOKS3').id).toBe('books3');
  });
});

describe('kb lookups', () => {
  it('ids are case-insensitive; unknown ids are NOT_FOUND', () => {
    expect(kb.model('EleutherAI/Pythia-6.9B').id).toBe('eleutherai/pythia-6.9b');
    expect(codeOf(() => kb.model('eleutherai/pythia-999b'))).toBe('NOT_FOUND');
    expect(codeOf(() => kb.provider('nobody'))).toBe('NOT_FOUND');
    expect(codeOf(() => kb.dataset('no-such-dataset'))).toBe('NOT_FOUND');
    expect(codeOf(() => kb.modelsTrainedOn('no-such-dataset'))).toBe('NOT_FOUND');
    expect(codeOf(() => kb.descendants('no-such-dataset'))).toBe('NOT_FOUND');
    expect(codeOf(() => kb.ancestors('no-such-dataset'))).toBe('NOT_FOUND');
    expect(codeOf(() => kb.exclusions('no-such-dataset'))).toBe('NOT_FOUND');
    expect(codeOf(() => kb.models({ dataset: 'no-such-dataset' }))).toBe('NOT_FOUND');
  });

  it('filters models', () => {
    expect(kb.models({ provider: 'Meta', disclosure: 'full' }).map((m) => m.id)).toEqual([
      'meta/llama-7b',
      'meta/llama-65b',
      'facebook/opt-66b',
    ]);
    expect(
      kb
        .models({ modality: 'image' })
        .map((m) => m.id)
        .sort(),
    ).toEqual(['compvis/stable-diffusion-v1-4', 'stabilityai/stable-diffusion-2']);
    expect(kb.models({ disclosure: 'undisclosed' }).length).toBe(6);
    const onPile = kb.models({ dataset: 'The Pile' }).map((m) => m.id);
    expect(onPile).toEqual(
      expect.arrayContaining(['eleutherai/pythia-6.9b', 'facebook/opt-66b', 'stabilityai/stablelm-3b-4e1t']),
    );
    expect(onPile).not.toContain('meta/llama-7b');
    expect(kb.models({ dataset: 'laion-5b' }).length).toBe(2);
  });
});

describe('kb modelsTrainedOn', () => {
  it('links Pythia to The Pile at 0.95', () => {
    const l = link('the-pile', 'eleutherai/pythia-6.9b');
    expect(l).toMatchObject({ certainty: CERTAINTY.full, relation: 'named', via: ['the-pile'], removed: [] });
    expect(l?.entry.name).toBe('The Pile');
  });

  it('reaches Books3 through The Pile for GPT-J', () => {
    const l = link('books3', 'eleutherai/gpt-j-6b');
    expect(l).toMatchObject({ relation: 'component', via: ['the-pile', 'books3'] });
    expect(l?.certainty).toBeCloseTo(0.95 * 0.9, 10);
    expect(l?.reason).toMatch(/The Pile ⊃ Books3/);
  });

  it('LLaMA-1 names Books3 directly', () => {
    expect(link('books3', 'meta/llama-7b')).toMatchObject({ certainty: 0.95, relation: 'named', via: ['books3'] });
  });

  it('StableLM-3B-4E1T removed Books3: no link, but an exclusion', () => {
    expect(link('books3', 'stabilityai/stablelm-3b-4e1t')).toBeUndefined();
    const rows = kb.exclusions('books3');
    expect(rows.map((r) => r.model.id)).toContain('stabilityai/stablelm-3b-4e1t');
    expect(rows.map((r) => r.entry.name).sort()).toEqual([
      'RedPajama-Data (without Books3)',
      'The Pile (without Books3)',
    ]);
    expect(kb.exclusions('the-pile')).toEqual([]);
  });

  it('a named parent with a removed part is down-weighted, and says which part', () => {
    const l = link('the-pile', 'stabilityai/stablelm-3b-4e1t');
    expect(l).toMatchObject({ relation: 'named', removed: ['books3'] });
    expect(l?.certainty).toBeCloseTo(0.95 * 0.8, 10);
    expect(l?.reason).toMatch(/without Books3/);
  });

  it('OPT names only some parts of The Pile', () => {
    const l = link('the-pile', 'facebook/opt-66b');
    expect(l).toMatchObject({ relation: 'parts', via: ['the-pile'] });
    expect(l?.certainty).toBeCloseTo(0.95 * 0.5, 10);
    expect(l?.reason).toMatch(/Pile-CC.*HackerNews/);
    expect(link('books3', 'facebook/opt-66b')).toBeUndefined();
    expect(link('project-gutenberg', 'facebook/opt-66b')?.certainty).toBe(0.95);
  });

  it('naming every part of a dataset counts as reaching it', () => {
    const l = link('smollm-corpus', 'huggingfacetb/smollm-1.7b');
    expect(l).toMatchObject({ relation: 'parts' });
    expect(l?.certainty).toBeCloseTo(0.95 * 0.9, 10);
  });

  it('partial disclosure starts at 0.85', () => {
    expect(link('common-crawl', 'openai/gpt-3-davinci')).toMatchObject({ certainty: 0.85, relation: 'named' });
    expect(link('webtext', 'openai/gpt-3-davinci')?.certainty).toBeCloseTo(0.85 * 0.9, 10);
  });

  it('undisclosed models (GPT-4, Claude) link to nothing', () => {
    const undisclosed = new Set(kb.models({ disclosure: 'undisclosed' }).map((m) => m.id));
    expect(undisclosed).toContain('openai/gpt-4');
    expect(undisclosed).toContain('anthropic/claude-2');
    expect(undisclosed).toContain('anthropic/claude-opus-4');
    for (const d of kb.datasets()) {
      const links = kb.modelsTrainedOn(d.id, { modality: 'any' });
      for (const l of links) expect(undisclosed.has(l.model.id), `${l.model.id} → ${d.id}`).toBe(false);
      // one link per model, sorted by certainty, certainties in (0, 1)
      expect(new Set(links.map((l) => l.model.id)).size).toBe(links.length);
      for (let i = 1; i < links.length; i++) expect(links[i - 1].certainty).toBeGreaterThanOrEqual(links[i].certainty);
      for (const l of links) {
        expect(l.certainty).toBeGreaterThan(0);
        expect(l.certainty).toBeLessThan(1);
        expect(l.via[l.via.length - 1]).toBe(d.id);
        expect(l.reason).toMatch(/\.$/);
      }
    }
  });

  it('leaves image models out unless asked', () => {
    expect(kb.modelsTrainedOn('laion-5b')).toEqual([]);
    expect(link('laion-2b-en', 'compvis/stable-diffusion-v1-4')).toBeUndefined();
    expect(link('laion-2b-en', 'compvis/stable-diffusion-v1-4', 'image')?.certainty).toBe(0.95);
    expect(
      kb
        .modelsTrainedOn('laion-5b', { modality: 'any' })
        .map((l) => l.model.id)
        .sort(),
    ).toEqual(['compvis/stable-diffusion-v1-4', 'stabilityai/stable-diffusion-2']);
    expect(kb.modelsTrainedOn('common-crawl').some((l) => l.model.modality === 'image')).toBe(false);
  });
});

describe('kb from a custom source', () => {
  const fact = (
    model: string,
    training_datasets: string[],
    disclosure: KbModelFact['disclosure'] = 'full',
  ): KbModelFact => ({
    model,
    provider: 'Test Lab',
    release_year: 2024,
    modality: 'text',
    training_datasets,
    training_tokens: null,
    disclosure,
    notes: '',
    sources: ['test'],
    uncertain_fields: [],
  });
  const data = (id: string, components: string[] = []): KbDataset => ({
    id,
    name: id.toUpperCase(),
    kind: 'mixture',
    aliases: [id],
    components,
    pirated: false,
    public_domain_in: [],
    description: id,
    sources: ['test'],
  });
  const datasets = [data('mix', ['web', 'books']), data('books', ['shadow']), data('shadow'), data('web')];

  it('an entry that removes an ancestor on the path gives no link', () => {
    const kb2 = new KnowledgeBase({
      datasets,
      models: [fact('lab/a', ['mix without books']), fact('lab/b', ['mix'], 'partial')],
      entries: { 'mix without books': { datasets: ['mix'], excludes: ['books'] }, mix: { datasets: ['mix'] } },
    });
    expect(kb2.modelsTrainedOn('shadow').map((l) => [l.model.id, l.certainty, l.via])).toEqual([
      ['lab/b', 0.765, ['mix', 'books', 'shadow']],
    ]);
    expect(kb2.exclusions('shadow').map((r) => r.model.id)).toEqual(['lab/a']);
    expect(kb2.modelsTrainedOn('mix').map((l) => [l.model.id, l.certainty])).toEqual([
      ['lab/b', 0.85],
      ['lab/a', 0.76],
    ]);
    expect(kb2.provider('test-lab').models).toEqual(['lab/a', 'lab/b']);
  });

  it('refuses unmapped entries, unknown ids, colliding names and cycles', () => {
    const entries = { mix: { datasets: ['mix'] } };
    expect(codeOf(() => new KnowledgeBase({ datasets, entries, models: [fact('lab/a', ['unmapped'])] }))).toBe(
      'INVALID_INPUT',
    );
    expect(
      codeOf(
        () => new KnowledgeBase({ datasets, models: [fact('lab/a', ['x'])], entries: { x: { datasets: ['nope'] } } }),
      ),
    ).toBe('INVALID_INPUT');
    expect(codeOf(() => new KnowledgeBase({ datasets: [data('a', ['b'])], models: [], entries }))).toBe(
      'INVALID_INPUT',
    );
    expect(
      codeOf(() => new KnowledgeBase({ datasets: [data('a', ['b']), data('b', ['a'])], models: [], entries })),
    ).toBe('INVALID_INPUT');
    expect(
      codeOf(() => new KnowledgeBase({ datasets: [data('a'), { ...data('b'), aliases: ['A'] }], models: [], entries })),
    ).toBe('INVALID_INPUT');
    expect(
      codeOf(() => new KnowledgeBase({ datasets, entries, models: [fact('lab/a', ['mix']), fact('lab/a', ['mix'])] })),
    ).toBe('INVALID_INPUT');
  });
});
