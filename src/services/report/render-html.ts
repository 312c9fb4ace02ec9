/**
 * The work report: one self-contained HTML page for an analysis of a whole work — inline CSS and SVG, no scripts,
 * no external resources (a CSP meta tag forbids them), every text escaped. It shows where in the work each corpus and
 * each model's training data holds its text (coverage strips over the work's sections), the passages side by side,
 * the chain from corpus to model with its citations, what was not checked, the method, and the digests that tie the
 * page to its inputs. Printing it gives a readable PDF.
 */
import type { AnalysisResult } from '../analyze/types.js';
import type { WorkExtractionResult } from '../memorization/extract-work.js';
import { NV_BLOCK_WORDS } from '../memorization/nv-blocks.js';
import { esc, num, pct, REPORT_CSS } from './html.js';
import {
  chainSection,
  inputsSection,
  methodSection,
  notCheckedSection,
  passagesSection,
  quotationsSection,
} from './render-parts.js';
import { extractionStrip, stripSvg, type StripMark, type StripSection } from './strip-svg.js';
import type { AnalysisRecordInput, EvidenceBundle } from './types.js';

/** What {@link renderWorkReport} renders: a stored analysis (its result, text and transcripts), or a bundle's. */
export interface WorkReportInput extends AnalysisRecordInput {
  /** The signed bundle the page shows, when it shows one: its signature and engine are printed. */
  readonly bundle?: EvidenceBundle;
  /** Most passages shown per dataset (the strips mark every one). @default 40 */
  readonly maxPassages?: number;
}

/**
 * The HTML page of an analysis (the library's `renderWorkReport` loads this on its first call: ./on-demand.ts).
 * @example
 * const html = renderWorkReport(reportRecord(await engine.getAnalysisRecord(id)))
 * await writeFile('report.html', html)
 */
export function renderWorkReport(input: WorkReportInput): string {
  const { result } = input;
  const layout = workLayout(result, input.text);
  const title = result.title ?? `Analysis ${result.analysis_id}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Work report — ${esc(title)}</title>
<style>${REPORT_CSS}</style></head><body><main>
${header(result, title)}
${coverageSection(result, layout)}
${extractionSection(input.model_extractions ?? [], layout)}
${quotationsSection(result, input.text)}
${passagesSection(result, input.text, input.maxPassages ?? 40)}
${chainSection(result)}
${notCheckedSection(result, (input.model_extractions?.length ?? 0) > 0)}
${methodSection(result, input.bundle)}
${inputsSection(input)}
<footer>trainprint work report · ${esc(result.analysis_id)}</footer>
</main></body></html>`;
}

/** The work's length and sections as the strips draw them. */
interface WorkLayout {
  readonly length: number;
  readonly sections: readonly StripSection[];
  /** True when the sections are the file's; false when the whole text is one. */
  readonly sectioned: boolean;
}

function workLayout(result: AnalysisResult, text: string | null): WorkLayout {
  const sections = result.sections ?? result.extraction?.sections;
  const lastEnd = sections?.length ? sections[sections.length - 1].end : 0;
  const matchEnd = result.matches.reduce((n, m) => Math.max(n, m.query_end), 0);
  const length = text?.length ?? result.extraction?.characters ?? Math.max(lastEnd, matchEnd, 1);
  if (sections?.length) return { length, sections, sectioned: true };
  return { length, sections: [{ title: result.title ?? 'The whole text', start: 0, end: length }], sectioned: false };
}

function header(result: AnalysisResult, title: string): string {
  const x = result.extraction;
  const file = x ? ` · ${num(x.bytes)} bytes · ${num(x.words)} words · ${num(x.sections.length)} sections` : '';
  const [lo, hi] = result.confidence_ci_95;
  return `<header><h1>Work report</h1>
<p class="sub">${esc(title)}${result.author ? ` · ${esc(result.author)}` : ''}</p>
<dl class="meta">
<dt>Work hash</dt><dd><code>${esc(result.work_hash)}</code></dd>
<dt>Content</dt><dd>${esc(result.content_type)}${file} · ${num(result.tokens)} word tokens</dd>
<dt>Analysed</dt><dd>${esc(result.created_at)} · <code>${esc(result.analysis_id)}</code></dd>
<dt>Confidence</dt><dd><b>${esc(result.confidence)}</b> [${esc(lo)}, ${esc(hi)}] that a model trained on this work</dd>
<dt>Potential matches</dt><dd>${num(result.potential_matches)}</dd>
</dl>
<p>${esc(result.corpus_evidence.summary)}</p></header>`;
}

