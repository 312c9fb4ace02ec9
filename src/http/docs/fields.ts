/**
 * The words the OpenAPI document shows of a request's fields. Validation reads a contract's schema
 * (src/services/<name>/schema.ts) and needs none of its prose, which would ship in the main library with every
 * copy of it; so the schemas carry what is checked and this table carries what is said, keyed by the schema
 * object it describes and then by property path. src/http/openapi.ts joins the two ({@link documented}) where it
 * emits a schema, so the route rows keep the contracts' own objects (the same object as a `REQUESTS` entry) and
 * every use of a shared fragment (a model id, a jurisdiction) is described alike.
 */
import type { JsonSchema } from '../context.js';
import {
  ANALYSIS_RESULT_SCHEMA,
  ANALYZE_REQUEST_SCHEMA,
  declarations,
  jurisdiction,
  MARKET_REQUESTS,
  MATCH_SCHEMA,
  MODEL_SPEC_SCHEMA,
  modelId,
  REFERENCE_SET_ID,
  REMOTE_REPORT_SCHEMA,
  REQUESTS,
  SUPPLIED_BY,
} from '../../library.js';

/**
 * Doc-only keywords (`description`, `title`, `examples`), or a description alone as a string, by path: `'content'`,
 * `'metadata.jurisdiction'`, `''` for the schema itself; `'works[]'` is the items of `works`, `'probe.oneOf[1]'` a
 * branch of `probe`.
 */
export type FieldDocs = Readonly<Record<string, JsonSchema | string>>;

/**
 * `schema` with `docs` joined: copied along each documented path only, so every other member stays the same object
 * (a named schema inside it is still a `$ref`). A shared fragment at the end of a path keeps its own words
 * ({@link FIELD_DOCS}) under the path's. A path the schema lacks throws: the words would describe nothing.
 * @example documented(REQUESTS.listModels.served, { dataset: 'A dataset id or name' })
 */
export function documented(schema: JsonSchema, docs: FieldDocs): JsonSchema {
  let out = schema;
  for (const [path, words] of Object.entries(docs)) out = joinAt(out, path === '' ? [] : path.split('.'), words, path);
  return out;
}

function joinAt(schema: JsonSchema, keys: readonly string[], words: JsonSchema | string, path: string): JsonSchema {
  if (keys.length === 0) {
    // the words go before the vendor extensions (`x-pattern-hint`), where a schema writes them; a member's own
    // words (a shared fragment's) first, under the container's
    const own = Object.entries(path === '' ? schema : described(schema));
    const ext = own.filter(([k]) => k.startsWith('x-'));
    const joined = typeof words === 'string' ? { description: words } : words;
    return Object.fromEntries([...own.filter(([k]) => !k.startsWith('x-')), ...Object.entries(joined), ...ext]);
  }
  const [key, ...rest] = keys;
  const branch = /^oneOf\[(\d+)\]$/.exec(key);
  if (branch) {
    const oneOf = [...((schema.oneOf as JsonSchema[] | undefined) ?? [])];
    const i = Number(branch[1]);
    if (!oneOf[i]) throw new Error(`field docs: no member at ${path}`);
    oneOf[i] = joinAt(oneOf[i], rest, words, path);
    return { ...schema, oneOf };
  }
  const items = key.endsWith('[]');
  const name = items ? key.slice(0, -2) : key;
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  if (!props || !Object.hasOwn(props, name) || (items && !props[name].items))
    throw new Error(`field docs: no member at ${path}`);
  const member = props[name];
  const joined = items
    ? { ...member, items: joinAt(member.items as JsonSchema, rest, words, path) }
    : joinAt(member, rest, words, path);
  return { ...schema, properties: { ...props, [name]: joined } };
}

/** `docs` under the member at `path`: one fragment's words for every request that holds it. */
const under = (path: string, docs: FieldDocs): FieldDocs =>
  Object.fromEntries(Object.entries(docs).map(([k, v]) => [k === '' ? path : `${path}.${k}`, v]));

