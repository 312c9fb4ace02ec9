/**
 * The work report's sections below the strips: the passages side by side, the chain from corpus to model, what was
 * not checked, the method and versions, and the digests of the inputs.
 */
import { sha256Portable, toHex } from '../../fingerprint/sha256.js';
import { FACTORS, type FactorCode } from '../kb/factors.js';
import { matchKind } from '../policy/kinds/index.js';
import type { AnalysisResult } from '../analyze/types.js';
import type { AnalyzedMatch } from '../analyze/shared-text.js';
import { quotationSource } from '../analyze/quotations.js';
import { esc, fix, num } from './html.js';
import { transcriptDigest } from './transcripts.js';
import type { EvidenceBundle, TranscriptCall } from './types.js';
import { TRAINPRINT_VERSION } from './version.js';

/** Longest slice of the work or a source shown for one passage (a book's long passage is cut, and says so). */
const MAX_SHOWN = 1500;
/** Characters of a source's text shown around its passage. */
const CONTEXT = 120;

/** A table row of cells already escaped (`n`: the indexes of numeric cells, right-aligned). */
function row(cells: readonly string[], n: readonly number[] = []): string {
  return `<tr>${cells.map((c, i) => (n.includes(i) ? `<td class="n">${c}</td>` : `<td>${c}</td>`)).join('')}</tr>`;
}

/** A table with its header row (plain text) and its rows. */
function table(headings: readonly string[], rows: readonly string[]): string {
  const head = headings.map((h) => `<th>${esc(h)}</th>`).join('');
  return `<table><thead><tr>${head}</tr></thead><tbody>${rows.join('\n')}</tbody></table>`;
}

/**
 * The passages of each dataset: the work's text beside the source's, with their counts.
 * @example passagesSection(result, text, 40)
 */
export function passagesSection(result: AnalysisResult, text: string | null, maxPassages: number): string {
  const byDataset = new Map<string, AnalyzedMatch[]>();
  for (const m of result.matches) byDataset.set(m.dataset_id, [...(byDataset.get(m.dataset_id) ?? []), m]);
  const note =
    text === null
      ? '<p class="note"><b>The analysed text was not at hand</b>: each passage shows its source side only, ' +
        'with its span in the work.</p>'
      : '';
  const parts = [...byDataset].map(([id, matches]) => {
    const shown = [...matches].sort((a, b) => a.query_start - b.query_start).slice(0, maxPassages);
    const more = matches.length - shown.length;
    const rest =
      more > 0 ? `<p class="note">${num(more)} more passages of ${esc(id)} are marked on its strip.</p>` : '';
    return `<h3>${esc(id)}</h3>${shown.map((m) => passageFigure(m, text)).join('\n')}${rest}`;
  });
  return `<section><h2>Passages</h2>${note}${parts.join('\n') || '<p>No passage was found.</p>'}</section>`;
}

/** Longest quotation shown whole; a longer one shows its start and end. */
const QUOTE_SHOWN = 160;

/**
 * The text the work quotes, apart (docs/analyze.md#quotations): "quoted: “We the People … of America.” — in *North
 * America, Volume II (of 2)* and 3 other documents", what marks it, and whether it counted; '' when there is none.
 * @example quotationsSection(result, text)
 */
export function quotationsSection(result: AnalysisResult, text: string | null): string {
  const quoted = result.matches.filter((m) => m.role === 'quotation');
  if (quoted.length === 0) return '';
  const counted = result.evidence.quotations === 'count';
  const items = quoted.map((m) => {
    const source = quotationSource(m, result.matches);
    const words = text === null ? '' : text.slice(m.query_start, m.query_end).replace(/\s+/g, ' ').trim();
    const shownWords =
      words.length <= QUOTE_SHOWN
        ? words
        : `${words.slice(0, QUOTE_SHOWN - 50).replace(/\s+\S*$/, '')} … ${words.slice(-40).replace(/^\S*\s+/, '')}`;
    const what = text === null ? `characters ${num(m.query_start)}–${num(m.query_end)}` : `“${esc(shownWords)}”`;
    const others =
      source.others > 0 ? ` and ${num(source.others)} other document${source.others === 1 ? '' : 's'}` : '';
    const by = (m.quotation?.by ?? []).map((b) => b.replace(/_/g, ' ')).join(', ');
    const who = m.quotation?.attributed_to ? ` · attributed to ${esc(m.quotation.attributed_to)}` : '';
    return `<li>quoted: ${what} — in <i>${esc(source.document)}</i>${others} <span class="ctx">(${esc(m.dataset_id)} · characters ${num(m.query_start)}–${num(m.query_end)} · ${esc(by)}${who})</span></li>`;
  });
  const rule = counted
    ? "counted as the work's text (the analysis was asked to count quotations)"
    : "shown, not counted: the confidence is about the work's own text (quotations: 'exclude')";
  return `<section><h2>Quotations</h2><p>Text the work quotes that the datasets hold, ${rule}.</p><ul class="quotes">${items.join('\n')}</ul></section>`;
}