/** A strip per searched dataset (with its sampling estimate), a strip per linked model, and the sections' table. */
function coverageSection(result: AnalysisResult, layout: WorkLayout): string {
  const ids = searchedIds(result);
  const markOf = (m: AnalysisResult['matches'][number]): StripMark => ({
    start: m.query_start,
    end: m.query_end,
    label:
      `${m.dataset_id}${m.document_id === null ? '' : ` · ${m.document_id}`} · ` +
      `characters ${num(m.query_start)}–${num(m.query_end)} · ${num(m.tokens)} words`,
  });
  const figures = ids.map((id) => {
    const own = result.matches.filter((m) => m.dataset_id === id);
    const strip = { label: `Passages of the work found in ${id}`, kind: 'dataset' as const, marks: own.map(markOf) };
    return figure(`Corpus <code>${esc(id)}</code> — ${datasetCaption(result, id, own.length)}`, strip, layout);
  });
  const modelFigures = modelGroups(result).map((g) => {
    const marks = result.matches.filter((x) => g.datasets.includes(x.dataset_id)).map(markOf);
    const via = g.datasets.map((d) => `<code>${esc(d)}</code>`).join(', ');
    const names = g.models.map(([model, confidence]) => `<code>${esc(model)}</code> (${esc(confidence)})`).join(', ');
    const caption = `${g.models.length === 1 ? 'Model' : 'Models'} ${names} — through ${via}`;
    const label = `Passages of the work in the training data of ${g.models.map(([m]) => m).join(', ')}`;
    return figure(caption, { label, kind: 'model', marks }, layout);
  });
  const sections = layout.sectioned ? sectionTable(result, layout, ids) : '';
  const divided = layout.sectioned ? `, divided into its ${num(layout.sections.length)} sections (§)` : '';
  const byModel = modelFigures.length
    ? '<h3>By model</h3>\n<p class="note">Models linked to the same corpora share a strip; each model\'s confidence ' +
      `is in brackets.</p>\n${modelFigures.join('\n')}`
    : '<p class="note">No model is linked to the evidence: no strip by model.</p>';
  return `<section><h2>Coverage along the work</h2>
<p class="note">Each bar is the whole work, left to right${divided}; a mark is a passage found.</p>
${figures.join('\n') || '<p>No dataset was searched.</p>'}
${byModel}
${sections}</section>`;
}

/**
 * What models wrote out of the work (`memorization.extractWork`): a strip per extraction with a mark per
 * near-verbatim block (fainter under 100 words: those do not count in nv-recall), its share, cost and record.
 */
function extractionSection(extractions: readonly WorkExtractionResult[], layout: WorkLayout): string {
  if (extractions.length === 0) return '';
  const figures = extractions.map((x) => {
    const { label, kind, marks } = extractionStrip(x, layout.length, layout.sections);
    const long = x.blocks.filter((b) => b.words >= NV_BLOCK_WORDS).length;
    const caption =
      `Model <code>${esc(x.model)}</code>${x.reported_models.length ? ` (reported as ${x.reported_models.map((m) => `<code>${esc(m)}</code>`).join(', ')})` : ''} ` +
      `wrote out <b>${pct(x.nv_recall)}</b> of the work in ${num(long)} near-verbatim block${long === 1 ? '' : 's'} of ≥ ${NV_BLOCK_WORDS} words ` +
      `(≥ 50 words: ${pct(x.nv_recall_50)}) · ${num(x.calls)} of ${num(x.budget_calls)} calls, ${num(x.refusals)} refused` +
      `${x.stopped === 'done' ? '' : `, stopped: ${esc(x.stopped)}`} · transcript <code>${esc(x.record.transcript_sha256)}</code>`;
    return figure(caption, { label, kind, marks }, layout);
  });
  return `<section><h2>What models wrote out</h2>
<p class="note">Each bar is the whole work; a mark is a passage a model wrote out near-verbatim when asked to continue
the work's own text (fainter: under ${NV_BLOCK_WORDS} words). Writing a passage out shows the model was exposed to it;
a model that writes nothing out may still have been trained on the work.</p>
${figures.join('\n')}</section>`;
}