/** A dataset's documents, as creating one and adding to one take them. */
export const DOCUMENTS_DOCS = { 'documents[].meta': 'Any JSON, kept with the document' };
const KEPT = 'Kept in the result, and in `register_prefill` for registering the work.';
/** Analyze's members, some of which score and a registration take whole. */
const ANALYZE_DOCS = {
  content:
    'The text (at most 10 MiB of UTF-8); for a file (`epub`, `pdf`, `docx`) its bytes in base64 with `content_encoding: "base64"` (over HTTP at most the plan\'s `fileBytes`, or sent as a multipart upload; in the library `maxFileBytes`, default 64 MiB).',
  content_type:
    'Markup is reduced to its readable text and spans point into `content`; a file is reduced to its text (`extraction`) and spans point into that.',
  content_encoding:
    'How `content` carries a file: required with `epub`, `pdf` and `docx`, refused with the text types.',
  include_text:
    'Files only: return the extracted text in `extraction.text` (kept with the stored analysis). Default false.',
  quotations:
    "How text the work quotes counts (a match inside quotation marks, a block quote or an attribution, or a passage the datasets hold in several documents, in a work that is not mostly corpus text): 'exclude' (default) shows it as a quotation (`matches[].role`) and leaves it out of `confidence`, which is about the work's own text; 'count' counts it (checking a model's output).",
  search_remote:
    'false keeps the content on this server: the remote corpora the server is configured with (sent the text to their engines) are left out. Default true.',
  'metadata.title': KEPT,
  'metadata.author': KEPT,
  'metadata.jurisdiction': 'ISO 3166 code: US, DE, EU, US-CA …',
} as const;
/** Compare's two texts, as the library and a server bound them. */
const COMPARE_DOCS = {
  a: 'First text (e.g. the suspect); spans `a_start`/`a_end` index it',
  b: 'Second text (e.g. the source)',
};

/** The target model's members (a probe's, an extraction's, an assessment's, a job's). */
const MODEL_DOCS = {
  base_url: 'Base URL with the version path, e.g. `https://models.example.org/v1`: no credentials, query or fragment',
  api_key: 'Sent to the service as `Authorization: Bearer …`; never stored or echoed',
  model: "The `model` field of the service's requests",
  api: '`completions` (log-probabilities with `echo`; default) or `chat` (generations only)',
  top_logprobs: 'Alternatives per position (completions); 0 = own log-probabilities only. Default 5',
};
/** A job's model: the target model's members and the production endpoint's options. */
const JOB_MODEL_DOCS = {
  ...MODEL_DOCS,
  temperature: '`temperature` sent with every generation (default 0: greedy decoding, what the measures assume)',
  max_tokens_param:
    "The name of the output-token limit: `max_tokens` (default; vLLM, llama.cpp, Ollama) or `max_completion_tokens` (OpenAI's newer models)",
  seed: '`seed` sent with every generation, for endpoints that take one',
  timeout_ms:
    "Time limit of one call, retries included (default and ceiling: the server's model timeout, 60 s unless its operator set another)",
  requests_per_minute: 'Most requests a minute to the endpoint (a token bucket; retries counted)',
  tokens_per_minute:
    "Most tokens a minute: a request counts its prompt's estimated tokens (characters / 4) and its output limit",
};
const MODEL_CALLS = 'Model calls in flight (default 4; the library allows 64)';
/** The probe extraction's options (its request's, an assessment's `extract`). */
const EXTRACT_OPTION_DOCS = {
  prefix_tokens: 'Words of the work given as the prompt (default 50)',
  continuation_tokens: 'Words of the true continuation compared (default 64)',
  prefixes: 'Prompts at evenly spaced positions of the work (default 16; the library allows 1,000)',
  max_tokens: 'Model tokens per generation (default 2 × continuation_tokens; the library allows 16,384)',
  concurrency: MODEL_CALLS,
};
/** The probe's options (its request's, an assessment's `probe`). */
const PROBE_OPTION_DOCS = {
  reference: 'The non-member side: a reference set of the account, or texts (basis `unverified`)',
  chunk_tokens: 'Words per chunk (default 128)',
  min_chunks: 'Fewest chunks per side for a verdict (default 20)',
  min_reference_documents: 'Fewest reference documents for a verdict (default 5)',
  k: 'Share of lowest-probability tokens for Min-K% (default 0.2)',
  alpha: 'Family-wise significance level (default 0.01)',
  concurrency: MODEL_CALLS,
  reference_model:
    'A model that cannot have seen the work (released before it, or trained on disclosed data without it): the verdict then rests on the loss calibrated by it',
};
/** What a whole-work extraction and a catalogue audit share. */
const SECTIONS = 'Sections (chapters) to spread the probes over, in order, not overlapping (UTF-16 offsets)';
const JOB_CALL_DOCS = {
  max_tokens: '`max_tokens` of each call (default 256)',
  concurrency: 'Calls in flight (default 4; a server allows fewer: SERVER_CAPS)',
  prompt_variants: 'Chat models: prompt templates tried in order until one continues the work (default 3)',
};
const WORK_OR_TEXT = 'A work of the account registered with its text (or give `text`)';