function passageFigure(m: AnalyzedMatch, text: string | null): string {
  const label = `<span class="lbl">Work · characters ${num(m.query_start)}–${num(m.query_end)}</span>`;
  const work = text === null ? '<i>not at hand</i>' : `<mark>${shown(text.slice(m.query_start, m.query_end))}</mark>`;
  const document = m.document_id === null ? 'no document' : `document <code>${esc(m.document_id)}</code>`;
  const role = m.role === 'quotation' ? ' · quotation' : '';
  return `<figure class="passage"><figcaption>${esc(m.kind)} · ${document}${role}</figcaption>
<div class="pair"><div class="side">${label}${work}</div>${sourceSide(m)}</div>
<div class="counts">${counts(m)}</div></figure>`;
}

/**
 * The source's side: the source's text around the passage where the match carries it (a remote corpus's window of
 * the document); else what the match shows, in the words of its kind (src/services/policy), and its span in the
 * document when it has one (a dataset keeps its documents' text; the result does not).
 */
function sourceSide(m: AnalyzedMatch): string {
  if ('source_text' in m && typeof m.source_text === 'string') {
    const t = m.source_text;
    const before = `<span class="ctx">${esc(t.slice(Math.max(0, m.source_start - CONTEXT), m.source_start))}</span>`;
    const after = `<span class="ctx">${esc(t.slice(m.source_end, m.source_end + CONTEXT))}</span>`;
    const label = `<span class="lbl">Source · document ${esc(m.document_id)}</span>`;
    const passage = `<mark>${shown(t.slice(m.source_start, m.source_end))}</mark>`;
    return `<div class="side">${label}${before}${passage}${after}</div>`;
  }
  const span =
    m.source_start === null ? '' : ` — characters ${num(m.source_start)}–${num(m.source_end)} of the document`;
  const what = matchKind(m).describe(m, `characters ${num(m.query_start)}–${num(m.query_end)}`);
  // a portrait match that names its document links to where the text can be read
  const url = 'document' in m ? m.document?.url : undefined;
  const link = url && /^https?:\/\//.test(url) ? ` <a href="${esc(url)}">${esc(url)}</a>` : '';
  return `<div class="side"><span class="lbl">Source</span><i>${esc(what)}${esc(span)}</i>${link}</div>`;
}

/** The match's counts: words, similarity, corpus count, documents sharing it. */
function counts(m: AnalyzedMatch): string {
  const parts = [`${num(m.tokens)} words`];
  if ('similarity' in m) parts.push(`similarity ${fix(m.similarity, 2)}`);
  if ('reuse' in m) parts.push(esc(m.reuse));
  parts.push(`score ${fix(m.score, 3)}`);
  if ('count' in m) parts.push(`span count in the corpus ${num(m.count)}`);
  if ('boilerplate' in m && m.boilerplate) parts.push('boilerplate: shown, not evidence');
  if (m.shared_documents !== undefined && m.shared_documents > 1)
    parts.push(`${num(m.shared_documents)} documents share it`);
  return parts.join(' · ');
}

function shown(s: string): string {
  if (s.length <= MAX_SHOWN) return esc(s);
  return `${esc(s.slice(0, MAX_SHOWN))}<span class="ctx"> … (${num(s.length - MAX_SHOWN)} more characters)</span>`;
}

const CHAIN_HEADINGS = [
  'Corpus',
  'Training dataset',
  'Model',
  'Link',
  'Certainty',
  'Confidence',
  'Why, and where it is documented',
];

/**
 * Corpus → training dataset → model, with the link's certainty, reason and citations.
 * @example chainSection(result)
 */
export function chainSection(result: AnalysisResult): string {
  if (result.attribution_sources.length === 0)
    return (
      '<section><h2>From corpus to model</h2><p>No model is documented or declared to have trained on a corpus ' +
      'with evidence.</p></section>'
    );
  const rows = result.attribution_sources.map((s) => {
    const kb = s.kb_dataset ? ` (<code>${esc(s.kb_dataset)}</code>)` : '';
    const cites = s.citations.map((c) => `<li>${esc(c)}</li>`).join('');
    const [lo, hi] = s.confidence_ci_95;
    return row(
      [
        `<code>${esc(s.dataset_id)}</code>`,
        `${esc(s.training_dataset)}${kb}`,
        `${esc(s.provider)} · <code>${esc(s.model)}</code>`,
        `${esc(s.link)}${s.declared ? ' (declared)' : ''} · ${esc(s.disclosure)}`,
        fix(s.link_certainty, 3),
        `${esc(s.confidence)} [${esc(lo)}, ${esc(hi)}]`,
        `${esc(s.link_reason)}${cites ? `<ul class="cite">${cites}</ul>` : ''}`,
      ],
      [4, 5],
    );
  });
  return `<section><h2>From corpus to model</h2>\n${table(CHAIN_HEADINGS, rows)}</section>`;
}

/**
 * What the analysis could not check: its limitation codes and the remote corpora not (fully) searched. With
 * `modelQueried` (the page shows model extractions of the text) `no_model_probe` is left out.
 * @example notCheckedSection(result)
 */
