/**
 * JSON Schemas of the knowledge-base routes (`/api/v1/kb/…`): models, providers, curated datasets,
 * the jurisdiction table and the factor codes.
 */
import { bool, code, codes, listOf, num01, object, resourceSchemas, str, strings, strOrNull } from './kit.js';

const KB_MODEL_PROPS = {
  id: str,
  provider: str,
  provider_id: str,
  release_year: { type: ['integer', 'null'] },
  modality: { enum: ['text', 'image'] },
  disclosure: { enum: ['full', 'partial', 'undisclosed'] },
  training_datasets: {
    type: 'array',
    items: object({ name: str, datasets: strings, excludes: strings, share: strOrNull, subset_of: strings }),
  },
  training_tokens: strOrNull,
  notes: str,
  sources: strings,
  uncertain_fields: strings,
} as const;
export const [KB_MODEL_SCHEMA, KB_MODEL_RESPONSE_SCHEMA, KB_MODEL_LIST_SCHEMA] = resourceSchemas(
  KB_MODEL_PROPS,
  'models',
);
export const KB_PROVIDER_LIST_SCHEMA = listOf('providers', object({ id: str, name: str, models: strings }));

const KB_DATASET_PROPS = {
  id: str,
  name: str,
  kind: str,
  aliases: strings,
  components: strings,
  pirated: bool,
  public_domain_in: strings,
  description: str,
  sources: strings,
} as const;
export const [KB_DATASET_SCHEMA, KB_DATASET_RESPONSE_SCHEMA, KB_DATASET_LIST_SCHEMA] = resourceSchemas(
  KB_DATASET_PROPS,
  'datasets',
);
export const JURISDICTION_LIST_SCHEMA = listOf(
  'jurisdictions',
  object({
    code: str,
    name: str,
    base: num01,
    factors: codes,
    reasons: str,
  }),
);
export const FACTOR_LIST_SCHEMA = listOf(
  'factors',
  object({
    code,
    category: { enum: ['evidence', 'attribution', 'limitation', 'jurisdiction', 'risk_modifier'] },
    meaning: str,
    source: str,
  }),
);