/** An analysis's extraction of a file (a score's too). */
export const EXTRACTION_DOCS = {
  '': 'Files only: how their text was extracted; every span of the result points into that text',
  bytes: "The file's size",
  characters: 'UTF-16 units of the extracted text',
  words: 'Whitespace-separated words of the extracted text',
  sections: 'Chapters (EPUB), headings (DOCX) or outline entries (PDF), in order, covering the text',
  pages: 'PDF only: the span of each page (numbered from 1) once running headers and footers are removed',
  text: 'The extracted text (`include_text: true` only)',
};
/** What an aligned match adds: how its passage was reused. */
const REUSE_DOCS = {
  reuse:
    'How the passage was reused: by the share of its words in runs of ≥ 3 words shared with the source ' +
    '(verbatim ≥ 95 %, edited ≥ 50 %, paraphrase less), or summary: it condenses a source passage at least twice as long',
  similarity: "Share of the passage's words in word runs shared with the source passage",
  aligned: 'True when the spans come from aligning the query with the document text',
};
/** Every match's role and why it is a quotation. */
const QUOTATION_DOCS = {
  role: "Text the work quotes, not the work's own (absent: the work's text): counted for `confidence` only with `quotations: 'count'`",
  quotation: 'Why the match is a quotation',
  'quotation.by':
    'What marks it: the content (quotation marks, a block quote, an indented block, an attribution), its passage held in several documents (widely_reproduced), or, unmarked, its passage in another language than the text around it (other_language)',
  'quotation.attributed_to': 'Who the content attributes it to, as it names them',
  'quotation.share': "The share of the content's words quoted from the same work (3 decimals)",
  'quotation.counts':
    "Over a third of the content is quoted from that work: its quotations count for the work's confidence (quotations 'exclude' included)",
};
/** A portrait match's document (and each other document holding its text). */
const PORTRAIT_DOCUMENT_DOCS = {
  '': 'What the pack says about the document the hits agree on',
  ebook: 'Project Gutenberg ebook number',
  url: 'Where the text can be read',
};
/** A portrait match (src/datasets/locator.ts). */
const PORTRAIT_DOCS = {
  ...under('document', PORTRAIT_DOCUMENT_DOCS),
  source_words: 'Word offsets [start, end) of the document section(s) the hits were first stored from',
  also_in: 'Other documents of the pack holding the text of the section(s) named (editions, collections)',
  ...under('also_in[].document', PORTRAIT_DOCUMENT_DOCS),
  'also_in[].source_words': 'Word offsets [start, end) of its sections holding the text',
  'also_in[].shared': "Share of the named section's n-grams it holds",
  article:
    'The article of the document the hits agree on, for a document that holds many (the Wikipedia packs): its title, URL, key (page id) and the word offsets [start, end) in it of the section(s) holding the text',
  'article.url': 'Where the article can be read',
  'article.key': 'Its key in the source (the Wikipedia page id)',
  'article.words': 'Word offsets [start, end) in the article',
  agreeing: 'Hits of the run that agree with the document',
  fingerprints: 'Query fingerprints the run spans',
  common_hits: "Hits of the span whose n-gram many of the pack's documents hold (no one document's evidence)",
  held_by: 'The most documents (articles) of the pack holding one n-gram of the span (capped at 255)',
};
/** A remote corpus's match (infini-gram, infini-gram mini). */
const REMOTE_MATCH_DOCS = {
  document_id: "The engine's document number (`doc_ix`) as a string",
  source_start: 'Offset into `source_text` (see there)',
  doc_length: 'Tokens (infini-gram) or bytes (infini-gram mini) of the whole document',
  source_text:
    'The source passage with up to 200 characters of the document around it, as the engine returned it; `source_start`/`source_end` point into it',
  count: 'How often the query span [count_start, count_end) occurs in the corpus',
  boilerplate: 'The span occurs at least `boilerplate_count` times: shown, left out of the evidence',
  metadata: "The document's metadata as the index holds it (e.g. the Pile's `meta.pile_set_name`)",
};

