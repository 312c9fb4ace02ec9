/**
 * report: one self-contained HTML page for an assessment — inline CSS and SVG, no scripts, no
 * external resources (a CSP meta tag forbids them), every text escaped. Evidence spans of the
 * work are highlighted with `<mark>`; statistics carry their intervals; method notes and
 * limitations say what the numbers can and cannot mean.
 */
import { FACTORS, type FactorCode } from '../kb/factors.js';
import type { Assessment, ExtractionAttempt, ProbeResult, ProbeStatistic } from './types.js';

/** Options of {@link renderReport}. */
export interface ReportOptions {
  /** The work's text: needed to show the evidence spans in context. */
  readonly workText?: string | null;
  /** Most extraction attempts shown with their spans. @default 8 */
  readonly maxSpans?: number;
}

const LABELS: Record<string, string> = {
  loss: 'Loss (mean NLL)',
  zlib_ratio: 'zlib ratio',
  min_k: 'Min-K% (k = 20 %)',
  min_k_plus_plus: 'Min-K%++',
  calibrated_loss: 'Calibrated loss (per character, minus the reference model)',
};

/**
 * The HTML report of an assessment.
 * @example
 * const html = renderReport(assessment, { workText })
 * await writeFile('report.html', html)
 */
export function renderReport(a: Assessment, options: ReportOptions = {}): string {
  const text = options.workText ?? null;
  const maxSpans = options.maxSpans ?? 8;
  const title = a.work.title ?? a.work.work_id;
  const parts: string[] = [];
  parts.push(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Memorization report — ${esc(title)}</title>
<style>${CSS}</style></head><body><main>
<header><h1>Memorization risk report</h1>
<p class="sub">${esc(title)} × <code>${esc(a.model.id)}</code></p>
<dl class="meta">
<dt>Work</dt><dd><code>${esc(a.work.work_id)}</code> · ${esc(a.work.work_type)} · ${num(a.work.tokens)} words · owner ${esc(a.work.owner)}</dd>
<dt>Work hash</dt><dd><code>${esc(a.work.work_hash)}</code></dd>
<dt>Model</dt><dd><code>${esc(a.model.id)}</code> · access <b>${esc(a.model.access)}</b>${a.model.kb_model ? ` · knowledge-base model <code>${esc(a.model.kb_model)}</code>` : ''}</dd>
<dt>Jurisdiction</dt><dd>${a.jurisdiction ? esc(a.jurisdiction) : 'not given'}</dd>
<dt>Assessed</dt><dd>${esc(a.created_at)} · <code>${esc(a.assessment_id)}</code></dd>
</dl></header>`);

  // overview
  parts.push(`<section class="overview"><div class="badge level-${esc(a.level)}">Risk: ${esc(a.level)}</div>
<div class="badge tier">Evidence: ${esc(a.evidence_tier)}</div>
<p>Risk weight <b>${fix(a.risk.score, 2)}</b> (base ${fix(a.risk.base_weight, 2)}${a.risk.modifiers.map((m) => ` ${m.delta >= 0 ? '+' : '−'} ${fix(Math.abs(m.delta), 2)} <code>${esc(m.code)}</code>`).join('')}${a.risk.attribution_scale < 1 ? `, × ${fix(a.risk.attribution_scale, 2)} for uncertain attribution` : ''}); attribution lower bound ${fix(a.risk.attribution_low, 2)}.</p>
<ul class="summary">${a.summary.map((s) => `<li>${esc(s)}</li>`).join('')}</ul></section>`);

  parts.push(factorSection('Findings', a.factors, 'No evidence, jurisdiction or modifier code fired.'));
  parts.push(factorSection('Limitations', a.limitations, 'None recorded.'));

  // extraction
  const ex = a.extraction;
  if (ex) {
    const s = ex.summary;
    parts.push(`<section><h2>Extraction</h2>
<p>${num(s.attempts)} prefixes of ${num(ex.prefix_tokens)} words; ${num(s.verified)} verified (≥ 50-word verbatim run); whole true continuation (${num(ex.continuation_tokens)} words) reproduced ${num(s.extractable.count)} times — share ${pct(s.extractable.share)} [${pct(s.extractable.ci_95[0])}, ${pct(s.extractable.ci_95[1])}] (Wilson 95 %); longest run ${num(s.longest_match_tokens)} words; mean exact continuation ${fix(s.mean_exact_continuation_tokens, 1)} words.</p>
<table><thead><tr><th>#</th><th>Prefix (characters)</th><th>Exact continuation</th><th>Longest verbatim run</th><th>Verified</th></tr></thead><tbody>
${ex.attempts.map((t) => `<tr><td>${t.index + 1}</td><td>${num(t.prefix_start)}–${num(t.prefix_end)}</td><td>${num(t.exact_continuation_tokens)} / ${num(t.continuation_tokens)}</td><td>${t.longest_match ? `${num(t.longest_match.tokens)} words` : '—'}</td><td>${t.verified ? '<b class="yes">yes</b>' : 'no'}</td></tr>`).join('\n')}
</tbody></table>`);
    const shown = ex.attempts
      .filter((t) => t.longest_match)
      .sort((x, y) => y.longest_match!.tokens - x.longest_match!.tokens)
      .slice(0, maxSpans);
    if (shown.length > 0) {
      parts.push(
        `<h3>Evidence spans</h3><p class="note">The prompt is <span class="prefix">underlined</span>; words the model reproduced verbatim are <mark>highlighted</mark> in the work and in its output.</p>`,
      );
      for (const t of shown) parts.push(spanFigure(t, text));
    }
    parts.push(`<p class="method">${esc(ex.method)}.</p></section>`);
  }

  // probe
  if (a.probe) parts.push(probeSection(a.probe));

  // traps
  if (a.traps) {
    const t = a.traps;
    parts.push(`<section><h2>Canary traps</h2><table><thead><tr><th>Canaries</th><th>Controls</th><th>Mean loss (canaries / controls)</th><th>AUC [95 % CI]</th><th>p (one-sided)</th><th>Detected</th></tr></thead>
<tbody><tr><td>${num(t.canaries)}</td><td>${num(t.controls)}</td><td>${fix(t.canary_loss, 3)} / ${fix(t.control_loss, 3)}</td><td>${fix(t.auc, 3)} [${fix(t.auc_ci_95[0], 3)}, ${fix(t.auc_ci_95[1], 3)}]</td><td>${pv(t.p_value)}</td><td>${t.detected ? '<b class="yes">yes</b>' : 'no'}</td></tr></tbody></table>
<p class="method">Canaries and controls are random sequences drawn the same way; only the canaries were published, so the test of "canaries more likely than controls" is a randomized comparison (Meeus et al. 2024, arXiv 2402.09363).</p></section>`);
  }

  // corpus
  if (a.corpus) {
    const c = a.corpus;
    parts.push(`<section><h2>Corpus evidence</h2><p>Score for <code>${esc(c.target_model)}</code>: <b>${fix(c.score, 1)}</b> [${fix(c.ci_95[0], 1)}, ${fix(c.ci_95[1], 1)}] (bootstrap 95 %), tier <b>${esc(c.tier)}</b>; chunks with a match in the model's datasets ${num(c.reused_share.flagged_chunks)} of ${num(c.reused_share.n_chunks)} (${pct(c.reused_share.estimate)} [${pct(c.reused_share.ci_95[0])}, ${pct(c.reused_share.ci_95[1])}]).</p>
<p class="method">${esc(c.evidence.method)}.</p></section>`);
  }

  parts.push(`<section><h2>Method notes</h2><ul>
<li><b>Extraction</b> prompts the model with passages of the work and compares its greedy continuation, word by word, with the work (Carlini et al. 2021, 2023). A verbatim run of ≥ 50 words is direct evidence that the model memorised the text.</li>
<li><b>Probe</b> asks whether the model finds the work, as a set of chunks, more likely than comparable text it cannot have seen (dataset inference, Maini et al. 2024). The verdict uses document-level means, because chunks of one document are not independent; the AUC is an effect size over chunk pairs.</li>
<li><b>Min-K%++</b> is exact only with the model's full next-token distribution; from top-k alternatives it is an approximation (marked).</li>
<li><b>Risk</b> combines the jurisdiction's base weight and modifiers, scaled down when the attribution lower bound is below 0.5. The weights are this project's heuristic (documented in docs/jurisdictions-and-revenue.md of the trainprint package); the laws and court decisions behind each code are named in the Source column of the findings. It is a heuristic for prioritising, not legal advice.</li>
<li>Word counts are the engine's normalised words; a model's own tokens differ (≈ 1.3 BPE tokens per English word).</li>
</ul></section>
<section><h2>Limitations</h2><ul>
<li>No statistic here says whether any single passage was trained on: per-passage membership inference is near chance on real models (Duan et al. 2024).</li>
<li>A non-significant probe or a failed extraction is not evidence that the model did not train on the work: models that saw a text once often do not memorise it.</li>
<li>A significant probe against a reference set that is not a randomized split of one pool can reflect a difference in time, genre or style rather than training (Das et al. 2024).</li>
<li>Corpus evidence covers only the datasets loaded and models that document their training data.</li>
</ul></section>
<footer>trainprint memorization report · ${esc(a.assessment_id)}</footer>
</main></body></html>`);
  return parts.join('\n');
}

function factorSection(heading: string, codes: readonly FactorCode[], empty: string): string {
  if (codes.length === 0) return `<section><h2>${esc(heading)}</h2><p>${esc(empty)}</p></section>`;
  const rows = codes.map((c) => {
    const f = (FACTORS as Record<string, { category: string; meaning: string; source: string } | undefined>)[c];
    return `<tr><td><code>${esc(c)}</code></td><td>${esc(f?.category ?? '')}</td><td>${esc(f?.meaning ?? '')}</td><td class="src">${esc(f?.source ?? '')}</td></tr>`;
  });
  return `<section><h2>${esc(heading)}</h2><table><thead><tr><th>Code</th><th>Category</th><th>Meaning</th><th>Source</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

/** An attempt's prompt and reproduced span in the work's text, and the output with its match. */
function spanFigure(t: ExtractionAttempt, text: string | null): string {
  const m = t.longest_match!;
  const out = `${esc(t.output.slice(Math.max(0, m.output_start - 120), m.output_start))}<mark>${esc(t.output.slice(m.output_start, m.output_end))}</mark>${esc(t.output.slice(m.output_end, m.output_end + 120))}`;
  let work = '';
  if (text !== null) {
    const near = m.work_start >= t.prefix_start && m.work_start - t.prefix_end < 1500;
    if (near) {
      work = `${ellipsis(t.prefix_start > 0)}<span class="prefix">${esc(text.slice(t.prefix_start, t.prefix_end))}</span>${esc(text.slice(t.prefix_end, m.work_start))}<mark>${esc(text.slice(m.work_start, m.work_end))}</mark>${esc(text.slice(m.work_end, m.work_end + 160))}${ellipsis(m.work_end + 160 < text.length)}`;
    } else {
      // the output reproduced another part of the work: show the prompt, then that part
      work = `${ellipsis(t.prefix_start > 0)}<span class="prefix">${esc(text.slice(t.prefix_start, t.prefix_end))}</span> …</div>
<div class="excerpt"><span class="lbl">Elsewhere in the work</span>… ${esc(text.slice(Math.max(0, m.work_start - 160), m.work_start))}<mark>${esc(text.slice(m.work_start, m.work_end))}</mark>${esc(text.slice(m.work_end, m.work_end + 160))}${ellipsis(m.work_end + 160 < text.length)}`;
    }
  }
  return `<figure class="span${t.verified ? ' verified' : ''}"><figcaption>Prefix ${t.index + 1}: ${num(m.tokens)} words reproduced verbatim${t.verified ? ' — <b>verified</b>' : ''} (work characters ${num(m.work_start)}–${num(m.work_end)})</figcaption>
${text !== null ? `<div class="excerpt"><span class="lbl">Work</span>${work}</div>` : ''}
<div class="excerpt out"><span class="lbl">Model output</span>${out}</div></figure>`;
}

function probeSection(p: ProbeResult): string {
  const rows = p.statistics.map(
    (s) =>
      `<tr${s.significant ? ' class="sig"' : ''}><td>${esc(LABELS[s.name] ?? s.name)}${s.approximate ? ' <span class="approx">approx. (top-k)</span>' : ''}</td><td>${s.member_direction === 'lower' ? 'lower' : 'higher'}</td><td>${fix(s.suspect.mean, 4)}</td><td>${fix(s.reference.mean, 4)}</td><td><b>${fix(s.auc, 3)}</b> [${fix(s.auc_ci_95[0], 3)}, ${fix(s.auc_ci_95[1], 3)}]</td><td>${s.document_test ? `t = ${fix(s.document_test.t, 2)}, df ${s.document_test.df}, p = ${pv(s.document_test.p_value)}${s.document_test.p_holm === null ? ' (description)' : `, Holm ${pv(s.document_test.p_holm)}`}` : '—'}</td><td>${s.mann_whitney.p_value === null ? '—' : pv(s.mann_whitney.p_value)}</td></tr>`,
  );
  return `<section><h2>Probe against non-member text</h2>
<div class="badge verdict-${esc(p.verdict)}">${esc(p.verdict.replace(/_/g, ' '))}</div>
<p>${esc(p.statement)}</p>
<p>Work: ${num(p.n_chunks.suspect)} chunks from ${num(p.n_documents.suspect)} document(s); reference: ${num(p.n_chunks.reference)} chunks from ${num(p.n_documents.reference)} documents (${p.reference.id ? `set <code>${esc(p.reference.id)}</code>, ` : ''}basis <b>${esc(p.reference.basis)}</b>)${p.reference_model ? `; loss calibrated by the reference model <code>${esc(p.reference_model.id)}</code>` : ''}; ${num(p.chunk_tokens)} words per chunk; next-token distribution: ${esc(p.distribution)}; α = ${p.alpha}.</p>
${
  rows.length
    ? `<table><thead><tr><th>Statistic</th><th>Members tend</th><th>Work mean</th><th>Reference mean</th><th>AUC [95 % CI]</th><th>Document-level test (verdict)</th><th>Chunk Mann–Whitney p (descriptive)</th></tr></thead><tbody>${rows.join('')}</tbody></table>
<div class="plots">${p.statistics.map((s) => stripPlot(s, p)).join('')}</div>`
    : ''
}
<p class="method">${esc(p.method)}.</p></section>`;
}

/** Work chunks vs reference chunks on one axis (inline SVG). */
function stripPlot(s: ProbeStatistic, p: ProbeResult): string {
  const key = s.name;
  const xs = p.chunks.suspect
    .map((c) => c[key])
    .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const ys = p.chunks.reference
    .map((c) => c[key])
    .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (xs.length + ys.length === 0) return '';
  const all = [...xs, ...ys];
  let lo = Math.min(...all),
    hi = Math.max(...all);
  if (hi === lo) {
    lo -= 1;
    hi += 1;
  }
  const W = 360,
    L = 10,
    x = (v: number) => (L + ((v - lo) / (hi - lo)) * (W - 2 * L)).toFixed(1);
  const dots = (vs: number[], y: number, cls: string) =>
    vs
      .map((v, i) => `<circle class="${cls}" cx="${x(v)}" cy="${(y + ((i * 7) % 13) - 6).toFixed(1)}" r="2.2"/>`)
      .join('');
  return `<figure class="plot"><figcaption>${esc(LABELS[key] ?? key)}</figcaption><svg viewBox="0 0 ${W} 74" width="${W}" height="74" role="img" aria-label="${esc(LABELS[key] ?? key)}: work chunks above, reference chunks below">
<text x="0" y="12" class="lbl">work</text>${dots(xs, 22, 'w')}<text x="0" y="44" class="lbl">reference</text>${dots(ys, 54, 'r')}
<text x="${L}" y="72" class="ax">${esc(fix(lo, 3))}</text><text x="${W - L}" y="72" class="ax" text-anchor="end">${esc(fix(hi, 3))}</text></svg></figure>`;
}

function ellipsis(b: boolean): string {
  return b ? '… ' : '';
}

/** Escape text for HTML content and attribute values. */
export function esc(s: unknown): string {
  return String(s).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

const num = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
const fix = (n: number, d: number) => (Number.isFinite(n) ? n.toFixed(d) : '—');
const pct = (n: number) => (Number.isFinite(n) ? `${(n * 100).toFixed(1)} %` : '—');
const pv = (p: number) => (!Number.isFinite(p) ? '—' : p < 1e-4 ? p.toExponential(1) : p.toPrecision(2));

const CSS = `
:root{--ink:#1d2433;--muted:#5b6478;--line:#d9dde6;--bg:#fbfbfd;--mark:#ffe066;--accent:#2f5bd3}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1080px;margin:0 auto;padding:28px 24px 48px}
h1{margin:0 0 4px;font-size:26px}h2{margin:28px 0 10px;font-size:19px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:16px;margin:18px 0 6px}
.sub{margin:0 0 12px;color:var(--muted)}code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:#eef0f5;padding:1px 4px;border-radius:3px;word-break:break-all}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0;font-size:14px}dl.meta dt{color:var(--muted)}dl.meta dd{margin:0}
.badge{display:inline-block;padding:4px 12px;border-radius:14px;font-weight:600;margin:0 8px 8px 0;background:#e7eaf2}
.level-none{background:#e4f4e8}.level-low{background:#eef6d8}.level-medium{background:#fff1c7}.level-high{background:#ffd8b5}.level-critical{background:#ffc0c0}
.verdict-significant{background:#ffd8b5}.verdict-not_significant{background:#e4f4e8}.verdict-insufficient_data,.verdict-not_applicable{background:#eceef3}
table{border-collapse:collapse;width:100%;font-size:13.5px;margin:8px 0}th,td{border:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}th{background:#f0f2f7}
tr.sig td{background:#fff6e8}td.src{color:var(--muted);font-size:12px}.yes{color:#b3261e}.approx{color:var(--muted);font-size:12px}
mark{background:var(--mark);padding:0 1px}.prefix{text-decoration:underline;text-decoration-color:var(--accent);text-decoration-thickness:2px}
figure.span{margin:10px 0;padding:10px 12px;border:1px solid var(--line);border-radius:6px;background:#fff}figure.span.verified{border-color:#e0a800}
figcaption{font-weight:600;font-size:13.5px;margin-bottom:6px}.excerpt{white-space:pre-wrap;font-size:14px;margin:6px 0;max-height:340px;overflow:auto}
.excerpt .lbl,svg .lbl{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin-right:8px}
.note,.method{color:var(--muted);font-size:13px}.plots{display:flex;flex-wrap:wrap;gap:12px}figure.plot{margin:0}
svg circle.w{fill:#c2410c;opacity:.75}svg circle.r{fill:#64748b;opacity:.6}svg .ax{font-size:10px;fill:var(--muted)}svg .lbl{fill:var(--muted)}
footer{margin-top:32px;color:var(--muted);font-size:12px}
`;
