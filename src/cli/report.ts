/**
 * `trainprint report ANALYSIS.json [--text FILE] [--extraction RESULT.json] [--out FILE] [--bundle FILE]` and
 * `trainprint report --store DIR --analysis ID [--account NAME] [--out FILE] [--bundle FILE]`: the work report (one
 * self-contained HTML page) of an analysis as `trainprint analyze` prints it, or of an evidence bundle
 * (`GET /api/v1/attribution/analyses/{id}/bundle`), with what models wrote out of the work (`trainprint extract`
 * results over the same text, or the bundle's own) as strips; or of an analysis kept in a server's store, with the
 * extractions and catalogue audits its account's jobs kept — the record the HTTP API's report and bundle are made of.
 * `--bundle` also writes the signed evidence bundle, by the store's report key (the server's: it verifies pinned to
 * `GET /api/v1/report-key`) or, without `--store`, by a key made for this run.
 */
import { writeFile } from 'node:fs/promises';
import {
  analysisResultProblem,
  canonicalJson,
  createEngine,
  EVIDENCE_BUNDLE_FORMAT,
  evidenceBundleProblem,
  evidenceRecord,
  recordWithExtractions,
  renderWorkReport,
  sha256Hex,
  signedAnalysis,
  TrainprintError,
  type AnalysisRecordInput,
  type AnalysisResult,
  type EvidenceBundle,
  type WorkExtractionResult,
} from '../library.js';
import { analysedTextOf } from './files.js';
import { readInputFile } from './read-file.js';
import { checkOutputPath, openExistingStore, parse, UsageError } from './shared.js';

/**
 * `trainprint report`: reads the analysis (or bundle), finds the analysed text — the result's own
 * (`extraction.text`), else `--text FILE` checked against the analysis's hashes — and writes the page to `--out`
 * (standard output without it). Without the text, the passages show their source side only, and the page says so.
 * With `--store DIR --analysis ID`, the analysis and what the account measured of its text come from the store.
 * @example process.exitCode = await reportCommand(['analysis.json', '--text', 'book.epub', '--out', 'report.html'])
 */
export async function reportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    text: { type: 'string' },
    out: { type: 'string' },
    bundle: { type: 'string' },
    store: { type: 'string' },
    analysis: { type: 'string' },
    account: { type: 'string' },
    extraction: { type: 'string', multiple: true },
  });
  for (const option of ['out', 'bundle']) checkOutputPath(values[option], option);
  const analysisId = values.analysis as string | undefined;
  if (analysisId !== undefined) {
    if (positionals.length !== 0 || values.text !== undefined || values.extraction !== undefined)
      throw new UsageError(
        '--analysis ID reads the analysis, its text and extractions from --store: no FILE, --text or --extraction',
      );
    if (values.store === undefined) throw new UsageError("--analysis ID needs --store DIR|URL (the server's store)");
    return storedReport(values, analysisId);
  }
  if (values.account !== undefined) throw new UsageError('--account goes with --store DIR --analysis ID');
  if (positionals.length !== 1)
    throw new UsageError('report needs exactly one ANALYSIS.json (or --store and --analysis)');
  const { result, bundle } = readAnalysis(positionals[0], await readInputFile(positionals[0], 'utf8'));
  if (bundle && values.bundle !== undefined)
    throw new UsageError(`${positionals[0]} is a signed bundle already: --bundle makes one from an analysis result`);
  const textFile = values.text as string | undefined;
  const text =
    result.extraction?.text ?? (textFile === undefined ? null : await analysedText(textFile, result, bundle));
  const extractions = [...(bundle?.model_extractions ?? [])];
  for (const file of (values.extraction as string[] | undefined) ?? [])
    extractions.push(await readExtraction(file, text, result));
  if (values.bundle !== undefined) {
    // the page and the bundle from one record: what the page draws is what the signature covers
    const record = await recordWithExtractions({ result, text }, extractions);
    const store = values.store === undefined ? undefined : await openExistingStore(values.store as string);
    try {
      const engine = await createEngine(store ? { store } : {});
      return await writeOutputs(values, await signedAnalysis(record, engine));
    } finally {
      await store?.close();
    }
  }
  // a bundle's transcripts are the page's (the page reads them from the bundle)
  const html = await renderWorkReport({
    result,
    text,
    ...(bundle ? { bundle } : {}),
    ...(extractions.length ? { model_extractions: extractions } : {}),
  });
  await writePage(values.out as string | undefined, html);
  if (text === null)
    console.error('the analysed text was not at hand: the passages show their source side only (--text FILE)');
  return 0;
}

