/**
 * `trainprint` command line.
 *   trainprint demo                         fingerprint two passages, compare them, analyze one against the starter dataset
 *   trainprint analyze FILE [options]       analyze a file against dataset files and/or the starter dataset
 *   trainprint serve [options]              the HTTP service under /api/v1 (npm start)
 *   trainprint keys create [options]        create an API key in a file or PostgreSQL store (any account, plan, scopes)
 *   trainprint fingerprint FILE             print the fingerprint summary of a UTF-8 file as JSON
 *   trainprint index build --dataset ID …   index corpus files into a dataset file (or PostgreSQL: --into URL)
 *   trainprint index push FILE --into URL   copy a dataset file into PostgreSQL
 *   trainprint index info FILE|URL          header and stats of a dataset file (or a PostgreSQL dataset) as JSON
 *   trainprint pack build MANIFEST …        build a reference pack from its manifest and texts
 *   trainprint packs list|info|verify       the shipped reference packs: sizes, provenance, SHA-256 and CRC checks
 * Exit codes: 0 ok, 1 runtime error (bad input, unreadable file…), 2 usage error.
 */
import cluster from 'node:cluster';
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import {
  createByteGptHandler,
  createEngine,
  loadByteGptModel,
  publicRemoteCorpora,
  TrainprintError,
  withCors,
  type Engine,
  type Fingerprint,
  type RemoteDatasetConfig,
} from './index.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildDatasetFile,
  buildPackFile,
  buildPostgresDataset,
  CLIENT_ADDRESS_HEADER,
  createWorkerPool,
  isPostgresUrl,
  listPacks,
  loadDefaultPacks,
  openFileStore,
  readModelDirectory,
  openPostgresDataset,
  openPostgresDatasets,
  openPostgresStore,
  pushDatasetFile,
  readDatasetInfo,
  resolveHost,
  serve,
  serveStatic,
  verifyPackFile,
  type BuildProgress,
  type PostgresDatasetResult,
} from './node/index.js';
import type { ListedPack, PackInfo } from './index.js';

const A = `It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of
foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season of Light,
it was the season of Darkness, it was the spring of hope, it was the winter of despair.`;
const B = `"IT WAS the best of times; it was the worst of times," wrote Dickens — it was the age of wisdom,
it was the age of foolishness, it was the epoch of belief... and then the reviewer moved on.`;

const HELP = `usage:
  trainprint demo
      fingerprint two built-in passages and compare them, then analyze a README that
      quotes the MIT licence against the embedded starter dataset (SPDX licence texts)
  trainprint analyze FILE [options]
      analyze a UTF-8 file (engine.analyze) and print the result as JSON
      --type text|markdown|html   content type (default: by extension .md/.markdown, .html/.htm, else text)
      --dataset FILE|URL          a dataset file to search (repeatable; from 'index build'), or
                                  postgres://…[?schema=S][&dataset=ID]: the datasets kept there
      --starter                   also search the embedded starter dataset (SPDX licence texts);
                                  the default when no --dataset is given
      --packs default|none        search the default reference packs (Project Gutenberg, Wikipedia
                                  portraits), as 'npm start' and the web app do (default: default)
      --jurisdiction CODE         ISO 3166 code, e.g. US, DE, US-CA
      --work-type T               book|article|news|code|other
      --opt-out DATE              the holder declared a TDM/AI-training opt-out on DATE (YYYY-MM-DD)
      --infini-gram IDX[,IDX]     also search these infini-gram indexes ('default': Pile, Dolma, RedPajama, C4,
                                  DCLM, OLMo-2 mix); the text is SENT to the engine (docs/remote-corpora.md)
      --infini-gram-endpoint URL  a self-hosted infini-gram engine instead of https://api.infini-gram.io/
      --infini-gram-mini IDX[,…]  also search these infini-gram mini indexes ('default': the newest Common Crawl)
      --infini-gram-mini-endpoint URL   a self-hosted infini-gram mini engine
  trainprint fingerprint FILE
      print the fingerprint summary of a UTF-8 file as JSON
  trainprint index build --dataset ID [options] FILES...
      index corpus files into a dataset file (engine.exportDataset bytes)
      FILES: .txt/.md (one document per file), .jsonl/.ndjson (one JSON object per line),
             .json (an array of objects), .parquet; .txt/.jsonl/.json may end in .gz or .zst
      --kind exact|portrait   exact: passages with their source spans; portrait: compact
                              membership filter, says which passages are in the corpus (default exact)
      --window N              portrait winnowing window, 1..64 (default 8)
      --name NAME             human-readable dataset name
      --kb-dataset ID         declare that the files sample this knowledge-base dataset (e.g. the-pile)
      --models A/B,C/D        declare the models trained on it (provider/model, comma-separated)
                              Both are your declaration, stored in the dataset file as given;
                              results derived from them are labelled as declared.
      --text-field F          JSON/Parquet field holding the text (default text)
      --id-field F            JSON/Parquet field holding the document id (default PATH:LINE / PATH:ROW)
      --format F              text|jsonl|json|parquet for every file, instead of by extension
      --out FILE              output file (default ID.tpds)
      --into URL              instead of a file, keep the (exact) dataset in PostgreSQL:
                              postgres://user@host:5432/db[?schema=S] (default schema trainprint_datasets)
      --partitions N          with --into: hash partitions of the posting tables, 1..1024 (default 16)
      --replace               with --into: drop a dataset with the same id first
      --threads N             threads that fingerprint documents, and read and parse plain
                              .jsonl files (default: the available cores); the file is
                              byte-identical for any N
      --quiet                 no progress line
  trainprint index push FILE --into URL [--dataset ID] [--partitions N] [--replace]
      copy an exact dataset file into PostgreSQL (same documents, same search results); the
      dataset keeps the file's id unless --dataset names another
  trainprint index info FILE|URL
      validate a dataset file and print its header, descriptor and stats as JSON; or, for
      postgres://…?dataset=ID, the stats of a dataset kept in PostgreSQL
  trainprint pack build MANIFEST [options]
      build a reference pack (a portrait dataset with its knowledge-base link and provenance)
      from its manifest (packs/NAME/manifest.json) and a folder of texts; every text is checked
      against the manifest's SHA-256, and the same inputs always give the same bytes
      --texts DIR             the texts (default: the manifest's "texts" folder)
      --out FILE              the pack file (default: packs/NAME.tpk beside the manifest's folder)
      --index FILE            record the pack's SHA-256, size and counts in this pack index
      --quiet                 no progress line
  trainprint packs list [--dir DIR] [--json]
      the packs of the pack index (default: the packs shipped with trainprint): file, size,
      documents, n-grams, knowledge-base link, loaded by default or not
  trainprint packs info [FILE|ID] [--documents] [--dir DIR]
      provenance of a pack (every listed pack without an argument) as JSON: sources and commits,
      licence of the texts, build date, counts, window; --documents lists every document
  trainprint packs verify [FILE|ID...] [--dir DIR]
      check packs (every listed one without an argument): CRC-32, layout, and the SHA-256 the
      index lists; exit code 1 when one fails
  trainprint serve [options]
      run the HTTP service (/api/v1, OpenAPI at /api/v1/openapi.json, status page at /status);
      prints a development key once at start (account dev, test mode, plan pro, 30 days, scopes of
      an account plus datasets:write, without keys): it replaces the one printed before on the
      same store, so at most one is valid; builds the datasets' search indexes (sorted exact
      indexes, content-word indexes) before it prints its URL, answering GET /readyz with 503 until then
      --port N                  port (default 8787; 0 picks a free one)
      --host H                  interface (default 127.0.0.1)
      --store DIR|URL           durable store (default: in memory): a directory (file store, one
                                process) or postgres://user:password@host:5432/db[?schema=name]
                                (PostgreSQL: several serve processes may share it); daily call
                                counts are kept in it too, so they survive a restart
      --admin-key               also print an admin key (scope admin, 30 days; replaces the one printed
                                before): POST /api/v1/admin/keys creates accounts and keys with it
      --dataset FILE|URL        a dataset file to load (repeatable), or postgres://…[?schema=S][&dataset=ID]:
                                attach the datasets kept there (every one of the schema without dataset=)
      --starter                 load the embedded starter dataset (the default without --dataset)
      --infini-gram IDX[,IDX]   analyze, score and monitors also search these infini-gram indexes
                                ('default': Pile, Dolma, RedPajama, C4, DCLM, OLMo-2 mix): analyzed text is
                                SENT to the engine; requests may keep it here with "search_remote": false
      --infini-gram-endpoint URL      a self-hosted infini-gram engine instead of https://api.infini-gram.io/
      --infini-gram-mini IDX[,IDX]    the same for infini-gram mini ('default': the newest Common Crawl crawl)
      --infini-gram-mini-endpoint URL a self-hosted infini-gram mini engine
      --packs default|none      load the default reference packs (Project Gutenberg, Wikipedia portraits;
                                default: default)
      --workers N               serve from N processes on one port (default: the cores when --store is
                                PostgreSQL, else 1; N > 1 needs a PostgreSQL store). Each loads the
                                datasets and packs itself (memory per process: docs/http.md), so
                                with N > 1 the API does not change datasets (409 CONFLICT)
      --drain-ms N              on SIGTERM/SIGINT, answer GET /readyz with 503 for N ms while still
                                serving, then stop (default 0; behind a load balancer: its probe
                                interval times the failures it needs, e.g. 10000); a webhook request
                                still unanswered at its end is handed back to the other processes
      --base-url URL            public base URL (its path is stripped before matching routes)
      --monitor-interval-s N    evaluate the monitors (and expire marketplace offers) every N seconds
                                (default 60)
      --allow-private-model-hosts    let memorization requests call models on loopback/private hosts
      --allow-private-webhook-hosts  let monitors POST events to loopback/private hosts
      Model and webhook host names are resolved, refused when any address is internal, and the
      request goes to the address that was checked.
  trainprint keys create --store DIR|URL --account A [--plan free|pro|scale|enterprise]
                         [--scopes a,b] [--mode live|test] [--name LABEL] [--expires-days N]
      create an API key in a file store (stop the server on it first) or a PostgreSQL store (servers
      may keep running; a running server also makes keys through POST /api/v1/admin/keys); the key
      is printed once (only its hash is stored)
      --scopes   default: every scope but datasets:write and admin
  trainprint model serve --model NAME [--models-dir DIR] [--port N] [--host H] [--api-key K]
                         [--generations-only] [--engine wasm|typescript] [--allow-origin ORIGIN]
      serve a byte-level test model of models/ (models/README.md) with the OpenAI completions API:
      GET /v1/models, POST /v1/completions (echo, logprobs, temperature 0 = greedy, seed),
      POST /v1/chat/completions; the memorization operations call it as any OpenAI-compatible model
      --models-dir   where the model directories are (default: ./models, else the package's models/)
      --port         default 8000; --host default 127.0.0.1
      --generations-only   refuse log-probabilities (a black-box model)
      --allow-origin       let web pages of ORIGIN (or * for any) call it from the browser (CORS),
                           e.g. the web app in its in-browser mode
  trainprint --help

exit codes: 0 ok, 1 runtime error, 2 usage error`;

