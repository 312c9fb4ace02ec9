/**
 * JSON Schemas of the reference-dataset routes (`/api/v1/datasets…`): the two id patterns, a
 * dataset's stats, adding documents, the dataset file (creating one: `REQUESTS.createDataset`).
 */
import { SERVED_DOCUMENTS } from '../../library.js';
import { DOCUMENTS_DOCS, documented } from '../docs/fields.js';
import { bool, int0, listOf, num01, object, resourceSchemas, str } from './kit.js';

// a reference dataset id as the path and monitors name it (src/util/json-schema.ts); the id of one an account creates
// or imports (src/datasets/descriptor.ts)
export { DATASET_ID_PATTERN, DATASET_REF_PATTERN } from '../../library.js';

const DATASET_STATS_PROPS = {
  id: str,
  name: str,
  kind: {
    enum: ['exact', 'portrait', 'remote', 'source'],
    description:
      "`remote`: a training corpus searched through its engine (`serve --infini-gram …`); its sizes are the index's published ones. `source`: an evidence source the operator's code added (`engine.addEvidenceSource`); its sizes are the ones it reports",
  },
  documents: int0,
  tokens: int0,
  fingerprints: int0,
  bytes: int0,
  index_bytes: int0,
  params: str,
  kb_dataset: { type: ['string', 'null'], description: 'The declared knowledge-base dataset it samples' },
  models: { type: 'array', items: str, description: 'The declared models trained on it' },
  text_bytes: { ...int0, description: 'Exact only: UTF-8 bytes of the document texts kept for alignment' },
  window: int0,
  fpr: num01,
  filters: int0,
  storage: { enum: ['postgres'], description: "Where the index lives when not in the server's memory: PostgreSQL" },
  supplied_by: {
    enum: ['shipped', 'operator', 'account'],
    description:
      "`shipped`: a reference pack or the starter of the package, its sources documented with it; `operator`: loaded by the operator; `account`: created or imported by an account (the caller's own: another account's is not listed). A `kb_dataset` of a shipped dataset is documented; of any other, its loader's declaration",
  },
  durable: {
    type: 'boolean',
    description:
      "false: created or imported through the API and held in this server's memory, so a restart drops it (export it to keep it); true: the operator's (loaded at start or kept in PostgreSQL) or a reference pack",
  },
  remote: {
    ...object({
      engine: { enum: ['infini-gram', 'infini-gram-mini'] },
      endpoint: { ...str, description: 'Where analyzed text is sent' },
      index: str,
      declared: {
        ...bool,
        description: 'false: the knowledge base links the public index to its corpus; true: the operator declared it',
      },
    }),
    description: 'Remote only: the engine searched',
  },
  source: {
    ...object({ kind: str }),
    description: "Evidence sources only: what kind of source it is, in its own words (the operator's code)",
  },
} as const;
const DATASET_OPTIONAL = ['name', 'text_bytes', 'window', 'fpr', 'filters', 'storage', 'remote', 'source'];

/** Size and content of a reference dataset (`engine.datasets()`). */
export const [DATASET_STATS_SCHEMA, DATASET_RESPONSE_SCHEMA, DATASET_LIST_SCHEMA] = resourceSchemas(
  DATASET_STATS_PROPS,
  'datasets',
  listOf,
  DATASET_OPTIONAL,
);

/** Documents to add to a dataset, as creating one takes them. */
export const ADD_DOCUMENTS_REQUEST_SCHEMA = documented(object({ documents: SERVED_DOCUMENTS }), DOCUMENTS_DOCS);
export const BINARY_SCHEMA = {
  type: 'string',
  contentMediaType: 'application/octet-stream',
  description: 'A dataset file (msgpack, versioned, checksummed)',
} as const;
