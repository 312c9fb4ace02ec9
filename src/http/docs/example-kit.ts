/**
 * Building blocks of the worked examples of the HTTP API (src/http/docs/index.ts and the
 * modules of this folder): the public-domain texts the examples send, the ids that
 * stand for generated ones, and the records several examples answer with.
 *
 * The texts are small on purpose: the opening of Jane Austen's *Persuasion* (1818) as the
 * account's work, the MIT licence (which the server's starter dataset of SPDX licences holds),
 * and three sentences of G. K. Chesterton's *The Man Who Was Thursday* (1908) as text no model of
 * the examples has seen. Every response shown is what a server started with the starter dataset
 * (`trainprint serve --starter`) answered, with arrays shortened and generated values replaced by
 * the ids below.
 */

/** The account of the examples (`TRAINPRINT_KEY`): it owns the work, lists it and sells licences. */
export const ACME = 'acme';
/** The other account (`BUYER_KEY`): it buys licences, and stands for any stranger to acme's items. */
export const GLOBEX = 'globex';

/** *Persuasion*, chapter 1, first paragraph. */
export const PERSUASION_OPENING =
  'Sir Walter Elliot, of Kellynch Hall, in Somersetshire, was a man who, for his own ' +
  'amusement, never took up any book but the Baronetage; there he found occupation for an idle hour, and ' +
  'consolation in a distressed one; there his faculties were roused into admiration and respect, by contemplating ' +
  'the limited remnant of the earliest patents; there any unwelcome sensations, arising from domestic affairs ' +
  'changed naturally into pity and contempt as he turned over the almost endless creations of the last century; and ' +
  'there, if every other leaf were powerless, he could read his own history with an interest which never failed.';

/** The first three clauses of {@link PERSUASION_OPENING} (59 words), as an essay or a chatbot quotes them. */
export const PERSUASION_QUOTE = PERSUASION_OPENING.slice(0, PERSUASION_OPENING.indexOf('; there any unwelcome'));

/** *Persuasion*, chapter 1: the paragraph on Sir Walter's vanity. */
export const PERSUASION_VANITY =
  "Vanity was the beginning and the end of Sir Walter Elliot's character; vanity of " +
  'person and of situation. He had been remarkably handsome in his youth; and, at fifty-four, was still a very fine ' +
  'man. Few women could think more of their personal appearance than he did, nor could the valet of any new made ' +
  'lord be more delighted with the place he held in society. He considered the blessing of beauty as inferior only ' +
  'to the blessing of a baronetcy; and the Sir Walter Elliot, who united these gifts, was the constant object of ' +
  'his warmest respect and devotion.';

/** The account's work: the two paragraphs of *Persuasion*. */
export const WORK_TEXT = `${PERSUASION_OPENING}\n\n${PERSUASION_VANITY}`;
/** The title the account registers the work under. */
export const WORK_TITLE = 'Persuasion, chapter 1 (opening)';

/** The grant of the MIT licence, as a project's README quotes it. */
export const MIT_GRANT =
  'Permission is hereby granted, free of charge, to any person obtaining a copy of this ' +
  'software and associated documentation files (the "Software"), to deal in the Software without restriction, ' +
  'including without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or ' +
  'sell copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the ' +
  'following conditions:';

/** Non-member documents: *The Man Who Was Thursday*, chapter 1. */
export const THURSDAY = [
  'The suburb of Saffron Park lay on the sunset side of London, as red and ragged as a cloud of sunset. It was built ' +
    'of a bright brick throughout; its sky-line was fantastic, and even its ground plan was wild.',
  'It had been the outburst of a speculative builder, faintly tinged with art, who called its architecture sometimes ' +
    'Elizabethan and sometimes Queen Anne, apparently under the impression that the two sovereigns were identical.',
  'It was described with some justice as an artistic colony, though it never in any definable way produced any art.',
] as const;

