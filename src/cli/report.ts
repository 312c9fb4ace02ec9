/**
 * `trainprint report ANALYSIS.json [--text FILE] [--extraction RESULT.json] [--out FILE]`: the work report (one
 * self-contained HTML page) of an analysis as `trainprint analyze` prints it, or of an evidence bundle
 * (`GET /api/v1/attribution/analyses/{id}/bundle`), with what models wrote out of the work (`trainprint extract`
 * results over the same text, or the bundle's own) as strips.
 */
import { writeFile } from 'node:fs/promises';
import {
  analysisResultProblem,
  EVIDENCE_BUNDLE_FORMAT,
  evidenceBundleProblem,
  renderWorkReport,
  sha256Hex,
  TrainprintError,
  type AnalysisResult,
  type EvidenceBundle,
  type WorkExtractionResult,
} from '../library.js';
import { analysedTextOf } from './files.js';
import { parse, readInputFile, UsageError } from './shared.js';

/**
 * `trainprint report`: reads the analysis (or bundle), finds the analysed text — the result's own
 * (`extraction.text`), else `--text FILE` checked against the analysis's hashes — and writes the page to `--out`
 * (standard output without it). Without the text, the passages show their source side only, and the page says so.
 * @example process.exitCode = await reportCommand(['analysis.json', '--text', 'book.epub', '--out', 'report.html'])
 */
export async function reportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    text: { type: 'string' },
    out: { type: 'string' },
    extraction: { type: 'string', multiple: true },
  });
  if (positionals.length !== 1) throw new UsageError('report needs exactly one ANALYSIS.json');
  const { result, bundle } = readAnalysis(positionals[0], await readInputFile(positionals[0], 'utf8'));
  const textFile = values.text as string | undefined;
  const text =
    result.extraction?.text ?? (textFile === undefined ? null : await analysedText(textFile, result, bundle));
  const extractions = [...(bundle?.model_extractions ?? [])];
  for (const file of (values.extraction as string[] | undefined) ?? [])
    extractions.push(await readExtraction(file, text, result));
  // a bundle's transcripts are the page's (the page reads them from the bundle)
  const html = await renderWorkReport({
    result,
    text,
    ...(bundle ? { bundle } : {}),
    ...(extractions.length ? { model_extractions: extractions } : {}),
  });
  const out = values.out as string | undefined;
  if (out === undefined) process.stdout.write(html);
  else {
    await writeFile(out, html);
    console.error(`wrote ${out} (${html.length.toLocaleString('en-US')} characters)`);
  }
  if (text === null)
    console.error('the analysed text was not at hand: the passages show their source side only (--text FILE)');
  return 0;
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
