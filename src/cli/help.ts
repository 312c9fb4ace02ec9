/**
 * The usage text of `trainprint`: one page for every command, printed by `trainprint --help` and by each
 * command's `--help` (a command's options read best beside the others it shares them with).
 */

/**
 * The whole usage text, as `trainprint --help` prints it.
 * @example console.log(HELP) // usage:\n  trainprint demo …
 */
export const HELP = `usage:
  trainprint demo
      fingerprint two built-in passages and compare them, then analyze a README that
      quotes the MIT licence against the embedded starter dataset (SPDX licence texts)
  trainprint analyze FILE [options]
      analyze a UTF-8 text file, or an EPUB, PDF or DOCX file (engine.analyze), and print the result as JSON
      --type T                    text|markdown|html|epub|pdf|docx (default: by extension .txt, .md/.markdown,
                                  .html/.htm, .epub, .pdf, .docx; another extension is refused, as an HTTP
                                  upload is); a file's text is extracted and the spans point into it (the
                                  result's extraction). Limits, checked from the file's size before it is
                                  read: a text file 10 MiB of UTF-8 (strict UTF-8), an EPUB, PDF or DOCX file
                                  64 MiB (the library's maxFileBytes; the CLI has no plan)
      --dataset FILE|URL          a dataset file to search (repeatable; from 'index build'), or
                                  postgres://…[?schema=S][&dataset=ID]: the datasets kept there
      --starter                   also search the embedded starter dataset (SPDX licence texts);
                                  the default when no --dataset is given
      --packs default|none        search the default reference packs (Project Gutenberg, Wikipedia,
                                  books in 10 other languages), as 'npm start' and the web app do
                                  (default: default)
      --jurisdiction CODE         ISO 3166 code, e.g. US, DE, US-CA
      --work-type T               book|article|news|code|other
      --opt-out DATE              the holder declared a TDM/AI-training opt-out on DATE (YYYY-MM-DD)
      --quotations exclude|count  text the work quotes (inside quotation marks, a block quote, after an
                                  attribution, or a passage the packs hold in several documents): shown as a
                                  quotation and left out of the confidence (exclude, the default), or counted
      --quiet, -q                 no progress line on stderr (there is none when stderr is not a terminal)
      --report FILE               also write the analysis's work report (as 'report' draws it) to FILE, with
                                  the text the analysis read: a book is not extracted a second time
      --bundle FILE               also write the analysis's signed evidence bundle (canonical JSON, as
                                  GET …/bundle answers it) to FILE, signed by a key made for this run
      --infini-gram IDX[,IDX]     also search these infini-gram indexes ('default': Pile, Dolma, RedPajama, C4,
                                  DCLM, OLMo-2 mix); the text is SENT to the engine (docs/remote-corpora.md)
      --infini-gram-endpoint URL  a self-hosted infini-gram engine instead of https://api.infini-gram.io/
      --infini-gram-mini IDX[,…]  also search these infini-gram mini indexes ('default': the newest Common Crawl)
      --infini-gram-mini-endpoint URL   a self-hosted infini-gram mini engine
  trainprint fingerprint FILE [--type T]
      print the fingerprint summary of a file's text as JSON: read as analyze reads it (the type by
      --type or the extension, the size checked first, an EPUB, PDF or DOCX file's extracted text)
  trainprint index build --dataset ID [options] FILES...
      index corpus files into a dataset file (engine.exportDataset bytes)
      FILES: .txt/.md (one document per file), .jsonl/.ndjson (one JSON object per line),
             .json (an array of objects), .parquet; .txt/.jsonl/.json may end in .gz or .zst;
             .epub/.pdf/.docx (one document per file: its extracted text, at most 64 MiB)
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
      --format F              text|jsonl|json|parquet|epub|pdf|docx for every file, instead of by
                              extension
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
      --packs default|none      load the default reference packs (Project Gutenberg, Wikipedia, books in
                                10 other languages; default: default)
      --workers N               serve from N processes on one port (default: the cores when --store is
                                PostgreSQL, else 1; N > 1 needs a PostgreSQL store). Each loads the
                                datasets and packs itself (memory per process: docs/http.md), so
                                with N > 1 the API does not change datasets (409 CONFLICT)
      --drain-ms N              on SIGTERM/SIGINT, answer GET /readyz with 503 for N ms while still
                                serving, then stop (default 0; behind a load balancer: its probe
                                interval times the failures it needs, e.g. 10000); a webhook request
                                still unanswered at its end is handed back to the other processes;
                                catalogue job items still running are stopped and handed back. The
                                process exits at most 20 s after the drain (at once on a second signal)
      --job-item-timeout-s N    stop a catalogue job item that runs longer than N seconds; its result is
                                a PAYLOAD_TOO_LARGE error naming the limit (default 300). An extract
                                item is a time slice: it stops just before, and the next slice goes on
      --job-lease-s N           a catalogue job's chunk is this process's for N seconds, renewed every
                                N/3 while it runs; a process killed with chunks of its own holds them
                                until that lapses, then another process (or this one started again)
                                takes them over (default 60)
      --base-url URL            public base URL (its path is stripped before matching routes)
      --monitor-interval-s N    evaluate the monitors (and expire marketplace offers) every N seconds
                                (default 60)
      --allow-private-model-hosts    let memorization requests call models on loopback/private hosts
      --allow-private-webhook-hosts  let monitors POST events to loopback/private hosts
      --webhook-lease-margin-s N     a webhook attempt is leased to the process sending it for its
                                10 s request timeout plus N seconds: one killed while sending has
                                its attempts sent by another process that much later (default 30)
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
  trainprint report ANALYSIS.json [--text FILE] [--extraction RESULT.json]... [--out FILE] [--bundle FILE]
  trainprint report --store DIR|URL --analysis ID [--account NAME] [--out FILE] [--bundle FILE]
      the work report of an analysis (as 'analyze' prints it) or of an evidence bundle: one
      self-contained HTML page (coverage strips over the work's sections, passages side by side,
      corpus → model chain, what was not checked, method, input digests); prints to a readable PDF
      --text FILE   the analysed text, when the analysis does not carry it (extraction.text): the
                    content as analysed, a book's EPUB/PDF/DOCX file, or its extracted text; without
                    it the passages show their source side only
      --extraction RESULT.json   a 'trainprint extract' result over the same text (repeatable): a
                    strip of what the model wrote out (a bundle's own extractions are drawn too)
      --out FILE    the page (default: standard output)
      --bundle FILE also write the signed evidence bundle of the same record (not of a bundle): by
                    the report key of --store, else by a key made for this run
      --store DIR|URL --analysis ID [--account NAME]   an analysis kept in a server's store, with
                    the extractions and catalogue audits the account's jobs kept of its text: the
                    record GET …/report and …/bundle are made of (stop the server first on a
                    directory store)
  trainprint verify BUNDLE.json [--key PUB] [--text FILE] [--json] [--allow-unpinned]
      check an evidence bundle offline and print every check: the signature member, the Ed25519
      signature over its canonical JSON, the remote transcripts' digests, the numbers recomputed from
      it (docs/works.md says what this proves and what it cannot); exit code 0 valid, 1 invalid,
      3 valid under the key the bundle names with no --key ("valid (key not pinned)")
      --key PUB     the public key to trust: a file with the answer of GET /api/v1/report-key, a JWK,
                    or the base64url key (default: the key the bundle names, integrity only)
      --text FILE   the analysed text, as report takes it: the work's EPUB/PDF/DOCX file (its text
                    extracted again) or its extracted text; checked against the bundle's text_sha256
      --json        the result as JSON
      --allow-unpinned   exit code 0 for a bundle valid under the key it names, without --key
  trainprint extract-text FILE [--type T] [--out FILE]
      write the text analyze reads from FILE, exactly (UTF-8, nothing added): an EPUB, PDF or DOCX
      file's extracted text, a text file as it is. Its SHA-256 is a bundle's text_sha256 and its
      UTF-16 offsets are the result's spans; --type and the limits as analyze's
      --out FILE    the text (default: standard output)
  trainprint extract WORK --model-url URL --model NAME [options]
      how much of WORK (a text, EPUB, PDF or DOCX file) an OpenAI-compatible model writes out
      (engine.memorization.extractWork, docs/memorization.md): probes over every section, then
      continuation loops from each hit; the result as JSON: nv_recall (share of the work's words in
      near-verbatim blocks of >= 100 words), blocks { start, end, words, generated, calls } (UTF-16
      offsets into the text as extract-text writes it), calls, refusals, usage, the record of every
      call (SHA-256 of request and answer). The API key, if any, from TRAINPRINT_MODEL_API_KEY
      --model-url URL     the base URL including /v1, e.g. https://api.example.com/v1
      --model NAME        the model field of every request
      --chat              /chat/completions (default: /completions)
      --prompt-variants N chat: prompt templates tried in turn until one continues the work
                          (best-of-N, 1..3, default 3)
      --budget-calls N    most calls in all, every call counted (default 2000)
      --probes N          phase-1 probes (default one per 250 words, at most half the budget)
      --max-tokens N      max_tokens of each call (default 256)
      --concurrency N     calls in flight (default 4)
      --prices P,C[,CUR]  your prices per million prompt and completion tokens: the result's cost
                          (from the usage the endpoint reports; no prices are built in)
      --type T            as analyze's
      --out FILE          the result (default: standard output)
      --journal FILE      keep every answered call in FILE (JSON lines, fsync'd); run the same
                          command again with the same FILE to resume: recorded calls are replayed,
                          never made again
      --allow-private-model-hosts   call a model on a loopback or private host (refused by default,
                          by the URL and by every address its name resolves to, as serve refuses them)
      --max-tokens-param P  max_tokens (default) or max_completion_tokens (OpenAI's newer models)
      --temperature T     temperature sent (default 0: greedy, what the measure assumes)
      --seed N            seed sent, for endpoints that take one
      --timeout-ms MS     a call's time limit, its retries included (default 60000)
      --rpm N, --tpm N    most requests / tokens a minute (token buckets; x-ratelimit-* honoured)
      The result is written whatever happens to the calls: calls that keep failing end it with
      stopped: upstream_errors and the endpoint's message in error (exit code 1). The calls made
      show on stderr every twentieth of the budget; Ctrl-C aborts the calls in flight and prints
      how to resume (exit code 130)
  trainprint audit DIR|LIST --model-url URL --model NAME [options]
      which works of a catalogue a model writes out, under one call budget for the whole catalogue
      (auditCatalogue, docs/memorization.md): a first pass of a few probes a work, the rest of the
      budget to the works whose probes hit; per work a verdict (reproduced with nv_recall, or
      not_found with the chance a reproduced work shows no hit; unanswered where every call failed:
      no verdict, exit code 1 when no work was measured), the catalogue's share with its 95 %
      interval. DIR: its text, EPUB, PDF and DOCX files; LIST: JSON Lines of { id, text }, or one
      work file a line. The model options as extract's, and:
      --budget-calls N    calls for the whole catalogue (default 2000)
      --first-probes K    probes a work in the first pass (default 3)
      --max-tokens N, --concurrency N, --journal FILE, --out FILE   as extract's
      A model that answers no call stops the audit (stopped: upstream_errors, the reason in error;
      exit code 1). Progress and Ctrl-C as extract's
  trainprint scan --dataset ARCHIVE[,…] INPUT... --out HITS.jsonl [options]
      scan model outputs or any documents against datasets (engine.scan): one JSON line per
      passage of at least --min-words words that a dataset holds, { id, dataset_id, document_id,
      query_start, query_end, source_start, source_end, words, kind } (UTF-16 offsets; kind
      verbatim|edited|paraphrase), in input order (docs/scan.md)
      INPUT: .jsonl/.ndjson (one JSON object per line), .txt (one item per file), .json (an array),
             .parquet; .jsonl/.txt/.json may end in .gz or .zst
      --dataset FILE|URL      a dataset file (repeatable, or comma-separated), or postgres://…
                              [?schema=S][&dataset=ID]: the exact datasets kept there
      --out FILE              the hits (required; - for standard output, without --resume)
      --min-words N           shortest passage reported, in whitespace-separated words (default 50)
      --text-field F          JSON/Parquet field holding the text (default text)
      --id-field F            field holding the item id (default id; an item without it: PATH:LINE)
      --threads N             threads that scan, each loading the datasets once (default 1); the
                              output is the same for any N
      --resume                continue after a crash, kill -9 or Ctrl-C from FILE.checkpoint:
                              no item repeated or lost
      --paraphrase            report reworded passages too (kind paraphrase; several times slower)
      --checkpoint-every S    seconds between checkpoints (default 2)
      --quiet, -q             no progress on stderr (a bar on a terminal, else a line every 5 s)
      exit code 0 done, 1 failure, 2 usage, 130 interrupted (Ctrl-C/SIGTERM; checkpoint written)
  trainprint scan --queue URL [--dataset ARCHIVE[,…]] INPUT... [--enqueue-only] [options]
      scan over workers that share one PostgreSQL (docs/scan.md "Workers over PostgreSQL"): enqueue
      INPUT (as 'scan' reads it) in chunks as a scan job of the operator in the store at URL, print
      its id, then work on it as one worker until it has finished (exit code 0 done, 1 failed or an
      item failed, 130 interrupted: other workers go on)
      --queue URL             postgres://…[?schema=S] (default schema trainprint, the store's: the
                              jobs show in 'serve --store URL' and 'trainprint jobs')
      --enqueue-only          enqueue, print the job id and exit; 'trainprint worker' does the rest
      --min-words N, --paraphrase, --text-field F, --id-field F   as 'scan'
      --chunk-items N         items per chunk (default 500); --chunk-mb N: text per chunk (default 4)
      --lease-seconds S       a chunk's lease, renewed while it is scanned (default 60): a worker
                              killed with kill -9 loses nothing, its chunk is taken again after it
      --concurrency N         chunks this process scans at once (default 1)
      --account A             the job's account (default the operator's, ''): 'serve --store URL'
                              lists it in GET /api/v1/jobs to the keys of account A
  trainprint scan --queue URL --status [--json] | --export HITS.jsonl | --cancel | --delete [--job ID]
      the old names of 'trainprint jobs status|export|cancel|delete [ID] --queue URL'
  trainprint worker --queue URL [--dataset ARCHIVE[,…]] [--concurrency N] [--job ID]
      a worker of the scan queue, on any machine: takes chunks of the open scan jobs, scans them and
      writes the hits, until SIGINT/SIGTERM (the first finishes its chunk, a second gives it back;
      exit code 0). A job whose datasets differ from the worker's by SHA-256 is left to the other
      workers, nothing written (with --job ID: exit code 1). --job ID: that job only, exit when it
      has finished. A database that is away (a restart, a failover) is waited for: up to 5 min
      while the worker starts, then for as long as it runs
      --lease-seconds S, --account A   as 'scan --queue' (the jobs of account A only)
      --retention-days D      finished jobs and their results are deleted D days after (default 7)
  trainprint jobs list|status|export|cancel|delete [JOB] (--store LOCATION | --queue URL) [options]
      a store's jobs, whoever submitted them (the scan queue, the HTTP API): JOB defaults to the
      account's newest job
      --store LOCATION        a store directory or postgres://… URL, as 'serve --store'
      --queue URL             the scan queue's postgres://… URL (the same store)
      --account A             the jobs of account A (default: the operator's, '')
      list [--json]           the account's jobs, newest first (100); --json: the body of the HTTP
                              API's GET /api/v1/jobs ({"success","jobs":[{"job_id",…}],"next"})
      status [--json]         where the job stands, and a line for each of its first 10 results as
                              its type says it ('item 0: 2 hits'); --json: the body of the HTTP API's
                              GET /api/v1/jobs/JOB ({"success","job_id","type","state","total",…})
      export [--out FILE]     a finished job's results as JSON lines in item order (default standard
                              output): the rows of a type that has them (a scan job's hits as 'scan
                              --out' writes them), any other type's { index, success, result|error }
                              per item
      cancel                  chunks not yet claimed never run; the results so far stay
      delete                  the job and everything it stored
  trainprint --help

exit codes: 0 ok, 1 runtime error, 2 usage error`;