class UsageError extends Error {}

function summary(fp: Fingerprint) {
  return {
    fingerprint: fp.fingerprint,
    work_hash: fp.work_hash,
    params: fp.params,
    byte_length: fp.byte_length,
    token_count: fp.token_count,
    shingles: fp.shingles.hashes.length,
    winnowed: fp.winnow?.hashes.length ?? 0,
    simhash: fp.simhash === undefined ? undefined : fp.simhash.toString(16).padStart(16, '0'),
    minhash_head: fp.minhash ? Array.from(fp.minhash.subarray(0, 4)) : undefined,
  };
}

type ParseOptions = NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>['options']>;
function parse(
  args: string[],
  options: ParseOptions,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    const r = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    return { values: r.values as Record<string, string | boolean | undefined>, positionals: r.positionals };
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
}

const mb = (bytes: number) => bytes / 1e6; // MB = 10^6 bytes
const fmt = (n: number, digits = 1) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** A progress line on stderr: redrawn in place on a TTY, a plain line every 5 s otherwise. */
function progressPrinter(quiet: boolean) {
  const tty = process.stderr.isTTY === true;
  const every = tty ? 200 : 5000;
  let last = -Infinity;
  let drawn = false;
  const line = (p: BuildProgress) => {
    const s = Math.max(p.elapsed_ms, 1) / 1000;
    const where = p.files > 1 ? ` [file ${p.file_index + 1}/${p.files}]` : '';
    return (
      `${p.phase === 'read' ? 'indexing' : 'writing'}${where} ${p.documents.toLocaleString('en-US')} docs, ${fmt(mb(p.bytes))} MB, ` +
      `${fmt(p.documents / s, 0)} docs/s, ${fmt(mb(p.bytes) / s, 2)} MB/s, ${fmt(s)} s`
    );
  };
  return {
    update(p: BuildProgress) {
      if (quiet) return;
      const now = p.elapsed_ms;
      if (p.phase === 'read' && now - last < every) return;
      if (p.phase === 'done') return;
      last = now;
      if (tty) {
        process.stderr.write(`\r\x1b[K${line(p)}`);
        drawn = true;
      } else process.stderr.write(`${line(p)}\n`);
    },
    end() {
      if (drawn) {
        process.stderr.write('\r\x1b[K');
        drawn = false;
      }
    },
  };
}