export function notCheckedSection(result: AnalysisResult, modelQueried = false): string {
  const facts = FACTORS as Readonly<Record<string, { meaning: string; source: string } | undefined>>;
  // a page that shows what models wrote out does not also say that no model was queried
  const shown = modelQueried ? result.limitations.filter((c) => c !== 'no_model_probe') : result.limitations;
  const codes = shown.map((c) => {
    const f = facts[c as FactorCode];
    const source = `<td class="src">${esc(f?.source ?? '')}</td>`;
    return `<tr><td><code>${esc(c)}</code></td><td>${esc(f?.meaning ?? '')}</td>${source}</tr>`;
  });
  const remote = result.remote_corpora
    .filter((r) => r.outcome !== 'searched')
    .map((r) => {
      const corpus = `<code>${esc(r.dataset_id)}</code> (${esc(r.engine)} <code>${esc(r.index)}</code>)`;
      const how = `<b>${esc(r.outcome.replace(/_/g, ' '))}</b> after ${num(r.calls)} of ${num(r.budget)} calls`;
      return `<li>${corpus}: ${how}${r.message ? ` — ${esc(r.message)}` : ''}</li>`;
    });
  const limitations = codes.length ? table(['Code', 'Meaning', 'Source'], codes) : '<p>No limitation recorded.</p>';
  const corpora = remote.length ? `<p>Remote corpora not fully searched:</p><ul>${remote.join('')}</ul>` : '';
  return `<section><h2>What was not checked</h2>\n${limitations}\n${corpora}</section>`;
}

/**
 * The method, the calibration and the versions of the engine (the bundle's, when the page shows one).
 * @example methodSection(result, bundle)
 */
export function methodSection(result: AnalysisResult, bundle?: EvidenceBundle): string {
  const e = result.evidence;
  const core = bundle ? bundle.engine.core : null;
  const engine =
    bundle && core
      ? `trainprint ${esc(bundle.engine.version)} (core ${esc(core.variant)} <code>${esc(core.sha256)}</code>); ` +
        `this page by trainprint ${esc(TRAINPRINT_VERSION)}`
      : `trainprint ${esc(TRAINPRINT_VERSION)}`;
  return `<section><h2>Method</h2>
<p class="method">${esc(e.method)}</p>
<p class="method">${esc(e.combination)}.</p>
<dl class="meta"><dt>Calibration</dt><dd><code>${esc(e.calibration.id)}</code> · prior ${esc(e.calibration.prior)}</dd>
<dt>Engine</dt><dd>${engine}</dd></dl></section>`;
}

/**
 * The digests that tie the page to its inputs: the work hash, the text's SHA-256, each remote corpus's transcript,
 * and the bundle's signature when the page shows a bundle.
 * @example inputsSection({ result, text, transcripts })
 */
export function inputsSection(input: {
  readonly result: AnalysisResult;
  readonly text: string | null;
  readonly transcripts?: Readonly<Record<string, readonly TranscriptCall[]>>;
  readonly bundle?: EvidenceBundle;
}): string {
  const { result, text, bundle } = input;
  const textSha = text === null ? (bundle?.text_sha256 ?? null) : toHex(sha256Portable(new TextEncoder().encode(text)));
  const rows = [
    `<dt>Work hash</dt><dd><code>${esc(result.work_hash)}</code> (the content as sent)</dd>`,
    `<dt>Text SHA-256</dt><dd>${textSha ? `<code>${esc(textSha)}</code> (the analysed text)` : 'not at hand'}</dd>`,
  ];
  for (const r of result.remote_corpora)
    rows.push(transcriptRow(r, input.transcripts?.[r.dataset_id] ?? bundle?.transcripts[r.dataset_id]?.entries));
  if (bundle) {
    const s = bundle.signature;
    const key = `<code>${esc(s.key_id)}</code> (public key <code>${esc(s.public_key)}</code>)`;
    rows.push(
      `<dt>Signature</dt><dd>${esc(s.alg)} by key ${key}, bundle made ${esc(bundle.created_at)}; ` +
        'check it with <code>trainprint verify</code></dd>',
    );
  }
  return `<section><h2>Inputs</h2><dl class="meta">${rows.join('\n')}</dl></section>`;
}

/** A remote corpus's transcript digest, and whether the calls at hand hash to it. */
function transcriptRow(r: AnalysisResult['remote_corpora'][number], calls: readonly TranscriptCall[] | undefined) {
  const head = `<dt>Transcript <code>${esc(r.dataset_id)}</code></dt>`;
  const where = `calls to ${esc(r.endpoint)} (<code>${esc(r.index)}</code>)`;
  // a result stored before transcripts were kept has none
  if (!r.transcript) return `${head}<dd>none kept · ${num(r.calls)} ${where}</dd>`;
  const again = calls ? transcriptDigest(calls) : null;
  const state =
    again === null
      ? ''
      : again.sha256 === r.transcript.sha256
        ? ' · the calls listed hash to it'
        : ' · <b>the calls listed do not hash to it</b>';
  return `${head}<dd><code>${esc(r.transcript.sha256)}</code> · ${num(r.transcript.calls)} ${where}${state}</dd>`;
}
