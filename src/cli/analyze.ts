/**
 * `trainprint analyze FILE`: the attribution analysis of a file (engine.analyze) as JSON, against dataset files,
 * datasets kept in PostgreSQL and/or the starter dataset, the default reference packs and, when asked, remote
 * corpora. On a terminal, a progress line on stderr says what it is doing (./progress.ts); stdout carries the JSON
 * only.
 */
import { writeFile } from 'node:fs/promises';
import { canonicalJson, createEngine, renderWorkReport, signedEvidence } from '../library.js';
import { loadDefaultPacks } from '../node/index.js';
import { progressLine } from './progress.js';
import { readWorkFile } from './files.js';
import {
  checkOutputPath,
  DATASETS,
  loadDatasets,
  options,
  packsOption,
  parse,
  QUIET,
  REMOTE_CORPUS_OPTIONS,
  remoteCorporaFrom,
  UsageError,
} from './shared.js';

/**
 * `trainprint analyze FILE [options]`: the content type comes from `--type` or the file's extension (.txt, .md,
 * .markdown, .html, .htm, .epub, .pdf, .docx; another is refused, as an HTTP upload is), the metadata
 * from `--jurisdiction`, `--work-type` and `--opt-out`; `--quotations count` counts the text the work quotes.
 * @example process.exitCode = await analyzeCommand(['README.md', '--packs', 'none', '--jurisdiction', 'US'])
 */
export async function analyzeCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...options(
      ['type', 'packs', 'jurisdiction', 'work-type', 'opt-out', 'report', 'bundle', 'quotations'],
      ['starter'],
    ),
    ...DATASETS,
    ...QUIET,
    ...REMOTE_CORPUS_OPTIONS,
  });
  if (positionals.length !== 1) throw new UsageError('analyze needs exactly one FILE');
  const packs = packsOption(values);
  const remoteCorpora = remoteCorporaFrom(values);
  const file = positionals[0];
  const quotations = values.quotations as 'exclude' | 'count' | undefined;
  if (quotations !== undefined && quotations !== 'exclude' && quotations !== 'count')
    throw new UsageError(`--quotations must be 'exclude' or 'count'`);
  for (const option of ['report', 'bundle']) checkOutputPath(values[option], option);
  // the rule of an HTTP upload: the type by --type or the extension (no guess), the size before reading, strict UTF-8;
  // a book or a report file is read as bytes, its text extracted by analyze
  const { type, content } = await readWorkFile(file, values.type as string | undefined);
  // on a terminal only, and never with --quiet: stderr in a pipe or a log gets no escape codes
  const line = progressLine(process.stderr, { quiet: values.quiet === true });
  try {
    line.say('starting the engine');
    const engine = await createEngine({ remoteCorpora });
    const closeDatasets = await loadDatasets(engine, values);
    // the server's datasets: the same text gets the same answer here as from 'npm start' and the web app
    if (packs === 'default') {
      line.say('loading the reference packs');
      await loadDefaultPacks(engine);
    }
    const optOut = values['opt-out'] as string | undefined;
    const metadata = {
      ...(values.jurisdiction === undefined ? {} : { jurisdiction: values.jurisdiction as string }),
      ...(values['work-type'] === undefined ? {} : { work_type: values['work-type'] as never }),
      ...(optOut === undefined ? {} : { declarations: { tdm_opt_out: true, since: optOut } }),
    };
    try {
      const request = {
        content,
        content_type: type,
        ...(quotations === undefined ? {} : { quotations }),
        ...(Object.keys(metadata).length ? { metadata } : {}),
      };
      line.say(`analyzing ${file}`);
      // on a terminal only: elsewhere nothing would draw the reports
      const r = await engine.analyze(request, line.enabled ? { onProgress: line.update } : {});
      line.end();
      console.log(JSON.stringify(r, null, 2));
      const report = values.report as string | undefined;
      const bundlePath = values.bundle as string | undefined;
      // the page and the bundle of the analysis just made, from the engine's record of it (the text it read, a book's
      // extracted once, here), as the HTTP API's report and bundle routes make them; the bundle is signed by a key
      // made for this run (a server's store keeps its own: `trainprint report --store DIR --analysis ID --bundle`)
      if (report !== undefined || bundlePath !== undefined) {
        const { record, bundle } = await signedEvidence(engine, r.analysis_id);
        if (bundlePath !== undefined) {
          await writeFile(bundlePath, canonicalJson(bundle));
          console.error(`wrote ${bundlePath} (signed by key ${bundle.signature.key_id}, made for this run)`);
        }
        if (report !== undefined) {
          const html = await renderWorkReport({ ...record, ...(bundlePath !== undefined ? { bundle } : {}) });
          await writeFile(report, html);
          console.error(`wrote ${report} (${html.length.toLocaleString('en-US')} characters)`);
        }
      }
    } finally {
      await closeDatasets();
    }
  } finally {
    line.end();
  }
  return 0;
}