async function indexBuild(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    dataset: { type: 'string' },
    kind: { type: 'string' },
    window: { type: 'string' },
    name: { type: 'string' },
    'kb-dataset': { type: 'string' },
    models: { type: 'string' },
    'text-field': { type: 'string' },
    'id-field': { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string' },
    threads: { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
    into: { type: 'string' },
    partitions: { type: 'string' },
    replace: { type: 'boolean' },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const dataset = values.dataset as string | undefined;
  const threads = values.threads === undefined ? undefined : Number(values.threads);
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 1 || threads > 256)) {
    throw new UsageError('--threads must be an integer 1..256');
  }
  if (!dataset) throw new UsageError('index build needs --dataset ID');
  if (positionals.length === 0) throw new UsageError('index build needs at least one input FILE');
  const kind = (values.kind as string | undefined) ?? 'exact';
  if (kind !== 'exact' && kind !== 'portrait')
    throw new UsageError(`--kind must be exact or portrait, not ${JSON.stringify(kind)}`);
  let window: number | undefined;
  if (values.window !== undefined) {
    if (kind !== 'portrait') throw new UsageError('--window applies to --kind portrait only');
    window = Number(values.window);
    if (!Number.isInteger(window) || window < 1 || window > 64)
      throw new UsageError('--window must be an integer 1..64');
  }
  const kbDataset = (values['kb-dataset'] as string | undefined)?.trim();
  if (kbDataset === '') throw new UsageError('--kb-dataset needs a dataset id');
  let models: string[] | undefined;
  if (values.models !== undefined) {
    models = (values.models as string).split(',').map((m) => m.trim());
    if (models.some((m) => m === ''))
      throw new UsageError('--models needs a comma-separated list of model ids, none empty');
  }
  const format = values.format as string | undefined;
  if (format !== undefined && !['text', 'jsonl', 'json', 'parquet'].includes(format))
    throw new UsageError('--format must be text, jsonl, json or parquet');
  const into = postgresTarget(values, values.out !== undefined ? '--out' : undefined);
  const out = (values.out as string | undefined) ?? `${dataset.replace(/[^A-Za-z0-9._-]+/g, '_')}.tpds`;
  const progress = progressPrinter(values.quiet === true);
  if (into) {
    if (kind !== 'exact') throw new UsageError('--into keeps exact datasets only (a portrait fits a file)');
    try {
      const r = await buildPostgresDataset({
        dataset,
        kind,
        name: values.name as string | undefined,
        kbDataset,
        models,
        files: positionals,
        textField: values['text-field'] as string | undefined,
        idField: values['id-field'] as string | undefined,
        format: format as 'text' | 'jsonl' | 'json' | 'parquet' | undefined,
        threads,
        ...into,
        onProgress: (p) => progress.update(p),
      });
      progress.end();
      printStored('built', r);
      return 0;
    } finally {
      progress.end();
    }
  }
  try {
    const r = await buildDatasetFile({
      dataset,
      kind,
      window,
      name: values.name as string | undefined,
      kbDataset,
      models,
      files: positionals,
      out,
      textField: values['text-field'] as string | undefined,
      idField: values['id-field'] as string | undefined,
      format: format as 'text' | 'jsonl' | 'json' | 'parquet' | undefined,
      threads,
      onProgress: (p) => progress.update(p),
    });
    progress.end();
    const s = Math.max(r.elapsed_ms, 1) / 1000;
    const st = r.stats;
    console.error(
      `wrote ${r.out}: ${st.kind} dataset "${st.id}", ${st.documents.toLocaleString('en-US')} documents, ${fmt(mb(st.bytes))} MB of text, ` +
        `${st.fingerprints.toLocaleString('en-US')} fingerprints, file ${fmt(mb(r.file_bytes), 2)} MB; ` +
        `${fmt(s)} s (${fmt(st.documents / s, 0)} docs/s, ${fmt(mb(st.bytes) / s, 2)} MB/s)`,
    );
    console.log(
      JSON.stringify({ out: r.out, file_bytes: r.file_bytes, elapsed_ms: Math.round(r.elapsed_ms), stats: r.stats }),
    );
    return 0;
  } finally {
    progress.end();
  }
}

/** `--into URL`, `--partitions N`, `--replace` (`conflict`: an option that cannot go with --into). */
function postgresTarget(
  values: Record<string, unknown>,
  conflict?: string,
): { into: string; partitions?: number; replace?: boolean } | undefined {
  const into = values.into as string | undefined;
  if (into === undefined) {
    if (values.partitions !== undefined || values.replace) {
      throw new UsageError('--partitions and --replace go with --into');
    }
    return undefined;
  }
  if (!isPostgresUrl(into)) throw new UsageError('--into needs a postgres:// or postgresql:// URL');
  if (conflict) throw new UsageError(`${conflict} and --into are exclusive`);
  const partitions = values.partitions === undefined ? undefined : Number(values.partitions);
  if (partitions !== undefined && (!Number.isInteger(partitions) || partitions < 1 || partitions > 1024)) {
    throw new UsageError('--partitions must be an integer 1..1024');
  }
  return { into, ...(partitions === undefined ? {} : { partitions }), ...(values.replace ? { replace: true } : {}) };
}

/** The line and JSON of a dataset written into PostgreSQL. */
function printStored(what: string, r: PostgresDatasetResult): void {
  const s = Math.max(r.elapsed_ms, 1) / 1000;
  const st = r.stats;
  console.error(
    `${what} exact dataset "${st.id}" in ${r.into} (tables ${r.tables}_*, ${r.partitions} partitions): ` +
      `${st.documents.toLocaleString('en-US')} documents, ${st.fingerprints.toLocaleString('en-US')} fingerprints, ` +
      `${fmt(mb(st.index_bytes), 1)} MB of posting tables; ${fmt(s)} s (${fmt(st.fingerprints / s, 0)} fingerprints/s)`,
  );
  const { into, tables, partitions } = r;
  console.log(JSON.stringify({ into, tables, partitions, elapsed_ms: Math.round(r.elapsed_ms), stats: st }));
}

async function indexPush(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    into: { type: 'string' },
    dataset: { type: 'string' },
    partitions: { type: 'string' },
    replace: { type: 'boolean' },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('index push needs exactly one FILE');
  const target = postgresTarget(values);
  if (!target) throw new UsageError('index push needs --into postgres://…');
  const dataset = values.dataset as string | undefined;
  const r = await pushDatasetFile({ file: positionals[0], ...target, ...(dataset === undefined ? {} : { dataset }) });
  printStored('pushed', r);
  return 0;
}

async function indexInfo(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {});
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('index info needs exactly one FILE or URL');
  if (isPostgresUrl(positionals[0])) {
    const ds = await openPostgresDataset({ url: positionals[0] });
    try {
      const info = await ds.info();
      console.log(JSON.stringify({ into: ds.label, tables: ds.tables, partitions: ds.partitions, ...info }, null, 2));
    } finally {
      await ds.close();
    }
    return 0;
  }
  const info = await readDatasetInfo(positionals[0]);
  console.log(JSON.stringify(info, null, 2));
  return 0;
}

