// The smoke suite shared by every runtime (Node ESM, Node CJS, Deno, Chromium). It receives the
// built package's exports and returns a JSON-safe digest; run-all.mjs checks that all runtimes
// produce the identical digest and that it equals test/fixtures/smoke-golden.json.

export const TEXTS = {
  english:
    'It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness.',
  mixed:
    'Straße ﬁnance ＡＢＣ１２３ — Σίσυφος, «Привет, мир!» مرحبا بالعالم שלום עולם café naïve e\u0301 co\u00ADoperate 👍🏽 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  cjk: '日本語のテキストを正規化します。中文文本也需要分词。한국어 텍스트도 있습니다.',
  code: 'function add(a, b) {\n  return a + b; // sum\n}\n',
  // U+FFFD: a region the core hands back to be normalised in JavaScript, whose postings' spans are mapped there
  replaced:
    'It was the best of times, it was the w\ufffdrst of times, it was the age of wisdom \ufffd and of foolishness.',
  empty: '',
};

/** A sentence and its copy with content words swapped for WordNet synonyms (compare's synonym table). */
export const SYNONYM_PAIR = [
  'The former home stood at the close of the route, its windows dark and its garden untamed, near the river.',
  'The old house stood at the end of the road, its windows dark and its garden wild, near the river.',
];

function hex(v) {
  return BigInt.asUintN(64, v).toString(16).padStart(16, '0');
}

function u32Digest(engine, arr) {
  return hex(engine.xxh64(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength)));
}

// The MIT licence's grant paragraph, quoted in a README: the starter dataset must find it.
const MIT_GRANT =
  'Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files (the "Software"), to deal in the Software without restriction, including without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the following conditions:';

/**
 * `lib`: the exports of dist/index.js ('trainprint') with those of dist/models.js and dist/text.js ('trainprint/models',
 * 'trainprint/text': the byte-level GPT and the normaliser); `starter`, when given, is dist/starter.js
 * ('trainprint/starter').
 */
