/**
 * The words the OpenAPI document shows of a request's fields. Validation reads a contract's schema
 * (src/services/<name>/schema.ts) and needs none of its prose, which would ship in the main library with every
 * copy of it; so the schemas carry what is checked and this table carries what is said, keyed by the schema
 * object it describes and then by property path. src/http/openapi.ts joins the two ({@link documented}) where it
 * emits a schema, so the route rows keep the contracts' own objects (the same object as a `REQUESTS` entry) and
 * every use of a shared fragment (a model id, a jurisdiction) is described alike.
 */
import type { JsonSchema } from '../context.js';
import { ANALYZE_REQUEST_SCHEMA, declarations, jurisdiction, modelId, REQUESTS } from '../../library.js';

/**
 * Doc-only keywords (`description`, `title`, `examples`) by property path: `'content'`, `'metadata.jurisdiction'`,
 * or `''` for the schema itself.
 */
export type FieldDocs = Readonly<Record<string, JsonSchema>>;

/**
 * `schema` with `docs` joined: copied along each documented path only, so every other member stays the same object
 * (a named schema inside it is still a `$ref`). A path the schema lacks throws: the words would describe nothing.
 * @example documented(REQUESTS.listModels.served, { dataset: { description: 'A dataset id or name' } })
 */
export function documented(schema: JsonSchema, docs: FieldDocs): JsonSchema {
  let out = schema;
  for (const [path, words] of Object.entries(docs)) out = joinAt(out, path === '' ? [] : path.split('.'), words, path);
  return out;
}

function joinAt(schema: JsonSchema, keys: readonly string[], words: JsonSchema, path: string): JsonSchema {
  if (keys.length === 0) {
    // the words go before the vendor extensions (`x-pattern-hint`), where a schema writes them
    const own = Object.entries(schema);
    const ext = own.filter(([k]) => k.startsWith('x-'));
    return Object.fromEntries([...own.filter(([k]) => !k.startsWith('x-')), ...Object.entries(words), ...ext]);
  }
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  const [key, ...rest] = keys;
  if (!props || !Object.hasOwn(props, key)) throw new Error(`field docs: no member at ${path}`);
  return { ...schema, properties: { ...props, [key]: joinAt(props[key], rest, words, path) } };
}

const KEPT = { description: 'Kept in the result, and in `register_prefill` for registering the work.' };
/** Analyze's members, some of which score and a registration take whole. */
const ANALYZE_DOCS = {
  content: {
    description:
      'The text (at most 10 MiB of UTF-8); for a file (`epub`, `pdf`, `docx`) its bytes in base64 with `content_encoding: "base64"` (over HTTP at most the plan\'s `fileBytes`, or sent as a multipart upload; in the library `maxFileBytes`, default 64 MiB).',
  },
  content_type: {
    description:
      'Markup is reduced to its readable text and spans point into `content`; a file is reduced to its text (`extraction`) and spans point into that.',
  },
  content_encoding: {
    description: 'How `content` carries a file: required with `epub`, `pdf` and `docx`, refused with the text types.',
  },
  include_text: {
    description:
      'Files only: return the extracted text in `extraction.text` (kept with the stored analysis). Default false.',
  },
  quotations: {
    description:
      "How text the work quotes counts (a match inside quotation marks, a block quote or an attribution, or a passage the datasets hold in several documents, in a work that is not mostly corpus text): 'exclude' (default) shows it as a quotation (`matches[].role`) and leaves it out of `confidence`, which is about the work's own text; 'count' counts it (checking a model's output).",
  },
  search_remote: {
    description:
      'false keeps the content on this server: the remote corpora the server is configured with (sent the text to their engines) are left out. Default true.',
  },
  'metadata.title': KEPT,
  'metadata.author': KEPT,
  'metadata.jurisdiction': { description: 'ISO 3166 code: US, DE, EU, US-CA …' },
} as const;
/** Compare's two texts, as the library and a server bound them. */
const COMPARE_DOCS = {
  a: { description: 'First text (e.g. the suspect); spans `a_start`/`a_end` index it' },
  b: { description: 'Second text (e.g. the source)' },
};

/** Every documented schema, by identity: a contract's `served` object or a shared fragment. */
export const FIELD_DOCS: ReadonlyMap<object, FieldDocs> = new Map<object, FieldDocs>([
  [modelId, { '': { description: '`provider/model_name` of the knowledge base' } }],
  [jurisdiction, { '': { description: 'ISO 3166: `US`, `DE`, `EU`, `US-CA`, `GB-SCT`' } }],
  [ANALYZE_REQUEST_SCHEMA, ANALYZE_DOCS],
  [REQUESTS.compare.served, COMPARE_DOCS],
  [
    REQUESTS.fingerprint.served,
    {
      content: { description: 'At most 10 MiB of UTF-8' },
      content_type: { description: 'How to read `content` (markup is reduced to its text). Default `text`' },
      include_winnow: {
        description: 'Also return the winnowed fingerprints with their spans in `content`. Default false',
      },
    },
  ],
  [declarations, { since: { description: 'ISO 8601 date' } }],
  [
    REQUESTS.registerWork.served,
    {
      content: {
        description:
          'The work (at most 10 MiB of UTF-8), or a file\'s bytes in base64 with `content_encoding: "base64"` (at ' +
          "most the plan's `fileBytes`; or a multipart upload); or give `fingerprint`",
      },
      content_type: {
        description:
          'How to read `content`: a file (`epub`, `pdf`, `docx`) is kept as its extracted text. Default `text`',
      },
      content_encoding: ANALYZE_DOCS.content_encoding,
      'metadata.jurisdiction': {
        description: 'Refused with a reason: a registration has no jurisdiction (score and monitors take one)',
      },
    },
  ],
  [REQUESTS.verifyReceipt.served, { receipt: { description: 'A receipt as returned by register' } }],
  [
    REQUESTS.score.served,
    {
      work_hash: { description: 'A work the account registered from its content; or give `content`' },
      content: {
        description:
          "The work, scored without being registered: a text (at most 10 MiB of UTF-8), or a file's bytes in base64 " +
          'with `content_encoding: "base64"` (at most the plan\'s `fileBytes`); or give `work_hash`',
      },
      content_type: { description: `${ANALYZE_DOCS.content_type.description} Default \`text\`.` },
      content_encoding: ANALYZE_DOCS.content_encoding,
      include_text: ANALYZE_DOCS.include_text,
    },
  ],
  [
    REQUESTS.listModels.served,
    { dataset: { description: 'Models with a documented link to this dataset (id or name)' } },
  ],
]);

/**
 * A schema as the document shows it: with its words from {@link FIELD_DOCS}, or itself.
 * @example described(REQUESTS.score.served).properties.work_hash.description // 'A work the account registered …'
 */
export function described(schema: JsonSchema): JsonSchema {
  const docs = FIELD_DOCS.get(schema);
  return docs ? documented(schema, docs) : schema;
}
