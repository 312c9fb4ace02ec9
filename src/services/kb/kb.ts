/**
 * The knowledge base: models, their documented training data, and the curated dataset table, with the
 * question the attribution engine asks of it — "which models document training on text of dataset D, and
 * how sure is that?" ({@link KnowledgeBase.modelsTrainedOn}).
 *
 * Certainty rules (documentation only; nothing is inferred from model behaviour):
 * - base: 0.95 when the model's disclosure is `full`, 0.85 when `partial`; `undisclosed` models never link
 *   (they name no dataset);
 * - the entry names D: base;
 * - D is reached as a component of a dataset the entry names (Books3 via The Pile): base × 0.9, with `via`
 *   the path from the named dataset down to D (× 0.9 once, however deep);
 * - the entry removes D, or removes a dataset on every path down to D → no link;
 * - the entry names D (or a dataset containing it) but removes a part of D ("The Pile (without Books3)"
 *   asked for The Pile): × 0.8, the reason names the removed part;
 * - the model names only some parts of D (OPT's "The Pile subset (…)"): base × 0.5, the reason lists them;
 *   when its entries name every component of D but never D itself (SmolLM-Corpus): base × 0.9;
 * - image models are left out unless `modality` is `'image'` or `'any'`;
 * - one link per model, the most certain (ties keep the first entry in documented order).
 */

import { TrainprintError } from '../../errors.js';
import { DATASETS, ENTRY_MAP, datasetKey, type EntryMapping } from './datasets.js';
import { MODEL_FACTS } from './models.generated.js';
import { MODEL_FACTS_SUPPLEMENT } from './models-supplement.js';
import type { KbDataset, KbModel, KbModelDataset, KbModelFact, KbProvider, Modality, ModelLink } from './types.js';
import { round3 } from '../../util/round.js';
import { readThrough } from '../../util/schema-check.js';
import { LIST_MODELS_REQUEST, type ModelFilter } from './schema.js';

export type { ModelFilter } from './schema.js';

/** Options of {@link KnowledgeBase.modelsTrainedOn}. */
export interface TrainedOnOptions {
  /**
   * Which models to consider: text analysis links text models only.
   * @default 'text'
   */
  readonly modality?: Modality | 'any';
}

/**
 * Every bundled model record: the generated facts, then the hand-curated supplement
 * (src/services/kb/models-supplement.ts). `KB_FACTS_SOURCE.records` counts the generated ones only.
 * @example
 * KB_MODEL_FACTS.length === MODEL_FACTS.length + MODEL_FACTS_SUPPLEMENT.length // true
 */
export const KB_MODEL_FACTS: readonly KbModelFact[] = Object.freeze([...MODEL_FACTS, ...MODEL_FACTS_SUPPLEMENT]);

/** Where a {@link KnowledgeBase} takes its facts from; each field defaults to the bundled table. */
export interface KnowledgeBaseSource {
  readonly models?: readonly KbModelFact[];
  readonly datasets?: readonly KbDataset[];
  readonly entries?: Readonly<Record<string, EntryMapping>>;
}

/** A model that documents removing a dataset, with the entry that says so. */
export interface KbExclusion {
  readonly model: KbModel;
  readonly entry: KbModelDataset;
}

/**
 * The factors of the certainty rules in the module comment.
 * @example
 * CERTAINTY.full * CERTAINTY.component // 0.855: Books3 reached through The Pile for a fully disclosed model
 */
export const CERTAINTY = Object.freeze({
  full: 0.95,
  partial: 0.85,
  component: 0.9,
  removedPart: 0.8,
  someParts: 0.5,
  everyPart: 0.9,
});

/**
 * Provider id: lower-case ASCII words joined by `-` ("Allen Institute for AI" → `allen-institute-for-ai`).
 * @example
 * providerSlug('Alibaba (Qwen)') // 'alibaba-qwen'
 */