/** A marketplace request's money: integer minor units and a currency. */
const MONEY_DOCS = (at: string) => ({
  [`${at}.amount_minor`]: 'Integer minor units (cents for USD)',
  [`${at}.currency`]: 'ISO 4217 code',
});
/** The terms a listing and its patch share. */
const LISTING_TERM_DOCS = {
  territory: 'ISO 3166 codes (`US`, `DE`, `US-CA`), `EU` or `WORLDWIDE`; normalised, sorted and deduplicated',
  price: 'Flat fee per licence (or give `rate`)',
  ...MONEY_DOCS('price'),
  rate: 'Price per word, title or month (or give `price`)',
  ...MONEY_DOCS('rate'),
  exclusive: 'One licence only, and no overlapping listing or licence of the same type. Default false',
  max_licences: 'Non-exclusive only; null: unlimited',
  output_cap: 'Output cap (at least one member), or null for none',
};
/** A marketplace query's page. */
const PAGE_DOCS = { after: 'The `next` of the previous page', limit: 'Page size (default 100)' };
/** A marketplace query's role: which party the caller is. */
const ROLE_DOCS = (records: string) => ({ role: `Only ${records} where the caller is this party. Default: either` });
/** An offer's terms, made or countered. */
const OFFER_DOCS = {
  amount: "In the listing's currency: the flat fee, or the amount per unit of its rate",
  ...MONEY_DOCS('amount'),
  territory: "Within the listing's territory. Default: the listing's (a counter: the countered offer's)",
  expires_at: 'ISO 8601, in the future, at most 90 days ahead. Default: 14 days',
};