// ---------------------------------------------------------------- reference packs

async function packBuild(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    texts: { type: 'string' },
    out: { type: 'string' },
    index: { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('pack build needs exactly one MANIFEST');
  const quiet = values.quiet === true || process.stderr.isTTY !== true;
  let last = 0;
  const r = await buildPackFile({
    manifest: positionals[0],
    ...(values.texts === undefined ? {} : { texts: values.texts as string }),
    ...(values.out === undefined ? {} : { out: values.out as string }),
    ...(values.index === undefined ? {} : { index: values.index as string }),
    onProgress: (p) => {
      if (quiet || (p.documents < p.total && performance.now() - last < 200)) return;
      last = performance.now();
      process.stderr.write(`\r\x1b[Kreading ${p.documents}/${p.total} texts, ${fmt(mb(p.bytes))} MB`);
    },
  });
  if (!quiet) process.stderr.write('\r\x1b[K');
  const c = r.info.counts;
  console.error(
    `wrote ${r.out}: pack "${r.info.id}" (${r.info.kb_dataset}), ${c.documents.toLocaleString('en-US')} documents, ` +
      `${c.words.toLocaleString('en-US')} words, ${c.ngrams.toLocaleString('en-US')} n-grams at window ` +
      `${r.info.window}, file ${fmt(mb(r.file_bytes), 2)} MB (${fmt(r.file_bytes / Math.max(c.ngrams, 1), 2)} B per ` +
      `n-gram), ${fmt(r.elapsed_ms / 1000)} s`,
  );
  const elapsed_ms = Math.round(r.elapsed_ms);
  console.log(JSON.stringify({ out: r.out, sha256: r.sha256, file_bytes: r.file_bytes, elapsed_ms, counts: c }));
  return 0;
}

/** The packs named on the command line (files, or ids of the index), or every listed pack. */
async function namedPacks(
  names: string[],
  dir: string | undefined,
): Promise<Array<{ path: string; listed?: ListedPack }>> {
  const listed = names.length === 0 || names.some((n) => !existsSync(n)) ? await listPacks(dir) : [];
  if (names.length === 0) return listed.map((p) => ({ path: p.path, listed: p }));
  return names.map((n) => {
    const byId = listed.find((p) => p.id === n);
    if (byId && !existsSync(n)) return { path: byId.path, listed: byId };
    if (!existsSync(n)) throw new TrainprintError('NOT_FOUND', `${n}: no such file, and no listed pack has this id`);
    return { path: n };
  });
}

/** A pack's provenance for printing: without its document list unless asked. */
function provenance(info: PackInfo & { listed?: boolean }, documents: boolean): Record<string, unknown> {
  const { documents: docs, ...rest } = info;
  return { ...rest, documents: documents ? docs : `${docs.length} (list them with --documents)` };
}

async function packsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === '--help' || sub === '-h') {
    console.log(HELP);
    return 0;
  }
  if (sub === 'list') {
    const { values, positionals } = parse(rest, { dir: { type: 'string' }, json: { type: 'boolean' } });
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    if (positionals.length) throw new UsageError('packs list takes no positional arguments');
    const packs = await listPacks(values.dir as string | undefined);
    if (values.json) {
      console.log(JSON.stringify(packs, null, 2));
      return 0;
    }
    for (const p of packs) {
      console.log(
        `${p.id.padEnd(24)} ${p.file.padEnd(24)} ${fmt(mb(p.bytes), 2).padStart(7)} MB  ` +
          `${String(p.documents).padStart(6)} docs  ${p.words.toLocaleString('en-US').padStart(12)} words  ` +
          `${p.ngrams.toLocaleString('en-US').padStart(11)} n-grams  ` +
          `→ ${p.kb_dataset}${p.default ? '  (default)' : ''}`,
      );
    }
    const total = packs.filter((p) => p.default).reduce((a, p) => a + p.bytes, 0);
    console.log(`${packs.length} packs; default packs ${fmt(mb(total), 2)} MB`);
    return 0;
  }
  if (sub === 'info' || sub === 'verify') {
    const { values, positionals } = parse(rest, { dir: { type: 'string' }, documents: { type: 'boolean' } });
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    if (sub === 'info' && positionals.length > 1) throw new UsageError('packs info takes at most one FILE or ID');
    const dir = values.dir as string | undefined;
    const targets = await namedPacks(positionals, dir);
    if (sub === 'info') {
      const infos = [];
      for (const t of targets) {
        const expect = t.listed ? { sha256: t.listed.sha256 } : dir === undefined ? {} : { dir };
        infos.push(provenance(await verifyPackFile(t.path, expect), values.documents === true));
      }
      console.log(JSON.stringify(positionals.length === 1 ? infos[0] : infos, null, 2));
      return 0;
    }
    let failed = 0;
    for (const t of targets) {
      try {
        const expect = t.listed ? { sha256: t.listed.sha256 } : dir === undefined ? {} : { dir };
        const info = await verifyPackFile(t.path, expect);
        const how = info.listed ? 'SHA-256 as listed, CRC-32 and layout ok' : 'CRC-32 and layout ok, SHA-256 unlisted';
        console.log(`ok    ${t.path}  ${info.id}  sha256 ${info.sha256}  (${how})`);
      } catch (e) {
        failed++;
        console.log(`FAIL  ${t.path}  ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return failed === 0 ? 0 : 1;
  }
  throw new UsageError(
    sub === undefined
      ? 'packs needs a subcommand: list, info or verify'
      : `unknown packs subcommand ${JSON.stringify(sub)}`,
  );
}

const README_MIT = `# widget

A small library.

## License

Copyright (c) 2024 Jane Doe

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction, including
without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the
following conditions:
`;

async function analyzeFile(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    type: { type: 'string' },
    dataset: { type: 'string', multiple: true },
    starter: { type: 'boolean' },
    packs: { type: 'string' },
    jurisdiction: { type: 'string' },
    'work-type': { type: 'string' },
    'opt-out': { type: 'string' },
    'infini-gram': { type: 'string' },
    'infini-gram-endpoint': { type: 'string' },
    'infini-gram-mini': { type: 'string' },
    'infini-gram-mini-endpoint': { type: 'string' },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('analyze needs exactly one FILE');
  const packs = packsOption(values);
  const remoteCorpora = remoteCorporaFrom(values);
  const file = positionals[0];
  const type =
    (values.type as string | undefined) ??
    (/\.(md|markdown)$/i.test(file) ? 'markdown' : /\.html?$/i.test(file) ? 'html' : 'text');
  let content: string;
  try {
    content = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as { code?: unknown })?.code;
    throw new TrainprintError(
      'INVALID_INPUT',
      `${file}: ${code === 'ENOENT' ? 'no such file' : typeof code === 'string' ? code : String(e)}`,
    );
  }
  const engine = await createEngine({ remoteCorpora });
  const closeDatasets = await loadDatasets(engine, values);
  // the server's datasets: the same text gets the same answer here as from 'npm start' and the web app
  if (packs === 'default') {
    if (process.stderr.isTTY) process.stderr.write('loading the reference packs…');
    await loadDefaultPacks(engine);
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
  }
  const optOut = values['opt-out'] as string | undefined;
  const metadata = {
    ...(values.jurisdiction === undefined ? {} : { jurisdiction: values.jurisdiction as string }),
    ...(values['work-type'] === undefined ? {} : { work_type: values['work-type'] as never }),
    ...(optOut === undefined ? {} : { declarations: { tdm_opt_out: true, since: optOut } }),
  };
  try {
    const request = { content, content_type: type as never, ...(Object.keys(metadata).length ? { metadata } : {}) };
    const r = await engine.analyze(request);
    console.log(JSON.stringify(r, null, 2));
  } finally {
    await closeDatasets();
  }
  return 0;
}

/** `--packs default|none` (default: default, as `npm start`). */
function packsOption(values: Record<string, unknown>): 'default' | 'none' {
  const packs = (values.packs as string | undefined) ?? 'default';
  if (packs !== 'default' && packs !== 'none') throw new UsageError(`--packs must be 'default' or 'none'`);
  return packs;
}

/** The store `--store` names: a PostgreSQL URL (`postgres://…`, `postgresql://…`) or a directory. */
function openStore(location: string): ReturnType<typeof openFileStore | typeof openPostgresStore> {
  return isPostgresUrl(location) ? openPostgresStore(location) : openFileStore(location);
}

/**
 * The `--dataset` values into the engine: files are imported, `postgres://…` URLs attached (every dataset of
 * the URL's schema, or the one its `dataset` parameter names); the starter dataset with `--starter` or when
 * none is given. Resolves to what closes the attached datasets' connections.
 */
async function loadDatasets(engine: Engine, values: Record<string, unknown>): Promise<() => Promise<void>> {
  const datasets = (values.dataset as string[] | undefined) ?? [];
  const attached: Array<{ close(): Promise<void> }> = [];
  const close = async () => {
    await Promise.all(attached.map((d) => d.close()));
  };
  try {
    for (const d of datasets) {
      if (isPostgresUrl(d)) {
        const found = await openPostgresDatasets({ url: d });
        attached.push(...found);
        if (found.length === 0) throw new TrainprintError('NOT_FOUND', `no datasets in ${redact(d)}`);
        for (const ds of found) await engine.attachDataset(ds);
        continue;
      }
      let bytes: Buffer;
      try {
        bytes = await readFile(d);
      } catch {
        throw new TrainprintError('INVALID_INPUT', `${d}: cannot read the dataset file`);
      }
      await engine.importDataset(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    }
  } catch (e) {
    await close().catch(() => undefined);
    throw e;
  }
  if (values.starter || datasets.length === 0) {
    const { loadStarterDataset } = await import('./starter/index.js');
    await loadStarterDataset(engine);
  }
  return close;
}

/** A URL for printing: its password as ***. */
const redact = (url: string): string => url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');

/** Engine on an in-memory, file or PostgreSQL store, with dataset files, stored datasets and/or the starter. */
async function engineFor(
  values: Record<string, unknown>,
  webhookFetch?: typeof fetch,
): Promise<{ engine: Engine; closeDatasets: () => Promise<void> }> {
  const store = typeof values.store === 'string' ? await openStore(values.store) : undefined;
  const engine = await createEngine({
    ...(store ? { store } : {}),
    ...(webhookFetch ? { webhooks: { fetch: webhookFetch } } : {}),
    remoteCorpora: remoteCorporaFrom(values),
  });
  return { engine, closeDatasets: await loadDatasets(engine, values) };
}

/**
 * `--infini-gram IDX[,IDX]|default [--infini-gram-endpoint URL]` and the `--infini-gram-mini` pair: the remote
 * corpora to search (none without them: the text leaves the machine only when asked).
 */
function remoteCorporaFrom(values: Record<string, unknown>): RemoteDatasetConfig[] {
  const configs: RemoteDatasetConfig[] = [];
  for (const engine of ['infini-gram', 'infini-gram-mini'] as const) {
    const list = values[engine] as string | undefined;
    const endpoint = values[`${engine}-endpoint`] as string | undefined;
    if (list === undefined) {
      if (endpoint !== undefined)
        throw new UsageError(`--${engine}-endpoint goes with --${engine} IDX[,IDX] (or default)`);
      continue;
    }
    const names = list.split(',').map((n) => n.trim());
    if (names.some((n) => n === ''))
      throw new UsageError(`--${engine} needs 'default' or a comma-separated list of index names`);
    const indexes = names.length === 1 && names[0] === 'default' ? 'default' : names;
    configs.push(...publicRemoteCorpora(engine, { indexes, ...(endpoint !== undefined ? { endpoint } : {}) }));
  }
  return configs;
}

/** One line per remote corpus for the start-up log: what is sent where. */
function remoteLines(engine: Engine): string[] {
  return engine.corpus
    .remoteDatasets()
    .map(
      ({ config: c }) => `remote corpus ${c.id}: analyzed text is sent to ${c.endpoint} (${c.kind} index ${c.index})`,
    );
}

async function serveCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    port: { type: 'string' },
    host: { type: 'string' },
    store: { type: 'string' },
    dataset: { type: 'string', multiple: true },
    starter: { type: 'boolean' },
    'base-url': { type: 'string' },
    packs: { type: 'string' },
    'allow-private-model-hosts': { type: 'boolean' },
    'allow-private-webhook-hosts': { type: 'boolean' },
    'admin-key': { type: 'boolean' },
    'drain-ms': { type: 'string' },
    workers: { type: 'string' },
    'infini-gram': { type: 'string' },
    'infini-gram-endpoint': { type: 'string' },
    'infini-gram-mini': { type: 'string' },
    'infini-gram-mini-endpoint': { type: 'string' },
    'monitor-interval-s': { type: 'string' },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length) throw new UsageError('serve takes no positional arguments');
  const monitorS = values['monitor-interval-s'] === undefined ? 60 : Number(values['monitor-interval-s']);
  if (!Number.isInteger(monitorS) || monitorS < 1 || monitorS > 86_400) {
    throw new UsageError('--monitor-interval-s must be an integer in 1..86400');
  }
  remoteCorporaFrom(values); // refused here, before any process starts (engineFor uses them)
  const drainMs = values['drain-ms'] === undefined ? 0 : Number(values['drain-ms']);
  if (!Number.isInteger(drainMs) || drainMs < 0 || drainMs > 60_000) {
    throw new UsageError('--drain-ms must be an integer in 0..60000');
  }
  // several processes need one shared state: only a PostgreSQL store is shared (a file store is locked by one
  // process, a memory store is per process)
  const shared = typeof values.store === 'string' && isPostgresUrl(values.store);
  const processes = values.workers === undefined ? (shared ? availableParallelism() : 1) : Number(values.workers);
  if (!Number.isInteger(processes) || processes < 1 || processes > 256) {
    throw new UsageError('--workers must be an integer in 1..256');
  }
  if (processes > 1 && !shared) {
    throw new UsageError('--workers N > 1 needs --store postgres://… (a file or memory store belongs to one process)');
  }
  const worker = process.env[SERVE_WORKER_ENV];
  if (processes > 1 && cluster.isPrimary) return servePrimary(values, processes);
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError('--port must be an integer in 0..65535');
  const packs = packsOption(values);
  const http = await import('./http/index.js');
  const privateWebhooks = values['allow-private-webhook-hosts'] === true;
  // a webhook URL was checked when its monitor was made, but its name may resolve elsewhere by the
  // time an event is sent: every delivery is resolved, checked and sent to the checked address
  const webhookFetch = privateWebhooks ? undefined : http.egressFetch(resolveHost);
  const { engine, closeDatasets } = await engineFor(values, webhookFetch);
  // the reference packs (portraits of documented training data, packs/index.json), each checked against its SHA-256
  if (packs === 'default') await loadDefaultPacks(engine);
  const keys = new http.KeyStore(engine.store);
  // in a worker process of `--workers N` the primary made the keys once
  const { dev, admin } = worker
    ? { dev: null, admin: null }
    : await serveKeys(http, keys, values['admin-key'] === true);
  // analyze's fingerprints and pairs and whole compares run on worker threads, and analyze's search yields
  // between slices: a large request does not hold up the others (docs/performance.md)
  const workers = createWorkerPool();
  const api = http.createHandler(engine, {
    keys,
    offload: workers,
    // with a store the day's counts are kept in it: a restart does not reset the quotas, and every
    // process on one PostgreSQL store counts against the same quota
    ...(typeof values.store === 'string' ? { counters: new http.StoreCounterStore(engine.store) } : {}),
    ...(values['base-url'] ? { baseUrl: values['base-url'] as string } : {}),
    resolveHost,
    // the back-off after failed authentication counts per client address too: the bridge's, never the client's say
    clientAddress: (request: Request) => request.headers.get(CLIENT_ADDRESS_HEADER),
    allowPrivateModelHosts: values['allow-private-model-hosts'] === true,
    allowPrivateWebhookHosts: privateWebhooks,
    // each worker process of --workers N loads the datasets from files: a change through one would be missing in
    // the others (and in every process after a restart), so none is accepted
    ...(worker
      ? {
          datasetsReadOnly:
            `its ${processes} processes each load them at start (--dataset, --starter, packs); ` +
            'build a dataset file with `trainprint index build` (or into PostgreSQL with --into) and restart',
        }
      : {}),
  });
  // the web app (dist/web, built by `npm run build`) at '/', the API under /api/v1
  const webDir = fileURLToPath(new URL('./web/', import.meta.url));
  const files = existsSync(join(webDir, 'index.html')) ? serveStatic(webDir) : null;
  if (!files) console.error(`no web app at ${webDir} (run npm run build in a clone); serving the API only`);
  const handler = async (req: Request) => (files ? ((await files(req)) ?? api(req)) : api(req));
  // the indexes a first search would build (sorted exact indexes, content-word indexes: tens of seconds for a
  // large dataset) are built now, in slices, while the server already answers; requests meanwhile share the build
  let prepared = false,
    notReady = 'building the search indexes of the datasets';
  const started = performance.now();
  const preparing = engine.corpus.prepareSearch({ offload: workers }).then(
    () => {
      prepared = true;
    },
    (e: unknown) => {
      // not ready (a search would try again, and fail the same way): the reason shows in /readyz and the log
      notReady = `the search indexes could not be built: ${e instanceof Error ? e.message : String(e)}`;
      console.error(notReady);
    },
  );
  // ready once they are built and while the store answers (a PostgreSQL store may be unreachable; the memory and
  // file stores always answer)
  const ready = async () => {
    if (!prepared) throw new Error(notReady);
    await engine.store.get('http/config/token-secret');
    return true;
  };
  const host = (values.host as string | undefined) ?? '127.0.0.1';
  const server = await serve(handler, { port, host, workers, ready });
  const sets = engine
    .datasets()
    // a pack's documents are its source files (a Wikipedia pack: one per extractor file of thousands of articles):
    // its name says what they hold
    .map((d) => `${d.id} (${d.documents} documents${d.id.startsWith('pack:') && d.name ? `: ${d.name}` : ''})`)
    .join(', ');
  // a store URL may carry a password: the log shows it as ***
  const where = typeof values.store === 'string' ? redact(values.store) : 'in memory';
  // every serving process heartbeats to the store: the status page's availability counts the minutes with one
  const heartbeat = new http.Heartbeat(engine.store);
  void heartbeat.start(); // a failed heartbeat leaves its minute down; /readyz reports the store itself
  await preparing;
  const preparedIn = prepared
    ? `search indexes built in ${((performance.now() - started) / 1000).toFixed(1)} s`
    : notReady;
  if (worker) process.send?.({ listening: server.url, datasets: sets });
  else {
    printServing(server.url, `datasets: ${sets}; store: ${where}; ${preparedIn}`, dev!, admin);
    for (const line of remoteLines(engine)) console.log(line);
  }
  // one monitoring tick per deployment is enough (several would find the same events; leases keep them single)
  if (!worker || worker === '1') engine.startMonitoring(monitorS * 1000);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  // Webhooks stop with the drain, not after it: no new attempt from here on, and a request still unanswered when
  // the drain ends is handed back (its lease released) for another process, rather than cut off by a SIGKILL
  // after it and left leased until the lease lapses. Without a drain, a request in flight gets its own timeout.
  await Promise.all([server.close({ drainMs }), engine.stopMonitoring(drainMs > 0 ? { graceMs: drainMs } : {})]);
  await heartbeat.stop();
  await closeDatasets();
  await engine.store.close();
  // a worker process stays alive while its channel to the primary is open
  if (worker) process.disconnect?.();
  return 0;
}

/** Set in the worker processes of `serve --workers N` (their number, from 1). */
const SERVE_WORKER_ENV = 'TRAINPRINT_SERVE_WORKER';

type HttpModule = typeof import('./http/index.js');
type MadeKey = Awaited<ReturnType<InstanceType<HttpModule['KeyStore']>['replaceKey']>>;

/**
 * The development key (one per store: it replaces the one printed before, which cannot be shown again — only its
 * hash is stored; it may add the account's own datasets but not make more keys) and, when asked, the admin key.
 */
async function serveKeys(
  http: HttpModule,
  keys: InstanceType<HttpModule['KeyStore']>,
  withAdmin: boolean,
): Promise<{ dev: MadeKey; admin: MadeKey | null }> {
  const expires = { expiresInSeconds: 30 * 86_400 };
  const devScopes = [...http.DEFAULT_SCOPES.filter((s) => s !== 'keys'), 'datasets:write' as const];
  const dev = await keys.replaceKey('serve-dev', {
    account: 'dev',
    plan: 'pro',
    mode: 'test',
    name: 'development key of trainprint serve',
    scopes: devScopes,
    ...expires,
  });
  const admin = withAdmin
    ? await keys.replaceKey('serve-admin', {
        account: 'admin',
        plan: 'enterprise',
        scopes: ['admin'],
        name: 'admin key of trainprint serve',
        ...expires,
      })
    : null;
  return { dev, admin };
}

/** What `serve` prints once it listens. */
function printServing(url: string, what: string, dev: MadeKey, admin: MadeKey | null): void {
  console.log(`trainprint listening on ${url}  (${what})`);
  const until = dev.info.expires_at?.slice(0, 10);
  const replaced = dev.replaced ? `; the key …${dev.replaced.last4} printed before is revoked` : '';
  console.log(`development key (shown once; account dev, test mode, plan pro, until ${until}${replaced}): ${dev.key}`);
  if (admin) {
    console.log(`admin key (shown once; scope admin, until ${admin.info.expires_at?.slice(0, 10)}): ${admin.key}`);
    console.log(`  a key for an account:  curl -s -H "Authorization: Bearer ${admin.key}" \\
        -H 'Content-Type: application/json' -d '{"account":"alice","plan":"pro"}' ${url}/api/v1/admin/keys`);
  }
  console.log(`try:  curl -s -H "Authorization: Bearer ${dev.key}" -H 'Content-Type: application/json' \\
        -d '{"content":"Permission is hereby granted, free of charge, to any person obtaining a copy of this software","content_type":"text"}' \\
        ${url}/api/v1/attribution/analyze`);
  console.log(`web app: ${url}/   OpenAPI: ${url}/api/v1/openapi.json   status: ${url}/status   (Ctrl-C stops)`);
}

/** Most worker processes re-forked after unexpected exits before the primary gives up. */
const MAX_REFORKS = 10;

/**
 * `serve --workers N`: the primary makes the keys once in the shared store, forks N worker processes that each load
 * the datasets and serve on the same port (node:cluster hands connections round-robin), prints what one of them
 * reports, re-forks a worker that dies, and on SIGTERM/SIGINT passes the signal on and waits for them to drain.
 */
async function servePrimary(values: Record<string, unknown>, processes: number): Promise<number> {
  const http = await import('./http/index.js');
  const store = await openStore(values.store as string);
  let made: { dev: MadeKey; admin: MadeKey | null };
  try {
    made = await serveKeys(http, new http.KeyStore(store), values['admin-key'] === true);
  } finally {
    await store.close();
  }
  const where = redact(values.store as string);
  let stopping = false,
    reforks = 0,
    printed = false;
  const fork = (n: number) => {
    const w = cluster.fork({ [SERVE_WORKER_ENV]: String(n) });
    w.on('message', (m: { listening?: string; datasets?: string }) => {
      if (printed || typeof m?.listening !== 'string') return;
      printed = true;
      const what = `${processes} worker processes; datasets: ${m.datasets}; store: ${where}`;
      printServing(m.listening, what, made.dev, made.admin);
    });
    w.on('exit', (code, signal) => {
      if (stopping) return;
      if (reforks++ >= MAX_REFORKS) {
        console.error(`worker ${n} exited (${code ?? signal}); ${MAX_REFORKS} re-forks already: stopping`);
        process.kill(process.pid, 'SIGTERM');
        return;
      }
      console.error(`worker ${n} exited (${code ?? signal}): starting another`);
      fork(n);
    });
  };
  for (let n = 1; n <= processes; n++) fork(n);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  stopping = true;
  const running = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined && !w.isDead());
  await Promise.all(
    running.map(
      (w) =>
        new Promise<void>((resolve) => {
          w!.once('exit', () => resolve());
          w!.process.kill('SIGTERM');
        }),
    ),
  );
  return 0;
}

/** `trainprint model serve`: a test model of models/ behind the OpenAI completions API, until SIGINT/SIGTERM. */
async function modelCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'serve')
    throw new UsageError(
      sub === undefined ? 'model needs a subcommand: serve' : `unknown model subcommand ${JSON.stringify(sub)}`,
    );
  const { values, positionals } = parse(rest, {
    model: { type: 'string' },
    'models-dir': { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    'api-key': { type: 'string' },
    'generations-only': { type: 'boolean' },
    engine: { type: 'string' },
    'allow-origin': { type: 'string' },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length) throw new UsageError('model serve takes no positional arguments');
  const name = values.model;
  if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9._-]{0,99}$/.test(name))
    throw new UsageError('model serve needs --model NAME (a directory of models/, e.g. byte-gpt-base)');
  const port = values.port === undefined ? 8000 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError('--port must be an integer in 0..65535');
  const engine = values.engine ?? 'wasm';
  if (engine !== 'wasm' && engine !== 'typescript') throw new UsageError('--engine must be wasm or typescript');
  const origin = values['allow-origin'];
  if (origin !== undefined && (typeof origin !== 'string' || (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin))))
    throw new UsageError('--allow-origin must be * or an origin such as http://127.0.0.1:3000 (no path)');
  const dirs =
    typeof values['models-dir'] === 'string'
      ? [values['models-dir']]
      : ['models', fileURLToPath(new URL('../models/', import.meta.url))];
  const dir = dirs.map((d) => join(d, name)).find((d) => existsSync(join(d, 'manifest.json')));
  if (dir === undefined) throw new UsageError(`no model ${JSON.stringify(name)} in ${dirs.join(' or ')}`);
  const { weights } = await readModelDirectory(dir);
  const model = await loadByteGptModel(weights, {
    id: name,
    engine,
    access: 'top_k',
    topK: 20,
  });
  const served = createByteGptHandler(model, {
    ...(typeof values['api-key'] === 'string' ? { apiKey: values['api-key'] } : {}),
    generationsOnly: values['generations-only'] === true,
  });
  const handler = typeof origin === 'string' ? withCors(served, origin) : served;
  const server = await serve(handler, { port, host: typeof values.host === 'string' ? values.host : '127.0.0.1' });
  console.log(`model ${name} (${engine}) serving the OpenAI completions API at ${server.url}/v1`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.close();
  return 0;
}