/** The target model of the memorization examples: an OpenAI-compatible service of the caller's. */
export const MODEL = {
  base_url: 'https://models.example.org/v1',
  api_key: 'sk-example-7d2f9c41e8b3',
  model: 'austen-lm',
} as const;

/** A knowledge-base model documented as trained on Project Gutenberg. */
export const KB_MODEL = 'meta/llama-7b';

/**
 * Ids standing for generated ones. A documented request names the id that the documented
 * response of an earlier example carries; the contract test substitutes the real one.
 */
export const ID = {
  analysis: 'an_a4c123b1612dd272d1371c17149d4395',
  work: 'wk_36b3216fdaeeb975729fae923d5a4fd1',
  monitor: 'mon_2aabfe228f219e9cb0eb53f16947ccf2',
  event: 'evt_5ec84d8dbc74254770f58904dba41ecc',
  listing: 'lst_cc3fc1626e53a13043b026c48bbf33fe',
  offer: 'ofr_ff9243a8f506b40928b5b7a767c76fb0',
  counterOffer: 'ofr_08f86bebb2737f6a6f0fb23c6f5da2ce',
  licence: 'lic_c255404e4fb440034d6608697a8d41be',
  assessment: 'ma_d440e50454f31af3176813e02ea68ef7',
  key: 'key_86e4d3cea27d2693',
  newKey: 'key_4b484e73cf575dca',
  client: 'tpc_d6ba2b0aee0ca92373288158',
} as const;

/** SHA-256 of {@link WORK_TEXT}'s UTF-8 bytes: the work's `work_hash`. */
export const WORK_HASH = 'sha256:3b65a8ec6d3f79293bd9863ddf674b646e98d025856f518248dc2561b4f42699';

/** The work as `POST /api/v1/content/register` answered (without `success` and `created`). */
export const WORK = {
  work_id: ID.work,
  work_hash: WORK_HASH,
  fingerprint: 'tp1:07c2b5c3f74cac57a833937f914d703a',
  owner: ACME,
  title: WORK_TITLE,
  author: 'Jane Austen',
  work_type: 'book',
  content_type: 'text',
  declarations: {},
  tokens: 204,
  has_text: true,
  registered_at: '2025-06-02T09:30:00.000Z',
  receipt: {
    version: 1,
    alg: 'HMAC-SHA256',
    key_id: '61856dd32d0025ed',
    work_hash: WORK_HASH,
    owner: ACME,
    registered_at: '2025-06-02T09:30:00.000Z',
    signature: '1Q0nh3D4Z--gArtofoNjTXyQo6g0lzYBrjgoMtFqVb0',
  },
  conflicting_claims: [] as string[],
} as const;

/**
 * The corpus score of the chapter for `meta/llama-7b`, as `POST /score` returns it without `success` and `legal_risk`
 * (the form an assessment embeds).
 */