export function providerSlug(name: string): string {
  return name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const invalid = (detail: string) => new TrainprintError('INVALID_INPUT', `knowledge base: ${detail}`);

/**
 * Models, providers and datasets of the knowledge base, indexed once. The bundled facts are checked when
 * it is built: every documented training-data string must be mapped ({@link ENTRY_MAP}), every id it or a
 * dataset mentions must exist, aliases must not collide and components must form a DAG.
 *
 * @throws `INVALID_INPUT` from the constructor when a custom `source` breaks one of those rules.
 * @example
 * const kb = new KnowledgeBase()
 * kb.modelsTrainedOn('books3').map((l) => [l.model.id, l.certainty])
 * // [['meta/llama-65b', 0.95], ['meta/llama-7b', 0.95], ['cerebras/cerebras-gpt-13b', 0.855], …]
 */
export class KnowledgeBase {
  readonly #models: readonly KbModel[];
  readonly #modelById = new Map<string, KbModel>();
  readonly #providers: readonly KbProvider[];
  readonly #datasets: readonly KbDataset[];
  readonly #datasetById = new Map<string, KbDataset>();
  readonly #parents = new Map<string, string[]>();
  readonly #byKey = new Map<string, string>();
  readonly #entries: Readonly<Record<string, EntryMapping>>;
  /** The model facts it was built from ({@link extend} builds on them). */
  readonly #facts: readonly KbModelFact[];
  /**
   * Answers of modelsTrainedOn and exclusions, per dataset (and modality): the facts never change after
   * construction, and analyze asks the same question for every dataset on every call (≈ 0.2 ms each).
   */
  readonly #linksOf = new Map<string, readonly ModelLink[]>();
  readonly #exclusionsOf = new Map<string, readonly KbExclusion[]>();

  constructor(source: KnowledgeBaseSource = {}) {
    this.#entries = source.entries ?? ENTRY_MAP;
    this.#datasets = Object.freeze((source.datasets ?? DATASETS).map(freezeDataset));
    for (const d of this.#datasets) {
      if (this.#datasetById.has(d.id)) throw invalid(`duplicate dataset id ${d.id}`);
      this.#datasetById.set(d.id, d);
      this.#parents.set(d.id, []);
    }
    for (const d of this.#datasets) {
      for (const c of d.components) {
        if (!this.#datasetById.has(c)) throw invalid(`dataset ${d.id} has unknown component ${c}`);
        this.#parents.get(c)!.push(d.id);
      }
      for (const name of [d.id, d.name, ...d.aliases]) {
        const key = datasetKey(name);
        const other = this.#byKey.get(key);
        if (other !== undefined && other !== d.id)
          throw invalid(`name "${name}" of ${d.id} is also a name of ${other}`);
        this.#byKey.set(key, d.id);
      }
    }
    for (const d of this.#datasets) {
      if (this.descendants(d.id).includes(d.id)) throw invalid(`dataset ${d.id} contains itself`);
    }

    const providers = new Map<string, { id: string; name: string; models: string[] }>();
    this.#facts = source.models ?? KB_MODEL_FACTS;
    this.#models = Object.freeze(
      this.#facts.map((fact) => {
        const model = this.#toModel(fact);
        if (this.#modelById.has(model.id)) throw invalid(`duplicate model ${model.id}`);
        this.#modelById.set(model.id, model);
        let p = providers.get(model.provider_id);
        if (!p) providers.set(model.provider_id, (p = { id: model.provider_id, name: model.provider, models: [] }));
        p.models.push(model.id);
        return model;
      }),
    );
    this.#providers = Object.freeze(
      [...providers.values()].map((p) => Object.freeze({ ...p, models: Object.freeze(p.models) })),
    );
  }

  /**
   * A new knowledge base holding this one's facts and `more`: models and datasets added (an id this one has is
   * INVALID_INPUT: replace the whole base with `new KnowledgeBase(source)` to change a fact), and training-data
   * strings mapped, over this one's mappings. This one is left as it is. Pass the result to `createEngine({ kb })`.
   * @throws `INVALID_INPUT` when the combined facts break a rule of the constructor.
   * @example
   * const kb = knowledgeBase().extend({
   *   datasets: [{ id: 'house-archive', name: 'House Archive', kind: 'books', aliases: [], components: [],
   *     pirated: false, public_domain_in: [], description: 'Our back catalogue', sources: ['https://example.org'] }],
   *   entries: { 'House Archive': { datasets: ['house-archive'] } },
   *   models: [{ model: 'acme/writer-1', provider: 'Acme', release_year: 2026, modality: 'text',
   *     training_datasets: ['House Archive', 'The Pile'], training_tokens: null, disclosure: 'full', notes: '',
   *     sources: ['https://example.org/writer-1'], uncertain_fields: [] }],
   * })
   * const engine = await createEngine({ kb })
   */
  extend(more: KnowledgeBaseSource): KnowledgeBase {
    if (more === null || typeof more !== 'object') throw invalid('extend() takes { models, datasets, entries }');
    return new KnowledgeBase({
      models: [...this.#facts, ...(more.models ?? [])],
      datasets: [...this.#datasets, ...(more.datasets ?? [])],
      entries: { ...this.#entries, ...more.entries },
    });
  }

  /**
   * Models, in the order of the facts, optionally filtered.
   * @throws `NOT_FOUND` when `filter.dataset` names no dataset; `INVALID_INPUT` naming a field the filter does not take
   * @example
   * knowledgeBase().models({ provider: 'meta', disclosure: 'full' }).map((m) => m.id)
   * // ['meta/llama-7b', 'meta/llama-65b', 'facebook/opt-66b']
   */
  models(filter: ModelFilter = {}): KbModel[] {
    filter = readThrough(LIST_MODELS_REQUEST, filter, undefined);
    const provider = filter.provider === undefined ? undefined : providerSlug(filter.provider);
    const linked =
      filter.dataset === undefined
        ? undefined
        : new Set(this.modelsTrainedOn(filter.dataset, { modality: 'any' }).map((l) => l.model.id));
    return this.#models.filter(
      (m) =>
        (provider === undefined || m.provider_id === provider) &&
        (filter.modality === undefined || m.modality === filter.modality) &&
        (filter.disclosure === undefined || m.disclosure === filter.disclosure) &&
        (linked === undefined || linked.has(m.id)),
    );
  }

  /**
   * One model by id (`provider/name`, any case).
   * @throws `NOT_FOUND` for an unknown id.
   * @example
   * knowledgeBase().model('EleutherAI/Pythia-6.9B').disclosure // 'full'
   */
  model(id: string): KbModel {
    const model = typeof id === 'string' ? this.#modelById.get(id.trim().toLowerCase()) : undefined;
    if (!model) throw new TrainprintError('NOT_FOUND', `no model ${JSON.stringify(id)} in the knowledge base`);
    return model;
  }

  /**
   * Providers in the order of the facts. The id is the slug of the provider's name, so Meta is `meta`
   * although its models live under `meta/`, `meta-llama/` and `facebook/`.
   * @example
   * knowledgeBase().providers().find((p) => p.id === 'meta')?.models.length // 7
   */
  providers(): KbProvider[] {
    return [...this.#providers];
  }

  /**
   * One provider by id or display name.
   * @throws `NOT_FOUND` for an unknown provider.
   * @example
   * knowledgeBase().provider('Allen Institute for AI').id // 'allen-institute-for-ai'
   */
  provider(id: string): KbProvider {
    const slug = typeof id === 'string' ? providerSlug(id) : '';
    const provider = this.#providers.find((p) => p.id === slug);
    if (!provider) throw new TrainprintError('NOT_FOUND', `no provider ${JSON.stringify(id)} in the knowledge base`);
    return provider;
  }

  /**
   * The curated dataset table.
   * @example
   * knowledgeBase().datasets().filter((d) => d.pirated).map((d) => d.id) // ['books3']
   */
  datasets(): KbDataset[] {
    return [...this.#datasets];
  }

  /**
   * One dataset by id, or by any name {@link resolveDatasetName} accepts.
   * @throws `NOT_FOUND` when nothing matches.
   * @example
   * knowledgeBase().dataset('PG-19').id // 'project-gutenberg'
   */
  dataset(id: string): KbDataset {
    const found = this.resolveDatasetName(id);
    if (found === null)
      throw new TrainprintError('NOT_FOUND', `no dataset ${JSON.stringify(id)} in the knowledge base`);
    return this.#datasetById.get(found)!;
  }

  /**
   * The dataset id a name refers to, or `null`. Matches ids, names and aliases ignoring case and
   * punctuation, then the same without parenthesised qualifiers ("C4 (15%)" → `c4`), then a documented
   * training-data string that names exactly one dataset ("Falcon RefinedWeb extract" → `refinedweb`).
   * @example
   * knowledgeBase().resolveDatasetName('Colossal Clean Crawled Corpus') // 'c4'
   */
  resolveDatasetName(name: string): string | null {
    if (typeof name !== 'string') return null;
    const exact = this.#byKey.get(datasetKey(name));
    if (exact !== undefined) return exact;
    let bare = name;
    for (let prev = ''; prev !== bare; ) [prev, bare] = [bare, bare.replace(/\([^()]*\)/g, ' ')];
    const stripped = this.#byKey.get(datasetKey(bare));
    if (stripped !== undefined) return stripped;
    const entry = Object.hasOwn(this.#entries, name) ? this.#entries[name] : undefined;
    return entry?.datasets.length === 1 ? entry.datasets[0] : null;
  }

  /**
   * Ids of every dataset assembled into `id`, nearest first.
   * @throws `NOT_FOUND` for an unknown dataset.
   * @example
   * knowledgeBase().descendants('redpajama-v1').includes('books3') // true (through its book slice)
   */
  descendants(id: string): string[] {
    return this.#walk(this.dataset(id).id, (d) => this.#datasetById.get(d)!.components);
  }

  /**
   * Ids of every dataset that `id` was assembled into, nearest first.
   * @throws `NOT_FOUND` for an unknown dataset.
   * @example
   * knowledgeBase().ancestors('books3') // ['the-pile', 'redpajama-books', 'the-pile-deduplicated', 'redpajama-v1']
   */
  ancestors(id: string): string[] {
    return this.#walk(this.dataset(id).id, (d) => this.#parents.get(d)!);
  }

  /**
   * Models whose documented training data contain text of a dataset, most certain first, by the rules in
   * this module's comment.
   * @throws `NOT_FOUND` for an unknown dataset.
   * @example
   * const [link] = knowledgeBase().modelsTrainedOn('books3').filter((l) => l.model.id === 'eleutherai/gpt-j-6b')
   * link.via       // ['the-pile', 'books3']
   * link.certainty // 0.855
   */
  modelsTrainedOn(datasetId: string, options: TrainedOnOptions = {}): ModelLink[] {
    const asked = this.dataset(datasetId);
    const modality = options.modality ?? 'text';
    const key = `${asked.id}\u0000${modality}`;
    let links = this.#linksOf.get(key);
    if (!links) {
      links = Object.freeze(this.#linksTo(asked, modality).map((l) => Object.freeze(l)));
      this.#linksOf.set(key, links);
    }
    return links.slice();
  }

  #linksTo(asked: KbDataset, modality: Modality | 'any'): ModelLink[] {
    const below = new Set(this.descendants(asked.id));
    const links: ModelLink[] = [];
    for (const model of this.#models) {
      if (model.disclosure === 'undisclosed') continue;
      if (modality !== 'any' && model.modality !== modality) continue;
      const best = this.#bestLink(model, asked, below);
      if (best) links.push(best);
    }
    return links.sort((a, b) => b.certainty - a.certainty || (a.model.id < b.model.id ? -1 : 1));
  }

  /**
   * Models that document removing a dataset (or a dataset containing it), one row per documenting entry:
   * the evidence for a "dataset excluded by provider" factor.
   * @throws `NOT_FOUND` for an unknown dataset.
   * @example
   * knowledgeBase().exclusions('books3').map((x) => x.entry.name)
   * // ['RedPajama-Data (without Books3)', 'The Pile (without Books3)']
   */
  exclusions(datasetId: string): KbExclusion[] {
    const asked = this.dataset(datasetId).id;
    let found = this.#exclusionsOf.get(asked);
    if (!found) {
      found = Object.freeze(this.#exclusionsFrom(asked).map((x) => Object.freeze(x)));
      this.#exclusionsOf.set(asked, found);
    }
    return found.slice();
  }

  #exclusionsFrom(asked: string): KbExclusion[] {
    const covering = new Set([asked, ...this.ancestors(asked)]);
    const out: KbExclusion[] = [];
    for (const model of this.#models) {
      for (const entry of model.training_datasets) {
        if (entry.excludes.some((x) => covering.has(x))) out.push({ model, entry });
      }
    }
    return out;
  }

  /** The most certain link from one model to the asked dataset, or null. */
  #bestLink(model: KbModel, asked: KbDataset, below: ReadonlySet<string>): ModelLink | null {
    const base = model.disclosure === 'full' ? CERTAINTY.full : CERTAINTY.partial;
    const who = `${model.id} (${model.disclosure} disclosure)`;
    let best: ModelLink | null = null;
    const offer = (link: Omit<ModelLink, 'model' | 'dataset'>) => {
      if (!best || link.certainty > best.certainty) best = { model, dataset: asked.id, ...link };
    };

    for (const entry of model.training_datasets) {
      if (entry.excludes.includes(asked.id)) continue;
      const removed = entry.excludes.filter((x) => below.has(x));
      const without = removed.length ? `, without ${this.#names(removed)}` : '';
      for (const named of entry.datasets) {
        const via = this.#path(named, asked.id, new Set(entry.excludes));
        if (!via) continue;
        const certainty =
          base * (via.length > 1 ? CERTAINTY.component : 1) * (removed.length ? CERTAINTY.removedPart : 1);
        const reason =
          via.length === 1
            ? `${who} documents "${entry.name}", which names ${asked.name}${without}.`
            : `${who} documents "${entry.name}", and ${asked.name} is part of it (${this.#names(via, ' ⊃ ')})${without}.`;
        offer({
          entry,
          via,
          relation: via.length > 1 ? 'component' : 'named',
          removed,
          certainty: round3(certainty),
          reason,
        });
      }
    }

    // Parts named as parts (subset_of) only: naming Wikipedia elsewhere says nothing about The Pile's copy.
    const partEntries = model.training_datasets.filter((e) => e.subset_of.includes(asked.id));
    if (partEntries.length) {
      const parts = [...new Set(partEntries.flatMap((e) => e.datasets))];
      const every = asked.components.length > 0 && asked.components.every((c) => parts.includes(c));
      const certainty = base * (every ? CERTAINTY.everyPart : CERTAINTY.someParts);
      const reason = every
        ? `${who} names every part of ${asked.name} (${this.#names(parts)}) but not ${asked.name} itself.`
        : `${who} names only some parts of ${asked.name}: ${this.#names(parts)}.`;
      offer({
        entry: partEntries[0],
        via: [asked.id],
        relation: 'parts',
        removed: [],
        certainty: round3(certainty),
        reason,
      });
    }
    return best;
  }

  /** Shortest component path from `from` down to `to` that avoids removed datasets, or null. */
  #path(from: string, to: string, removed: ReadonlySet<string>): string[] | null {
    if (removed.has(from)) return null;
    const prev = new Map<string, string | null>([[from, null]]);
    const queue = [from];
    for (let i = 0; i < queue.length; i++) {
      const id = queue[i];
      if (id === to) {
        const path: string[] = [];
        for (let at: string | null = id; at !== null; at = prev.get(at)!) path.push(at);
        return path.reverse();
      }
      for (const c of this.#datasetById.get(id)!.components) {
        if (!prev.has(c) && !removed.has(c)) {
          prev.set(c, id);
          queue.push(c);
        }
      }
    }
    return null;
  }

  /** Breadth-first closure of `next` from `start`, without `start` unless a cycle returns to it. */
  #walk(start: string, next: (id: string) => readonly string[]): string[] {
    const seen = new Set<string>();
    const queue = [start];
    for (let i = 0; i < queue.length; i++) {
      for (const n of next(queue[i])) {
        if (!seen.has(n)) {
          seen.add(n);
          queue.push(n);
        }
      }
    }
    return [...seen];
  }

  #names(ids: readonly string[], sep = ', '): string {
    return ids.map((id) => this.#datasetById.get(id)?.name ?? id).join(sep);
  }

  /** One fact record → a frozen KbModel, with its entries resolved through the entry map. */
  #toModel(fact: KbModelFact): KbModel {
    const entries = fact.training_datasets.map((name): KbModelDataset => {
      const m = Object.hasOwn(this.#entries, name) ? this.#entries[name] : undefined;
      if (!m) throw invalid(`training-data entry ${JSON.stringify(name)} of ${fact.model} is not in the entry map`);
      for (const id of [...m.datasets, ...(m.excludes ?? []), ...(m.subset_of ?? [])]) {
        if (!this.#datasetById.has(id)) throw invalid(`entry ${JSON.stringify(name)} refers to unknown dataset ${id}`);
      }
      return Object.freeze({
        name,
        datasets: Object.freeze([...m.datasets]),
        excludes: Object.freeze([...(m.excludes ?? [])]),
        share: m.share ?? null,
        subset_of: Object.freeze([...(m.subset_of ?? [])]),
      });
    });
    return Object.freeze({
      id: fact.model.toLowerCase(),
      provider: fact.provider,
      provider_id: providerSlug(fact.provider),
      release_year: fact.release_year,
      modality: fact.modality,
      disclosure: fact.disclosure,
      training_datasets: Object.freeze(entries),
      training_tokens: fact.training_tokens,
      notes: fact.notes,
      sources: Object.freeze([...fact.sources]),
      uncertain_fields: Object.freeze([...fact.uncertain_fields]),
    });
  }
}

function freezeDataset(d: KbDataset): KbDataset {
  return Object.freeze({
    ...d,
    aliases: Object.freeze([...d.aliases]),
    components: Object.freeze([...d.components]),
    sources: Object.freeze([...d.sources]),
  });
}

let shared: KnowledgeBase | undefined;

/**
 * The knowledge base of the bundled facts, built on first use and shared.
 * @example
 * knowledgeBase().model('openai/gpt-4').disclosure // 'undisclosed'
 */
export function knowledgeBase(): KnowledgeBase {
  return (shared ??= new KnowledgeBase());
}