/** `--store DIR --analysis ID [--account NAME]`: the record the server's report and bundle routes read. */
async function storedReport(values: Record<string, unknown>, analysisId: string): Promise<number> {
  const store = await openExistingStore(values.store as string);
  try {
    const engine = await createEngine({ store });
    const record = await evidenceRecord(engine, analysisId, values.account as string | undefined);
    if (values.bundle === undefined) {
      await writePage(values.out as string | undefined, await renderWorkReport(record));
      return 0;
    }
    return await writeOutputs(values, await signedAnalysis(record, engine));
  } finally {
    await store.close();
  }
}

/** The page (`--out`, else standard output) and the bundle (`--bundle`, its canonical JSON: the bytes that verify). */
async function writeOutputs(
  values: Record<string, unknown>,
  { record, bundle }: { record: AnalysisRecordInput; bundle: EvidenceBundle },
): Promise<number> {
  const path = values.bundle as string;
  const json = canonicalJson(bundle);
  await writeFile(path, json);
  console.error(
    `wrote ${path} (signed by key ${bundle.signature.key_id}${values.store === undefined ? ', made for this run: pin it with --key from this bundle only if you trust this machine' : ''}` +
      `; ${bundle.model_extractions?.length ?? 0} extractions, ${bundle.catalogue_audits?.length ?? 0} catalogue audits)`,
  );
  if (values.out !== undefined) await writePage(values.out as string, await renderWorkReport({ ...record, bundle }));
  return 0;
}

async function writePage(out: string | undefined, html: string): Promise<void> {
  if (out === undefined) process.stdout.write(html);
  else {
    await writeFile(out, html);
    console.error(`wrote ${out} (${html.length.toLocaleString('en-US')} characters)`);
  }
}

/**
 * A `trainprint extract` result, refused unless it measured the analysed text (its `text_sha256`, against the text
 * at hand or the work hash of a plain-text analysis) and carries its blocks and record.
 */
async function readExtraction(file: string, text: string | null, result: AnalysisResult) {
  let x: WorkExtractionResult;
  try {
    x = JSON.parse(await readInputFile(file, 'utf8'));
  } catch (e) {
    throw new TrainprintError('INVALID_INPUT', `${file}: not JSON (${e instanceof Error ? e.message : e})`);
  }
  if (!x || typeof x !== 'object' || !Array.isArray(x.blocks) || !x.record || typeof x.text_sha256 !== 'string')
    throw new TrainprintError(
      'INVALID_INPUT',
      `${file}: not a trainprint extract result (blocks, record, text_sha256)`,
    );
  const expected =
    text !== null
      ? await sha256Hex(text)
      : result.content_type === 'text'
        ? result.work_hash.replace(/^sha256:/, '')
        : null;
  if (expected === null)
    throw new TrainprintError(
      'INVALID_INPUT',
      `${file}: the analysed text is needed to check it measured this work (--text FILE)`,
    );
  if (x.text_sha256 !== expected)
    throw new TrainprintError(
      'INVALID_INPUT',
      `${file}: it measured another text (SHA-256 ${x.text_sha256}, this work's ${expected})`,
    );
  return x;
}

/** The result, and the bundle when the file is one. */
function readAnalysis(file: string, json: string): { result: AnalysisResult; bundle: EvidenceBundle | null } {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    throw new TrainprintError('INVALID_INPUT', `${file}: not JSON (${e instanceof Error ? e.message : e})`);
  }
  const v = value as Partial<EvidenceBundle> & Partial<AnalysisResult>;
  // a malformed file is refused naming its member, before the page is drawn from it
  const malformed = (problem: string | null) => {
    if (problem !== null) throw new TrainprintError('INVALID_INPUT', `${file}: ${problem}`);
  };
  if (v?.format === EVIDENCE_BUNDLE_FORMAT) {
    malformed(evidenceBundleProblem(v));
    return { result: v.result as AnalysisResult, bundle: v as EvidenceBundle };
  }
  if (v?.success === true && typeof v.analysis_id === 'string') {
    malformed(analysisResultProblem(v));
    return { result: v as AnalysisResult, bundle: null };
  }
  throw new TrainprintError('INVALID_INPUT', `${file}: neither an analysis result nor an evidence bundle`);
}

/**
 * The text the analysis read, from `file`: the content itself (its SHA-256 is the work hash), a book's file (the same,
 * then its text is extracted again) or a file's extracted text (its SHA-256 is the bundle's `text_sha256`, or — for a
 * result alone — its length is the extraction's). Anything else would put the spans in the wrong places: refused.
 */
async function analysedText(file: string, result: AnalysisResult, bundle: EvidenceBundle | null): Promise<string> {
  const { text, isWork } = await analysedTextOf(file, result);
  if (isWork) return text;
  const matches = bundle
    ? (await sha256Hex(text)) === bundle.text_sha256
    : result.extraction !== undefined && text.length === result.extraction.characters;
  if (!matches)
    throw new TrainprintError(
      'INVALID_INPUT',
      `${file} is not the analysed text (neither the work of ${result.work_hash} nor its extracted text)`,
    );
  return text;
}
