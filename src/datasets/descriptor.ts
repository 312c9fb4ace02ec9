/**
 * A dataset's descriptor: the contract every door reads it through ({@link CREATE_DATASET_REQUEST}; the documents
 * stream outside it, each checked as it comes), and the descriptor an exact dataset keeps wherever it lives.
 */
import { intIn, modelId, object } from '../util/json-schema.js';
import { contract, invalidField } from '../util/schema-check.js';
import { checkPortraitBackground } from './background.js';
import { checkCommonRule } from './common.js';
import type { DatasetDeclaration, DatasetDescriptor } from './types.js';

/** Largest portrait window. */
export const PORTRAIT_MAX_WINDOW = 64;

/**
 * The id of a dataset an account creates or imports over HTTP (letters, digits, `.`, `_`, `-`; at most 200): no `:`,
 * so an account cannot take a name of the shipped packs' family (`pack:gutenberg`).
 */
export const DATASET_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$';

/** A dataset's id, as every door takes it (an HTTP door adds {@link DATASET_ID_PATTERN} where it creates one). */
export const DATASET_ID = { type: 'string', minLength: 1, maxLength: 200 } as const;

/** A document's id, as every door takes it. */
export const DOCUMENT_ID = { type: 'string', minLength: 1, maxLength: 1000 } as const;

/** Documents as a request to the HTTP API carries them (creating a dataset, adding to one): at most 100,000. */
export const SERVED_DOCUMENTS = {
  type: 'array',
  minItems: 1,
  maxItems: 100_000,
  items: object({ id: DOCUMENT_ID, text: { type: 'string' }, meta: {} }, ['meta']),
} as const;

/** What a descriptor declares the corpus samples (a knowledge-base dataset, models trained on it). */
const DECLARED = { kb_dataset: { type: 'string', minLength: 1 }, models: { type: 'array', items: modelId } } as const;

const DESCRIPTOR_PROPS = {
  id: DATASET_ID,
  name: { type: 'string', maxLength: 1000 },
  kind: { enum: ['exact', 'portrait'] },
  window: intIn(1, PORTRAIT_MAX_WINDOW),
  // its fields are checkPortraitBackground's and checkCommonRule's (the rules), which pack manifests read too
  background: { type: 'object' },
  locate: { type: 'boolean' },
  common: { type: 'object' },
  models: DECLARED.models,
  kb_dataset: DECLARED.kb_dataset,
  keep_text: { type: 'boolean' },
  meta: {},
} as const;

/** The fields of one kind only: a portrait's, an exact dataset's. */
const KIND_ONLY = { portrait: ['window', 'background', 'locate', 'common'], exact: ['keep_text'] } as const;

/**
 * What a descriptor's schema cannot say: a field of one kind only given for the other (`kind` absent is `'exact'`);
 * a background and a common rule of their shapes.
 * @throws INVALID_INPUT naming the field
 * @example descriptorRules({ id: 'books', window: 8 }) // INVALID_INPUT: window: is an option of kind 'portrait' only
 */
export function descriptorRules(d: DatasetDescriptor): void {
  const other = d.kind === 'portrait' ? 'exact' : 'portrait';
  const misplaced = KIND_ONLY[other].find((k) => d[k] !== undefined);
  if (misplaced) invalidField(misplaced, `is an option of kind '${other}' only`);
  if (d.background !== undefined) checkPortraitBackground(d.background);
  if (d.common !== undefined) checkCommonRule(d.common);
}

const { id, background: _b, locate: _l, common: _c, ...SERVED_PROPS } = DESCRIPTOR_PROPS;
const SERVED = { id: { ...id, pattern: DATASET_ID_PATTERN }, ...SERVED_PROPS, documents: SERVED_DOCUMENTS };
const allButId = (props: object) => Object.keys(props).filter((k) => k !== 'id');

/**
 * A dataset's descriptor, written once: the library reads it through this (`addDataset`, `addFingerprintedDocuments`,
 * a dataset file's payload). `POST /api/v1/datasets` serves it with its first `documents` ({@link SERVED_DOCUMENTS}),
 * an id of {@link DATASET_ID_PATTERN}, and without the packs' portrait options (`background`, `locate`, `common`).
 * @example readThrough(CREATE_DATASET_REQUEST, { id: 'books', kind: 'portrait', window: 12 }, undefined)
 */
export const CREATE_DATASET_REQUEST = contract<DatasetDescriptor>(
  'createDataset',
  object(DESCRIPTOR_PROPS, allButId(DESCRIPTOR_PROPS)),
  descriptorRules,
  object(SERVED, allButId(SERVED)),
);

const declarable = { kb_dataset: { ...DECLARED.kb_dataset, type: ['string', 'null'] } };
/**
 * What `declareDataset` sets on a loaded dataset: the descriptor's declarations, as {@link CREATE_DATASET_REQUEST}
 * takes them, `null` removing one.
 * @example readThrough(DECLARE_DATASET_REQUEST, { kb_dataset: null, models: ['eleutherai/pythia-6.9b'] }, undefined)
 */
export const DECLARE_DATASET_REQUEST = contract<DatasetDeclaration>(
  'declareDataset',
  object({ ...declarable, models: { ...DECLARED.models, type: ['array', 'null'] } }, ['kb_dataset', 'models']),
);

/**
 * The documented fields of `d` as an exact dataset's descriptor (`keep_text` only when false, its default
 * being true; `models` copied).
 * @example exactDescriptor({ id: 'books', keep_text: true }) // { id: 'books', kind: 'exact' }
 */
export function exactDescriptor(d: DatasetDescriptor): DatasetDescriptor & { kind: 'exact' } {
  const { id, name, models, kb_dataset, meta, keep_text } = d;
  return {
    id,
    kind: 'exact',
    ...(name === undefined ? {} : { name }),
    ...(keep_text === false ? { keep_text: false } : {}),
    ...(models === undefined ? {} : { models: [...models] }),
    ...(kb_dataset === undefined ? {} : { kb_dataset }),
    ...(meta === undefined ? {} : { meta }),
  };
}