async function keysCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'create')
    throw new UsageError(
      sub === undefined ? 'keys needs a subcommand: create' : `unknown keys subcommand ${JSON.stringify(sub)}`,
    );
  const { values, positionals } = parse(rest, {
    store: { type: 'string' },
    account: { type: 'string' },
    plan: { type: 'string' },
    scopes: { type: 'string' },
    mode: { type: 'string' },
    name: { type: 'string' },
    'expires-days': { type: 'string' },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length) throw new UsageError('keys create takes no positional arguments');
  if (typeof values.store !== 'string') {
    throw new UsageError('keys create needs --store DIR|URL (the store the service runs on)');
  }
  if (typeof values.account !== 'string') throw new UsageError('keys create needs --account A');
  const days = values['expires-days'] === undefined ? undefined : Number(values['expires-days']);
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 3660)) {
    throw new UsageError('--expires-days must be an integer in 1..3660');
  }
  const { KeyStore, PLANS, SCOPES } = await import('./http/index.js');
  // checked before the store is opened: a key no call could use (an unknown plan or scope) is never made
  if (typeof values.plan === 'string' && !Object.keys(PLANS).includes(values.plan)) {
    const plans = Object.keys(PLANS).join(', ');
    throw new UsageError(`--plan ${JSON.stringify(values.plan)} is not a plan; the plans are ${plans}`);
  }
  const scopes =
    typeof values.scopes === 'string'
      ? values.scopes
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean)
      : undefined;
  const unknown = (scopes ?? []).filter((x) => !(SCOPES as readonly string[]).includes(x));
  if (unknown.length) {
    const what = unknown.length === 1 ? 'is not a scope' : 'are not scopes';
    throw new UsageError(`--scopes: ${unknown.join(', ')} ${what}; the scopes are ${SCOPES.join(', ')}`);
  }
  const store = await openStore(values.store);
  try {
    const { key, info } = await new KeyStore(store).createKey({
      account: values.account,
      ...(values.plan === undefined ? {} : { plan: values.plan as string }),
      ...(scopes ? { scopes } : {}),
      ...(values.mode === undefined ? {} : { mode: values.mode as 'live' | 'test' }),
      ...(values.name === undefined ? {} : { name: values.name as string }),
      ...(days === undefined ? {} : { expiresInSeconds: days * 86_400 }),
    });
    console.log(JSON.stringify({ key, ...info }, null, 2));
    console.error('the key is shown once: only its SHA-256 is stored');
  } finally {
    await store.close();
  }
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [cmd = 'demo', ...rest] = argv;
  if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
    console.log(HELP);
    return 0;
  }
  if (cmd === 'index') {
    const [sub, ...args] = rest;
    if (sub === 'build') return indexBuild(args);
    if (sub === 'info') return indexInfo(args);
    if (sub === 'push') return indexPush(args);
    if (sub === '--help' || sub === '-h') {
      console.log(HELP);
      return 0;
    }
    throw new UsageError(
      sub === undefined
        ? 'index needs a subcommand: build, push or info'
        : `unknown index subcommand ${JSON.stringify(sub)}`,
    );
  }
  if (cmd === 'demo') {
    if (rest.length) throw new UsageError('demo takes no arguments');
    const engine = await createEngine();
    const [fa, fb] = [await engine.fingerprint(A), await engine.fingerprint(B)];
    const sim = engine.similarity(fa, fb);
    const shared = [...new Set(fa.winnow!.hashes)].filter((h) => fb.winnow!.hashes.includes(h));
    console.log(JSON.stringify({ engine: engine.variant, a: summary(fa), b: summary(fb), similarity: sim }, null, 2));
    for (const h of shared.slice(0, 3)) {
      const i = fa.winnow!.hashes.indexOf(h),
        j = fb.winnow!.hashes.indexOf(h);
      console.log(
        `shared fingerprint ${h.toString(16).padStart(16, '0')}: A "${A.slice(fa.winnow!.starts[i], fa.winnow!.ends[i])}" ~ B "${B.slice(fb.winnow!.starts[j], fb.winnow!.ends[j])}"`,
      );
    }
    const { loadStarterDataset } = await import('./starter/index.js');
    const stats = await loadStarterDataset(engine);
    const r = await engine.analyze({ content: README_MIT, content_type: 'markdown', metadata: { jurisdiction: 'US' } });
    const top = r.matches.find((m) => m.document_id === 'MIT') ?? r.matches[0];
    console.log(
      `\nanalyze (markdown README quoting the MIT licence) against the starter dataset (${stats.documents} SPDX licence texts):`,
    );
    console.log(
      JSON.stringify(
        {
          potential_matches: r.potential_matches,
          first_match: top && { ...top, text: README_MIT.slice(top.query_start, top.query_end).slice(0, 80) + '…' },
          confidence: r.confidence,
          attribution_sources: r.attribution_sources,
          risk_assessment: { level: r.risk_assessment.level, factors: r.risk_assessment.factors },
          limitations: r.limitations,
        },
        null,
        2,
      ),
    );
    console.log(
      '(the licence texts are a reference sample with no documented model link: matches, but no attribution)',
    );
    return 0;
  }
  if (cmd === 'pack') {
    const [sub, ...args] = rest;
    if (sub === 'build') return packBuild(args);
    if (sub === '--help' || sub === '-h') {
      console.log(HELP);
      return 0;
    }
    throw new UsageError(
      sub === undefined ? 'pack needs a subcommand: build' : `unknown pack subcommand ${JSON.stringify(sub)}`,
    );
  }
  if (cmd === 'packs') return packsCommand(rest);
  if (cmd === 'analyze') return analyzeFile(rest);
  if (cmd === 'serve') return serveCommand(rest);
  if (cmd === 'keys') return keysCommand(rest);
  if (cmd === 'model') return modelCommand(rest);
  if (cmd === 'fingerprint') {
    if (rest.length !== 1) throw new UsageError('fingerprint needs exactly one FILE');
    let text: Buffer;
    try {
      text = await readFile(rest[0]);
    } catch (e) {
      const code = (e as { code?: unknown })?.code;
      throw new TrainprintError(
        'INVALID_INPUT',
        `${rest[0]}: ${code === 'ENOENT' ? 'no such file' : typeof code === 'string' ? code : String(e)}`,
      );
    }
    const engine = await createEngine();
    console.log(JSON.stringify(summary(await engine.fingerprint(new Uint8Array(text))), null, 2));
    return 0;
  }
  throw new UsageError(`unknown command ${JSON.stringify(cmd)}`);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof UsageError) {
      console.error(`error: ${e.message}\nrun 'trainprint --help' for usage`);
      process.exitCode = 2;
    } else if (e instanceof TrainprintError) {
      console.error(`error: ${e.code}: ${e.message}`);
      process.exitCode = 1;
    } else {
      // an unexpected failure: still one line, no stack (set TRAINPRINT_DEBUG=1 for it)
      console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
      if (process.env.TRAINPRINT_DEBUG && e instanceof Error) console.error(e.stack);
      process.exitCode = 1;
    }
  },
);
