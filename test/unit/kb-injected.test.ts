/**
 * `createEngine({ kb })`: the knowledge base is injected, so an operator can extend or replace the shipped one and a
 * test can use a small one. analyze, score, monitors and the look-ups all read the engine's, never the shipped one.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, isTrainprintError, KnowledgeBase, knowledgeBase, type KbModelFact } from '../../src/library.js';

const HOUSE_TEXT =
  'The lamplighter of Harrowgate kept a ledger of every wick he trimmed, and in the winter of the flood he wrote ' +
  'that the river had climbed the chapel steps twice before the bells could ring the hour of vespers for the town. ' +
  'His daughter copied the ledger by candlelight, adding the names of the barges that sheltered under the old ' +
  'stone bridge, and the grain they carried, and the prices the millers paid when the water fell again in spring.';

const FACT: KbModelFact = {
  model: 'acme/writer-1',
  provider: 'Acme',
  release_year: 2026,
  modality: 'text',
  training_datasets: ['House Corpus'],
  training_tokens: null,
  disclosure: 'full',
  notes: '',
  sources: ['https://example.org/writer-1'],
  uncertain_fields: [],
};

/** One dataset and one model trained on it: nothing of the shipped facts. */
function smallKb(): KnowledgeBase {
  return new KnowledgeBase({
    datasets: [
      {
        id: 'house-corpus',
        name: 'House Corpus',
        kind: 'books',
        aliases: [],
        components: [],
        pirated: false,
        public_domain_in: [],
        description: 'A publisher’s own archive, as declared by the operator.',
        sources: ['https://example.org/house-corpus'],
      },
    ],
    entries: { 'House Corpus': { datasets: ['house-corpus'] } },
    models: [FACT],
  });
}

describe('createEngine({ kb })', () => {
  it('the look-ups read the injected knowledge base', async () => {
    const engine = await createEngine({ kb: smallKb() });
    expect(engine.models().map((m) => m.id)).toEqual(['acme/writer-1']);
    expect(engine.kbDatasets().map((d) => d.id)).toEqual(['house-corpus']);
    expect(engine.model('Acme/Writer-1').training_datasets[0].datasets).toEqual(['house-corpus']);
    // the shipped one is the default, and is not changed by another engine's
    const shipped = await createEngine();
    expect(shipped.kb).toBe(knowledgeBase());
    expect(shipped.models().length).toBeGreaterThan(50);
    const err = await Promise.resolve()
      .then(() => engine.model('eleutherai/pythia-6.9b'))
      .catch((e: unknown) => e);
    expect(isTrainprintError(err) && err.code).toBe('NOT_FOUND');
  });

  it('analyze, score and monitors link a dataset to the injected models', async () => {
    const engine = await createEngine({ kb: smallKb() });
    await engine.addDataset({ id: 'house', kb_dataset: 'house-corpus' }, [{ id: 'ledger', text: HOUSE_TEXT }]);
    const r = await engine.analyze({ content: `A reader wrote to us: ${HOUSE_TEXT}`, content_type: 'text' });
    expect(r.confidence).toBeGreaterThanOrEqual(50);
    expect(r.attribution_sources.map((s) => s.model)).toEqual(['acme/writer-1']);

    const work = await engine.registerWork({ content: HOUSE_TEXT, owner: 'house' });
    const s = await engine.score({ work_hash: work.work_hash, target_model: 'acme/writer-1', jurisdiction: 'US' });
    expect(s.score).toBeGreaterThanOrEqual(50);
    const unknown = await engine
      .score({ work_hash: work.work_hash, target_model: 'meta/llama-7b', jurisdiction: 'US' })
      .catch((e: unknown) => e);
    expect(isTrainprintError(unknown) && unknown.code).toBe('NOT_FOUND');

    // a monitor without models watches those the datasets link to: the injected model
    const m = await engine.createMonitor({ work_id: work.work_id });
    const events = await engine.evaluateMonitors();
    expect(events.filter((e) => e.data.monitor_id === m.monitor_id).map((e) => e.data.model)).toContain(
      'acme/writer-1',
    );
  });

  it('extend() adds to the shipped facts without changing them', async () => {
    const small = smallKb();
    const extended = knowledgeBase().extend({
      datasets: [small.dataset('house-corpus')],
      entries: { 'House Corpus': { datasets: ['house-corpus'] } },
      models: [{ ...FACT, training_datasets: ['House Corpus', 'The Pile'] }],
    });
    const engine = await createEngine({ kb: extended });
    expect(engine.models().length).toBe(knowledgeBase().models().length + 1);
    expect(engine.kb.modelsTrainedOn('house-corpus').map((l) => l.model.id)).toEqual(['acme/writer-1']);
    // through The Pile, the new model joins the shipped ones trained on its parts
    expect(engine.kb.modelsTrainedOn('books3').map((l) => l.model.id)).toContain('acme/writer-1');
    expect(
      knowledgeBase()
        .modelsTrainedOn('books3')
        .map((l) => l.model.id),
    ).not.toContain('acme/writer-1');
    // an id the base has already is refused: a fact is changed by building a whole new base
    const dup = (() => {
      try {
        return knowledgeBase().extend({ datasets: [knowledgeBase().dataset('books3')] });
      } catch (e) {
        return e;
      }
    })();
    expect(isTrainprintError(dup) && dup.code).toBe('INVALID_INPUT');
  });

  it('a kb that is not a KnowledgeBase is INVALID_OPTIONS', async () => {
    const err = await createEngine({ kb: { models: [] } as never }).catch((e: unknown) => e);
    expect(isTrainprintError(err) && err.code).toBe('INVALID_OPTIONS');
    expect((err as Error).message).toContain('kb must be a KnowledgeBase');
  });
});