function figure(
  caption: string,
  strip: Omit<Parameters<typeof stripSvg>[0], 'length' | 'sections'>,
  layout: WorkLayout,
) {
  const svg = stripSvg({ ...strip, length: layout.length, sections: layout.sections });
  return `<figure class="strip"><figcaption>${caption}</figcaption>${svg}</figure>`;
}

/**
 * The models the evidence links to, each with its highest confidence, grouped by the datasets they are linked through:
 * models trained on the same corpora hold the same passages of the work, so they share one strip.
 */
function modelGroups(result: AnalysisResult): Array<{ datasets: string[]; models: Array<[string, number]> }> {
  const models = new Map<string, { datasets: Set<string>; confidence: number }>();
  for (const s of result.attribution_sources) {
    const m = models.get(s.model) ?? { datasets: new Set<string>(), confidence: 0 };
    m.datasets.add(s.dataset_id);
    m.confidence = Math.max(m.confidence, s.confidence);
    models.set(s.model, m);
  }
  const groups = new Map<string, { datasets: string[]; models: Array<[string, number]> }>();
  for (const [model, m] of models) {
    const datasets = [...m.datasets].sort();
    const key = JSON.stringify(datasets);
    const g = groups.get(key) ?? { datasets, models: [] };
    g.models.push([model, m.confidence]);
    groups.set(key, g);
  }
  return [...groups.values()];
}

/** The searched datasets: the evidence's, then the remote corpora (each once). */
function searchedIds(result: AnalysisResult): string[] {
  return [...new Set([...result.evidence.datasets, ...result.remote_corpora].map((d) => d.dataset_id))];
}

function datasetCaption(result: AnalysisResult, id: string, matches: number): string {
  const cov = result.coverage[id];
  const parts = [`${num(matches)} passage${matches === 1 ? '' : 's'}`];
  if (cov) parts.push(`${pct(cov.share)} of the word tokens`);
  const sampling = result.remote_corpora.find((r) => r.dataset_id === id)?.sampling;
  if (sampling) {
    const [lo, hi] = sampling.share.ci_95;
    const drawn = `${num(sampling.passages)} passages of ${num(sampling.passage_words)} words`;
    parts.push(
      `sampled: ${num(sampling.found)} of ${drawn} found, ` +
        `share of the work held ≈ <b>${pct(sampling.share.estimate)}</b> (95 % interval ${pct(lo)}–${pct(hi)})`,
    );
    // what the interval rests on: the fetched documents that verified their passage (the unchecked widen it)
    const docs = sampling.documents;
    if (docs && docs.fetched > 0) {
      const unchecked = docs.unchecked ? `, ${num(docs.unchecked)} unchecked` : '';
      parts.push(
        `${num(docs.verified)} of ${num(docs.fetched)} fetched documents verified (${pct(docs.verified / docs.fetched)}${unchecked})`,
      );
    }
  }
  return parts.join(' · ');
}

function sectionTable(result: AnalysisResult, layout: WorkLayout, ids: readonly string[]): string {
  const covered = result.sections;
  const head = ids.map((id) => `<th>${esc(id)}</th>`).join('');
  const rows = layout.sections.map((s, i) => {
    const c = covered?.[i];
    const cells = ids.map((id) => `<td class="n">${c && id in c.coverage ? pct(c.coverage[id]) : '—'}</td>`).join('');
    return `<tr><td>§${i + 1}</td><td>${esc(s.title)}</td><td class="n">${c ? num(c.words) : '—'}</td>${cells}</tr>`;
  });
  return `<h3>Per section</h3>
<p class="note">Share of each section's characters inside the dataset's passages; for a corpus searched by sampling,
the section's passages found of those drawn.</p>
<table><thead><tr><th>§</th><th>Section</th><th>Words</th>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