export async function smoke(lib, starter) {
  const engine = await lib.createEngine();
  const out = { variant: engine.variant, fingerprints: {}, errors: {}, similarity: null };
  for (const [name, text] of Object.entries(TEXTS)) {
    const opts = name === 'code' ? { normalize: 'none', shingle: { unit: 'char', size: 8 } } : undefined;
    const fp = await engine.fingerprint(text, opts);
    out.fingerprints[name] = {
      fingerprint: fp.fingerprint,
      work_hash: fp.work_hash,
      params: fp.params,
      byte_length: fp.byte_length,
      token_count: fp.token_count,
      shingles: fp.shingles.hashes.length,
      shingle_hashes: u32Digest(engine, fp.shingles.hashes),
      shingle_spans: u32Digest(engine, fp.shingles.starts) + u32Digest(engine, fp.shingles.ends),
      first_span: fp.shingles.hashes.length ? text.slice(fp.shingles.starts[0], fp.shingles.ends[0]) : null,
      winnow: fp.winnow ? Array.from(fp.winnow.positions) : null,
      winnow_postings: fp.winnow
        ? u32Digest(engine, fp.winnow.hashes) + u32Digest(engine, fp.winnow.starts) + u32Digest(engine, fp.winnow.ends)
        : null,
      minhash: fp.minhash ? u32Digest(engine, fp.minhash) : null,
      simhash: fp.simhash === undefined ? null : hex(fp.simhash),
      normalized: lib.normalize(text).text,
    };
  }
  // The scalar build must give the same numbers as the SIMD build, in every runtime.
  const scalar = await lib.createEngine({ simd: false });
  out.scalar_matches = {};
  for (const [name, text] of Object.entries(TEXTS)) {
    const [x, y] = [await engine.fingerprint(text), await scalar.fingerprint(text)];
    out.scalar_matches[name] =
      x.fingerprint === y.fingerprint &&
      x.simhash === y.simhash &&
      u32Digest(engine, x.minhash) === u32Digest(engine, y.minhash) &&
      u32Digest(engine, x.shingles.hashes) === u32Digest(engine, y.shingles.hashes);
  }
  const a = await engine.fingerprint(TEXTS.english);
  const b = await engine.fingerprint(TEXTS.english.toUpperCase() + ' And then some more words.');
  const s = engine.similarity(a, b);
  out.similarity = { jaccard: s.jaccard, containment_a: s.containment_a, simhash_distance: s.simhash_distance };
  // A dataset: built, exported to bytes, imported into a fresh engine, searched.
  const doc = TEXTS.english.repeat(3) + ' ' + TEXTS.mixed + ' ' + TEXTS.cjk;
  await engine.addDataset({ id: 'smoke', name: 'smoke test', models: ['eleutherai/pythia-6.9b'] }, [
    { id: 'doc-1', text: doc },
  ]);
  const bytes = engine.exportDataset('smoke');
  const fresh = await lib.createEngine();
  const stats = await fresh.importDataset(bytes);
  const found = fresh.search('Preface: ' + TEXTS.english + ' Afterword.');
  out.dataset = {
    bytes: bytes.length,
    bytes_xxh64: hex(engine.xxh64(bytes)),
    stats,
    matches: found.matches,
    coverage: found.coverage,
  };
  // analyze: markdown content against the imported dataset (declared model), jurisdiction DE.
  const analysis = await fresh.analyze({
    content: `# Notes\n\n> *${TEXTS.english}* ${TEXTS.english}\n\nSee [the book](https://example.org).`,
    content_type: 'markdown',
    metadata: { jurisdiction: 'de', work_type: 'article', declarations: { tdm_opt_out: true, since: '2019-06-01' } },
  });
  const { analysis_id, created_at, ...stable } = analysis;
  out.analyze = {
    ...stable,
    id_ok: /^an_[0-9a-f]{32}$/.test(analysis_id),
    stored: JSON.stringify(await fresh.getAnalysis(analysis_id)) === JSON.stringify(analysis),
  };
  // compare: a passage reused inside another text.
  const reused =
    TEXTS.english +
    ' It was the epoch of belief, it was the epoch of incredulity, it was the season of Light, it was the season of Darkness, it was the spring of hope, it was the winter of despair.';
  const source =
    'The committee met on Tuesday to read aloud. ' +
    reused +
    ' Nothing else was decided that day, and the members went home early.';
  const suspect =
    'In his essay the author wrote this. ' +
    reused.toUpperCase().replace(/, /g, ',\n') +
    ' That is all he wrote about it.';
  out.compare = engine.compare(suspect, source);
  // compare reads the WordNet synonym table, a file loaded on demand by createEngine (synonyms.js / synonyms.cjs):
  // a sentence with its content words swapped for synonyms aligns with its source in every runtime
  const [swapped, plain] = SYNONYM_PAIR;
  const withSynonyms = engine.compare(swapped, plain, { minLength: 0 });
  const asWritten = engine.compare(swapped, plain, { minLength: 0, synonyms: false });
  out.compare_synonyms = {
    spans: withSynonyms.spans,
    limitations: withSynonyms.limitations ?? null,
    score_gain: Math.round(((withSynonyms.spans[0]?.score ?? 0) - (asWritten.spans[0]?.score ?? 0)) * 1e4) / 1e4,
  };
  // the remote corpora's client is a file loaded on demand too (remote.js / remote.cjs): a bad configuration is
  // refused by its checks, a typed error in every runtime
  try {
    await engine.addRemoteDataset({ id: 'bad', kind: 'not-an-engine', index: 'x' });
    out.errors.remote_config = 'no error';
  } catch (e) {
    out.errors.remote_config = e instanceof lib.TrainprintError ? e.code : `untyped ${e?.name}: ${e?.message}`;
  }
  for (const [name, bad] of Object.entries({ number: 42, lone_surrogate: 'a\uD800b', null: null })) {
    try {
      await engine.fingerprint(bad);
      out.errors[name] = 'no error';
    } catch (e) {
      out.errors[name] = e instanceof lib.TrainprintError ? e.code : `untyped ${e?.name}`;
    }
  }
  // The byte-level GPT of the memorization test models, on a small seeded random model: the WebAssembly core (SIMD
  // and scalar) and the TypeScript runner give the same log-probabilities and greedy text in every runtime.
  const config = { vocab_size: 256, context: 32, d_model: 16, n_layers: 2, n_heads: 2 };
  const values = new Float32Array(lib.byteGptParameters(config));
  let state = 7;
  for (let i = 0; i < values.length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    values[i] = ((state / 2 ** 32) * 2 - 1) * 0.3;
  }
  const weights = lib.readByteGptWeights(new Uint8Array(values.buffer), config);
  const gpts = [
    lib.createByteGptModel(weights, { id: 'smoke' }),
    await lib.loadByteGptModel(weights, { id: 'smoke' }),
    await lib.loadByteGptModel(weights, { id: 'smoke', simd: false }),
  ];
  const prompt = 'Fellow-Citizens: naïve café';
  const runs = [];
  for (const m of gpts) {
    runs.push({
      logprobs: (await m.logprobs(prompt)).logprobs,
      greedy: await m.generate(prompt, { maxTokens: 24, temperature: 0 }),
    });
  }
  const [simd] = runs.slice(1);
  out.byte_gpt = {
    parameters: values.length,
    logprobs: simd.logprobs.map((v) => Math.round(v * 1e3) / 1e3),
    greedy: simd.greedy,
    runners_agree: runs.every(
      (r) => r.greedy === simd.greedy && r.logprobs.every((v, i) => Math.abs(v - simd.logprobs[i]) < 1e-4),
    ),
  };
  if (starter) {
    // The embedded SPDX licence dataset: decoded, imported, searched; exported again byte for byte.
    const se = await lib.createEngine();
    const stats = await starter.loadStarterDataset(se);
    const found = se.search(`# widget\n\n## License\n\n${MIT_GRANT}\n`);
    const exported = se.exportDataset(stats.id);
    out.starter = {
      dataset: { ...starter.STARTER_DATASET },
      stats,
      export_bytes: exported.length,
      export_xxh64: hex(se.xxh64(exported)),
      matches: found.matches.length,
      mit: found.matches.find((m) => m.document_id === 'MIT') ?? null,
      unrelated: se.search(TEXTS.english.repeat(4)).matches.length,
    };
    se.dispose();
  }
  return out;
}