/** Every documented schema, by identity: a contract's `served` object or a shared fragment. */
export const FIELD_DOCS: ReadonlyMap<object, FieldDocs> = new Map<object, FieldDocs>([
  [modelId, { '': '`provider/model_name` of the knowledge base' }],
  [jurisdiction, { '': 'ISO 3166: `US`, `DE`, `EU`, `US-CA`, `GB-SCT`' }],
  [ANALYZE_REQUEST_SCHEMA, ANALYZE_DOCS],
  [
    ANALYSIS_RESULT_SCHEMA,
    {
      'risk_assessment.public_domain':
        "With `metadata.author` only: the work's public-domain status in the jurisdiction by its author's year of death (life + 70 years in the EU and EEA, the UK and Switzerland), or `unknown` with the reason",
      ...under('extraction', EXTRACTION_DOCS),
      sections:
        "Files only: per section of `extraction.sections`, its words and the share of its characters in each searched dataset's matches",
      'evidence.datasets[].quoted':
        "Checkable matches of text the work quotes (counted in `checkable` with quotations 'count' only)",
      'evidence.datasets[].aligned': "The aligned passages' evidence (exact datasets that keep text)",
      'evidence.quotations': "How the text the work quotes was counted (the request's `quotations`)",
      'evidence.quotation_rule':
        'The version of the quotation rule the roles were read with (absent: the first, English marks and attributions, no share)',
      remote_corpora: 'Every remote corpus consulted (the content was sent to its endpoint) and how its search went',
    },
  ],
  [
    MATCH_SCHEMA,
    {
      ...under('oneOf[0]', { ...REUSE_DOCS, ...QUOTATION_DOCS }),
      ...under('oneOf[1]', QUOTATION_DOCS),
      ...under('oneOf[2]', { ...PORTRAIT_DOCS, ...QUOTATION_DOCS }),
      ...under('oneOf[3]', { ...REMOTE_MATCH_DOCS, ...REUSE_DOCS, ...QUOTATION_DOCS }),
      ...under('oneOf[4]', { ...REUSE_DOCS, ...QUOTATION_DOCS }),
    },
  ],
  [
    REMOTE_REPORT_SCHEMA,
    {
      endpoint: 'Where the content was sent',
      transcript:
        'Every answer used: sha256 is the SHA-256 of one line "request answer" per call (each the SHA-256 of its JSON), sorted',
      sampling: 'Passages drawn across the work, how many were found, and the share of the work the corpus holds',
      'sampling.share.ci_rule': "One interval for the product of the rates; absent: each rate's bound",
      'sampling.documents':
        'Found passages whose documents were fetched, held by them (aligned), and not even holding the stretch found',
      'sampling.documents.refuted':
        'Of the fetched, holding the stretch found and no word of the work beside it (only what was sent)',
      'sampling.documents.unchecked':
        'Of the fetched, neither verified nor shown not to hold the passage: the interval runs from none to all of them held',
      'sampling.detection': 'Passages the documents show held, searched as the sample was, and found',
    },
  ],
  [
    SUPPLIED_BY,
    {
      '': "shipped: a reference pack of the package; operator: whoever runs the service; account: the asking account's own upload",
    },
  ],
  [MODEL_SPEC_SCHEMA, MODEL_DOCS],
  [REFERENCE_SET_ID, { '': 'Reference set id of the account' }],
  [
    REQUESTS.compareOutput.served,
    {
      output: 'A model output',
      work_ids: 'Works of the account; default: all of them registered with text',
      min_tokens: 'Shortest verbatim run reported, in words (default 8)',
      limit: 'Most works examined (default 1000)',
    },
  ],
  [
    REQUESTS.trackWork.served,
    {
      work_id: 'A registered work of the account (or give `work`)',
      'canaries.count': 'Canary sequences to embed in the published work',
      'canaries.words': 'Words per canary (default 24)',
      'canaries.controls': 'Never-published controls (default 4 × count, at most 400)',
    },
  ],
  [
    REQUESTS.referenceSet.served,
    {
      texts: 'Non-member documents (one document each; chunks never span two)',
      basis:
        '`randomized_split` (members and non-members assigned at random: the matched design), `post_cutoff`, `unverified`',
      published_after: 'With `post_cutoff`: earliest publication date (ISO 8601)',
    },
  ],
  [REQUESTS.probe.served, { texts: 'Several suspect documents', ...PROBE_OPTION_DOCS }],
  [
    REQUESTS.extract.served,
    { work_id: WORK_OR_TEXT, text: 'The text to probe (or give `work_id`)', ...EXTRACT_OPTION_DOCS },
  ],
  [
    REQUESTS.assess.served,
    {
      work_id: 'A work of the account registered with its text',
      kb_model: 'Knowledge-base id of the model, for corpus evidence',
      extract: 'Extraction settings, or false to skip. Default {}',
      ...under('extract.oneOf[1]', EXTRACT_OPTION_DOCS),
      probe: 'Probe settings with the reference, or false. Without it no probe runs',
      ...under('probe.oneOf[1]', PROBE_OPTION_DOCS),
      traps: "Test the work's canaries (default true)",
      trap_alpha: 'Significance level of the trap test (default 0.01)',
    },
  ],
  [
    REQUESTS.report.served,
    {
      assessment_id: 'From `POST /api/v1/memorization/assess`',
      max_spans: 'Extraction attempts shown with their spans (default 8)',
    },
  ],
  [
    REQUESTS.extractWork.served,
    {
      work_id: WORK_OR_TEXT,
      text: 'The work to extract (or give `work_id`)',
      ...under('model', JOB_MODEL_DOCS),
      sections: SECTIONS,
      budget_calls: 'Most calls made in all, failed ones counted (default 2000)',
      probes: 'Phase-1 probes (default one per 250 words, at most half the budget)',
      prefix_words: 'Words of each prompt (default 50)',
      ...JOB_CALL_DOCS,
    },
  ],
  [
    REQUESTS.audit.served,
    {
      works:
        "The catalogue: works `{ id, text, sections? }`, ids distinct (a job's: at most the plan's `jobItems` works; the body at most its `fileBytes`)",
      'works[].id': "The work's name in the result (a file name, an ISBN)",
      'works[].text': "The work's text",
      'works[].sections': SECTIONS,
      ...under('model', JOB_MODEL_DOCS),
      budget_calls: 'Most calls for the whole catalogue, first pass included (default 2000)',
      first_probes: 'Probes per work in the first pass (default 3)',
      level: '`not_found` is stated at this level: the share of probe positions a reproduced work hits (default 0.5)',
      prefix_words: 'Words of each prompt (default 50, less for short works)',
      ...JOB_CALL_DOCS,
    },
  ],
  [REQUESTS.compare.served, COMPARE_DOCS],
  [
    REQUESTS.fingerprint.served,
    {
      content: 'At most 10 MiB of UTF-8',
      content_type: 'How to read `content` (markup is reduced to its text). Default `text`',
      include_winnow: 'Also return the winnowed fingerprints with their spans in `content`. Default false',
    },
  ],
  [
    REQUESTS.createDataset.served,
    {
      window: 'Portrait only',
      models: 'Knowledge-base models you declare trained on this corpus',
      kb_dataset: 'Knowledge-base dataset this corpus samples (your declaration)',
      keep_text: 'Exact only (default true): keep the document texts so that analyze aligns edited and reworded reuse',
      meta: 'Any JSON',
      ...DOCUMENTS_DOCS,
    },
  ],
  [declarations, { since: 'ISO 8601 date' }],
  [
    REQUESTS.registerWork.served,
    {
      content:
        'The work (at most 10 MiB of UTF-8), or a file\'s bytes in base64 with `content_encoding: "base64"` (at ' +
        "most the plan's `fileBytes`; or a multipart upload); or give `fingerprint`",
      content_type:
        'How to read `content`: a file (`epub`, `pdf`, `docx`) is kept as its extracted text. Default `text`',
      content_encoding: ANALYZE_DOCS.content_encoding,
      'metadata.jurisdiction':
        'Refused with a reason: a registration has no jurisdiction (score and monitors take one)',
    },
  ],
  [REQUESTS.verifyReceipt.served, { receipt: 'A receipt as returned by register' }],
  [
    REQUESTS.scanOptions.served,
    {
      '': '`scan` only: how the items are scanned',
      datasets: 'The exact datasets to scan against; default every exact dataset loaded',
      min_words: 'Shortest block reported, in words; default 50',
      paraphrase: 'Report reworded reuse too; default false',
    },
  ],
  [
    REQUESTS.score.served,
    {
      work_hash: 'A work the account registered from its content; or give `content`',
      content:
        "The work, scored without being registered: a text (at most 10 MiB of UTF-8), or a file's bytes in base64 " +
        'with `content_encoding: "base64"` (at most the plan\'s `fileBytes`); or give `work_hash`',
      content_type: `${ANALYZE_DOCS.content_type} Default \`text\`.`,
      content_encoding: ANALYZE_DOCS.content_encoding,
      include_text: ANALYZE_DOCS.include_text,
    },
  ],
  [
    MARKET_REQUESTS.createListing.served,
    {
      ...LISTING_TERM_DOCS,
      title: "Default: the work's title",
      status: 'Default `draft` (publish later); `active` lists it at once',
    },
  ],
  [MARKET_REQUESTS.updateListing.served, LISTING_TERM_DOCS],
  [MARKET_REQUESTS.makeOffer.served, OFFER_DOCS],
  [MARKET_REQUESTS.counterOffer.served, OFFER_DOCS],
  [
    MARKET_REQUESTS.listListings.served,
    {
      status: 'Default `active`',
      territory: 'Listings whose territory covers this code (`DE` matches `DE`, `EU`, `WORLDWIDE`)',
      currency: 'ISO 4217 code',
      min_amount_minor: 'Needs `currency`',
      max_amount_minor: 'Needs `currency`',
      ...PAGE_DOCS,
    },
  ],
  [MARKET_REQUESTS.listOffers.served, { ...ROLE_DOCS('offers'), ...PAGE_DOCS }],
  [MARKET_REQUESTS.listLicences.served, { ...ROLE_DOCS('licences'), ...PAGE_DOCS }],
  [
    MARKET_REQUESTS.auditLog.served,
    {
      entity_id: 'A listing or work the caller owns, or an offer or licence the caller is a party to',
      after: 'An entry `id`',
      limit: PAGE_DOCS.limit,
    },
  ],
  [MARKET_REQUESTS.verifyLicence.served, { licence: 'A licence as issued (extra `verified` is ignored)' }],
  [REQUESTS.listModels.served, { dataset: 'Models with a documented link to this dataset (id or name)' }],
  [REQUESTS.createKey.served, { scopes: "A subset of the caller's scopes. Default: the caller's scopes" }],
  [REQUESTS.createClient.served, { scopes: "A subset of the caller's scopes. Default: the caller's scopes" }],
  [
    REQUESTS.issueToken.served,
    {
      scope: "Space-separated subset of the client's scopes; default all of them",
      client_id: 'When not using HTTP Basic',
      client_secret: 'When not using HTTP Basic',
    },
  ],
  [
    REQUESTS.adminCreateKey.served,
    {
      account: 'The account the key acts for; an account exists once it has a key',
      plan: "A plan of this server (`free`, `pro`, `scale`, `enterprise` or the operator's). Default `free`",
      scopes: 'Default: every scope but `datasets:write` and `admin`',
      expires_in_days: 'Days until the key stops working. Default: no expiry',
    },
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