export const SCORE_EVIDENCE = {
  work_hash: WORK_HASH,
  work_id: ID.work,
  target_model: 'meta/llama-7b',
  provider: 'Meta',
  score: 95,
  tier: 'confirmed',
  tier_reasons: [
    {
      code: 'documented_verbatim_run',
      message:
        "A verbatim run of at least 50 words of the work is in an exact dataset the model's documentation names (link certainty ≥ 0.85).",
    },
  ],
  to_raise: [] as string[],
  ci_95: [95, 95],
  reused_share: { estimate: 1, ci_95: [0.2065, 1], flagged_chunks: 1, n_chunks: 1 },
  factors: ['verbatim_overlap', 'long_verbatim_run'],
  limitations: ['no_model_probe', 'reference_sample_only', 'calibrated_on_development_data'],
  remote_corpora: [],
  evidence: {
    method:
      "chunks of 200 words searched in the loaded datasets that sample the model's training data; per " +
      "dataset the chunks' chances combine as order statistics (min over j of P(Binomial(n, c(j)) ≥ j), × " +
      'n), calibrated (prior 0.5) and multiplied by the link certainty; score = the best dataset; ci_95 = ' +
      'percentile bootstrap over chunks (1000 resamples, seeded by work_hash and model); reused_share = ' +
      'flagged chunks with a Wilson interval',
    chunk_words: 200,
    datasets: [
      {
        dataset_id: 'gutenberg-sample',
        kind: 'exact',
        supplied_by: 'operator',
        kb_dataset: 'project-gutenberg',
        link: 'kb',
        link_certainty: 0.95,
        link_reason:
          'meta/llama-7b (full disclosure) documents "Project Gutenberg + Books3 (4.5%)", which ' +
          'names Project Gutenberg (PG-19).',
        flagged_chunks: 1,
        chance: 1.51436e-23,
        strength: 22.8198,
        confidence: 0.9988,
        value: 0.9489,
      },
    ],
    chunks: [
      {
        index: 0,
        start: 0,
        end: 1184,
        tokens: 204,
        flagged: true,
        dataset_id: 'gutenberg-sample',
        chance: 1.51436e-23,
        longest_run: 90,
      },
    ],
    matches: [
      {
        chunk: 0,
        dataset_id: 'gutenberg-sample',
        kind: 'exact',
        query_start: 0,
        query_end: 1184,
        document_id: 'persuasion',
        source_start: 0,
        source_end: 1184,
        tokens: 204,
      },
    ],
    bootstrap: { resamples: 1000, seed: 3111398085 },
    calibration: 'cal-2026-11-26-36d8273a',
  },
} as const;

/** The extraction run on the chapter (two prompts), as `POST /memorization/extract` returns it without `success`. */
export const EXTRACTION = {
  work_id: ID.work,
  model: 'openai-compatible:austen-lm',
  access: 'top_k',
  prefix_tokens: 16,
  continuation_tokens: 24,
  attempts: [
    {
      index: 0,
      prefix_start: 0,
      prefix_end: 91,
      prefix_tokens: 16,
      continuation_start: 93,
      continuation_end: 226,
      continuation_tokens: 24,
      output:
        ' never took up any book but the baronetage there he found occupation for an idle hour and ' +
        'consolation in a distressed one there his faculties were roused into admiration and respect by ' +
        'contemplating the limited remnant of the earliest patents there any unwelcome sensations arising ' +
        'from domestic affairs',
      exact_continuation_tokens: 24,
      longest_match: { tokens: 48, output_start: 1, output_end: 303, work_start: 93, work_end: 401 },
      verified: false,
    },
    {
      index: 1,
      prefix_start: 958,
      prefix_end: 1044,
      prefix_tokens: 16,
      continuation_start: 1045,
      continuation_end: 1184,
      continuation_tokens: 24,
      output:
        ' the blessing of a baronetcy and the sir walter elliot who united these gifts was the constant ' +
        'object of his warmest respect and devotion the software and to permit persons to whom the software ' +
        'is furnished to do so subject to the following conditions the software and to',
      exact_continuation_tokens: 24,
      longest_match: { tokens: 24, output_start: 1, output_end: 137, work_start: 1045, work_end: 1184 },
      verified: false,
    },
  ],
  summary: {
    attempts: 2,
    verified: 0,
    extractable: { count: 2, share: 1, ci_95: [0.3424, 1] },
    longest_match_tokens: 48,
    mean_exact_continuation_tokens: 24,
  },
  factors: [],
  limitations: [],
  method:
    '2 prefixes of 16 words at evenly spaced positions; greedy continuation (temperature 0, ≤ 48 model ' +
    'tokens); compared in normalised words with the true next 24 words (exact continuation; "extractable" = ' +
    'all 24 reproduced, Wilson 95 % interval) and with the whole work (longest verbatim run of ≥ 8 words, ' +
    'words copied from the prompt excluded); ≥ 50 words = verified (Carlini et al. 2021, 2023)',
} as const;