/**
 * The entries built on the library (the main entry, the sub-entries, http, node, starter) re-export one bundle,
 * dist/library.js (.cjs): a class or function that two of them export is one value (constants may share a name and
 * differ: trainprint/node's CONTENT_TYPES are MIME types, trainprint/text's the content kinds), and a value the engine
 * makes is an instance of the class each entry exports. `entries` maps an entry's name ('trainprint',
 * 'trainprint/kb', …) to its exports; returns what breaks that, empty when nothing does.
 */
export async function oneLibrary(entries) {
  const problems = [];
  const first = new Map();
  for (const [entry, exports] of Object.entries(entries)) {
    for (const [name, value] of Object.entries(exports)) {
      if (typeof value !== 'function') continue;
      if (!first.has(name)) first.set(name, [entry, value]);
      else if (first.get(name)[1] !== value) problems.push(`${name} of ${entry} is not ${first.get(name)[0]}'s`);
    }
  }
  const main = entries.trainprint;
  const engine = await main.createEngine();
  try {
    const checks = [
      ['Engine', engine instanceof main.Engine],
      ['KnowledgeBase', engine.kb instanceof entries['trainprint/kb'].KnowledgeBase],
      ['Marketplace', engine.marketplace instanceof entries['trainprint/market'].Marketplace],
      ['MemoryStore', engine.store instanceof entries['trainprint/datasets'].MemoryStore],
    ];
    try {
      engine.model('no/such-model');
      checks.push(['TrainprintError (thrown)', false]);
    } catch (e) {
      checks.push(['TrainprintError', e instanceof main.TrainprintError && e.code === 'NOT_FOUND']);
    }
    for (const [name, ok] of checks) if (!ok) problems.push(`instanceof ${name} fails across entries`);
    // the on-demand files built on the library (memorization-work, market-work, report-work, webhook-work, scan-work) load on a
    // first call and share its classes: an error they throw is the library's TrainprintError
    const rejection = async (promise) =>
      promise.then(
        () => null,
        (e) => e,
      );
    const loaded = [
      [
        'memorization-work',
        (await rejection(engine.memorization.getReferenceSet('no-such-set')))?.code === 'NOT_FOUND',
      ],
      ['market-work', (await engine.marketplace.listListings()).listings.length === 0],
      [
        'market-work error',
        (await rejection(engine.marketplace.getListing('lst_none'))) instanceof main.TrainprintError,
      ],
      ['report-work', (await entries['trainprint/evidence'].verifyEvidenceBundle('not a bundle')).valid === false],
      [
        'report-work page',
        (
          await entries['trainprint/evidence'].renderWorkReport({
            result: await engine.analyze({
              content: 'A short text that no dataset holds, drawn as a page.',
              content_type: 'text',
            }),
            text: 'A short text that no dataset holds, drawn as a page.',
          })
        ).startsWith('<!doctype html>'),
      ],
      ['webhook-work', (await engine.webhooks.list()).length === 0],
      ['webhook-work error', (await rejection(engine.webhooks.retry('dlv_none'))) instanceof main.TrainprintError],
      [
        'scan-work error',
        await rejection(engine.scanItem({ id: 'a', text: 'an item' }, { datasets: ['no-such-dataset'] })).then(
          (e) => e instanceof main.TrainprintError && e.code === 'NOT_FOUND',
        ),
      ],
    ];
    for (const [name, ok] of loaded) if (!ok) problems.push(`the on-demand file ${name} fails`);
  } finally {
    engine.dispose();
  }
  return problems;
}
