/**
 * The analysis result as DOM: summary, what was extracted from a file (format, size, words, sections, pages), the
 * query with its matched passages highlighted beside the selected source passage, the matches, attribution
 * sources, risk, revenue estimate, coverage chart and limitations. Builds elements only through dom.ts (text nodes).
 */
import type { AnalysisResult, DatasetInfo, FactorInfo } from './backend.js';
import { fill, h, withCode, type Child } from './dom.js';
import { bytes, chance, count, decimal, percent, usd } from './format.js';
import { quoteMarks, textLang, tokenUnit } from './scripts.js';
import { excerpt, segments, type Span } from './spans.js';

type Match = AnalysisResult['matches'][number];
type Extraction = NonNullable<AnalysisResult['extraction']>;
/** A section of a file with its share inside each dataset's matches (`sections` of a file's analysis). */
interface SectionCoverage {
  readonly title: string;
  readonly start: number;
  readonly end: number;
  readonly words: number;
  readonly coverage: Readonly<Record<string, number>>;
}
/** Sections listed; the rest are counted. */
const MAX_SECTIONS = 300;

export interface AnalysisView {
  /** The text that was analysed (spans are offsets into it). */
  readonly text: string;
  readonly result: AnalysisResult;
  readonly factors: ReadonlyMap<string, FactorInfo>;
  readonly datasets: readonly DatasetInfo[];
  sourceText(datasetId: string, documentId: string): Promise<string | null>;
  /** Opens the compare view with the analysed text and a source document. */
  compareWith(documentId: string, sourceText: string): void;
}

/** Characters of a query shown whole; longer texts show their matched passages with context. */
const FULL_TEXT_CHARS = 100_000;
const CONTEXT_CHARS = 240;
/** Matches listed (and highlighted); the rest are counted. */
const MAX_MATCHES = 200;
/** The public deals behind the revenue rates (`estimated_revenue.basis.deal_ids`), as reported. */
/** Who supplied an evidence source's dataset, in words. */
const SUPPLIED_LABEL: Readonly<Record<string, string>> = {
  shipped: 'reference pack',
  operator: 'operator',
  account: 'your upload',
};
const SUPPLIED_TITLE: Readonly<Record<string, string>> = {
  shipped: 'A reference pack of the package: its sources are documented with it',
  operator: 'Loaded by whoever runs this engine or service, for every account',
  account: 'Your own upload: only your analyses search it',
};

const DEALS: Readonly<Record<number, string>> = {
  9: 'HarperCollins–Microsoft book licence (Publishers Weekly, 25 Nov 2024)',
  17: 'Defined.ai per-word text price (Reuters, 5 Apr 2024)',
};

/**
 * What the source panel shows of a portrait match: the article or the book its hits agree on, with the part of it,
 * or why no document is named (a portrait keeps hashes, not text). `units` is what its tokens are ('words' …).
 */
function portraitSource(m: Extract<Match, { kind: 'portrait' }>, dsName: string, units: string): Child[] {
  const p = chance(1 - m.score);
  const odds = `chance probability ${p.startsWith('below') ? p : `≤ ${p}`}`;
  const doc = m.document;
  const art = m.article;
  if (m.document_id !== null && doc && art) {
    // a file of many articles (the Wikipedia packs): the article is what a person opens to check the passage
    const link =
      art.url && /^https?:\/\//.test(art.url)
        ? h('a', { href: art.url, rel: 'noopener', target: '_blank' }, art.title)
        : art.title;
    return [
      h(
        'p',
        { class: 'source-head' },
        h('strong', { class: 'doc-id' }, link),
        ` (article ${art.key} of ${doc.title ?? m.document_id}, ${m.document_id})`,
        ` in ${dsName}`,
      ),
      h(
        'p',
        null,
        `${count(m.agreeing ?? 0)} fingerprints of these ${count(m.tokens)} ${units} agree on this article, words ${count(art.words[0])}–${count(art.words[1])} of it (${odds}). A portrait keeps hashes, not the text: open the article there to read the passage.`,
      ),
    ];
  }
  if (m.document_id !== null && doc) {
    // a pack that locates names the book and the part of it the hits agree on: a person can check it there
    const title = doc.title ?? m.document_id;
    const link =
      doc.url && /^https?:\/\//.test(doc.url)
        ? h('a', { href: doc.url, rel: 'noopener', target: '_blank' }, title)
        : title;
    const where = m.source_words ? `, words ${count(m.source_words[0])}–${count(m.source_words[1])}` : '';
    return [
      h(
        'p',
        { class: 'source-head' },
        h('strong', { class: 'doc-id' }, link),
        doc.author ? ` by ${doc.author}` : '',
        doc.ebook !== undefined ? ` (Project Gutenberg #${doc.ebook})` : ` (${m.document_id})`,
        ` in ${dsName}`,
      ),
      h(
        'p',
        null,
        `${count(m.agreeing ?? 0)} fingerprints of these ${count(m.tokens)} ${units} agree on this document${where} (${odds}). A portrait keeps hashes, not the text: open the book there to read the passage.`,
      ),
      ...(m.also_in ?? []).map((a) =>
        h(
          'p',
          null,
          'The same text is also in ',
          a.document.url && /^https?:\/\//.test(a.document.url)
            ? h('a', { href: a.document.url, rel: 'noopener', target: '_blank' }, a.document.title ?? a.document_id)
            : (a.document.title ?? a.document_id),
          a.document.ebook !== undefined ? ` (Project Gutenberg #${a.document.ebook})` : ` (${a.document_id})`,
          `, words ${count(a.source_words[0])}–${count(a.source_words[1])} (${Math.round(a.shared * 100)} % of this section's n-grams): a portrait cannot tell identical text apart.`,
        ),
      ),
    ];
  }
  if (m.agreeing !== undefined) {
    // a pack that locates, but the hits agree with one section little more than chance allows: saying which
    // document would be a guess (docs/analyze.md, the naming check)
    return [
      h('p', { class: 'source-head' }, h('strong', null, 'In the pack, document uncertain'), ` ${dsName}`),
      h(
        'p',
        null,
        `These ${count(m.tokens)} ${units} are in the pack (${odds}), but only ${count(m.agreeing)} of their ${count(m.fingerprints ?? m.agreeing)} fingerprints agree on one section, little more than chance allows in a pack of this size, so no document is named.`,
      ),
    ];
  }
  return [
    h('p', { class: 'source-head' }, h('strong', null, 'Portrait dataset'), ` ${dsName}`),
    h(
      'p',
      null,
      `These ${count(m.tokens)} ${units} are in the corpus (${odds}). A portrait keeps no documents or positions, so there is no source passage to show.`,
    ),
  ];
}

/** A match's row in the table of matches: its document (a button that selects it), dataset, kind, size and place. */
function matchRow(m: Match, i: number, onSelect: () => void): HTMLElement {
  return h(
    'tr',
    { 'data-index': i },
    h(
      'th',
      { scope: 'row' },
      h(
        'button',
        { type: 'button', class: 'link', onclick: onSelect },
        m.kind === 'portrait' && m.document?.title
          ? m.document.title
          : (m.document_id ??
              (m.kind === 'portrait' && m.agreeing !== undefined ? '(document uncertain)' : '(portrait)')),
      ),
    ),
    h('td', null, m.dataset_id),
    h('td', null, m.role === 'quotation' ? `${m.kind} · quotation` : m.kind),
    h('td', { class: 'num' }, count(m.tokens)),
    h('td', { class: 'num' }, decimal(m.score)),
    h('td', { class: 'num' }, m.kind === 'near' ? 'whole text' : `${count(m.query_start)}–${count(m.query_end)}`),
  );
}

/**
 * The table of matches (each row from {@link matchRow}, in `body`), and how many are not listed. `unit` is what the
 * text's tokens are ('words' …).
 */
function matchesSection(
  result: AnalysisResult,
  listed: readonly Match[],
  body: HTMLElement,
  unit: string,
): HTMLElement {
  return section(
    'matches-title',
    `Matches (${count(result.matches.length)})`,
    listed.length === 0
      ? h('p', { class: 'muted' }, 'No matches.')
      : [
          h(
            'div',
            { class: 'table-wrap scroll', role: 'region', 'aria-labelledby': 'matches-title', tabindex: 0 },
            h(
              'table',
              { id: 'match-table' },
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  h('th', { scope: 'col' }, 'Source document'),
                  h('th', { scope: 'col' }, 'Dataset'),
                  h('th', { scope: 'col' }, 'Kind'),
                  h('th', { scope: 'col', class: 'num' }, unit[0].toUpperCase() + unit.slice(1)),
                  h('th', { scope: 'col', class: 'num' }, 'Score'),
                  h('th', { scope: 'col', class: 'num' }, 'Your text (chars)'),
                ),
              ),
              body,
            ),
          ),
          result.matches.length > listed.length
            ? h('p', { class: 'muted' }, `Showing ${count(listed.length)} of ${count(result.matches.length)} matches.`)
            : null,
        ],
  );
}

export function renderAnalysis(root: HTMLElement, view: AnalysisView): void {
  const { result } = view;
  const passages = result.matches.filter((m) => m.kind !== 'near').slice(0, MAX_MATCHES);
  const near = result.matches.filter((m) => m.kind === 'near');
  const listed = [...passages, ...near].slice(0, MAX_MATCHES);
  let selected = 0;
  // a token of Chinese, Japanese or Thai is a character, not a word: say so wherever a count of tokens is shown
  const unit = tokenUnit(view.text);
  const units = (m: Match) => tokenUnit(view.text.slice(m.query_start, m.query_end));
  const lang = textLang(view.text);

  // dir="auto": a Hebrew or Arabic text runs right to left, its full stop at its end
  const queryBox = h('div', {
    class: 'doc',
    id: 'query-text',
    dir: 'auto',
    ...(unit !== 'words' && lang ? { lang } : {}),
  });
  const sourceBox = h('div', { id: 'source-view', class: 'source', 'aria-live': 'polite' });
  const tableBody = h('tbody');
  let sourceToken = 0;

  const select = (i: number, focusSource = false): void => {
    selected = i;
    renderQuery();
    for (const row of tableBody.rows) {
      const on = row.dataset.index === String(i);
      row.classList.toggle('current', on);
      if (on) row.setAttribute('aria-current', 'true');
      else row.removeAttribute('aria-current');
    }
    void renderSource(listed[i], focusSource);
  };

  function renderQuery(): void {
    // Span i is passages[i], which is listed[i] (passages come first in `listed`).
    const spans: Span[] = passages.map((m) => ({ start: m.query_start, end: m.query_end }));
    const mark = (text: string, covers: readonly number[]): Child => {
      if (covers.length === 0) return text;
      const isCurrent = covers.includes(selected);
      const first = isCurrent ? selected : covers[0];
      return h(
        'mark',
        {
          // the text the work quotes is marked apart from its own (docs/analyze.md#quotations)
          class: `${isCurrent ? 'hit current' : 'hit'}${listed[first]?.role === 'quotation' ? ' quote' : ''}`,
          'data-match': first,
          title: `${listed[first]?.role === 'quotation' ? 'Quoted; found' : 'Found'} in ${label(listed[first])}`,
          onclick: () => select(first),
        },
        text,
      );
    };
    fill(queryBox, ...highlighted(view.text, spans, mark));
  }

  async function renderSource(m: Match | undefined, focus: boolean): Promise<void> {
    const token = ++sourceToken;
    if (!m) {
      fill(sourceBox, h('p', { class: 'muted' }, 'Nothing in the loaded datasets matched this text.'));
      return;
    }
    const ds = view.datasets.find((d) => d.id === m.dataset_id);
    const dsName = ds?.name ? `${ds.name} (${m.dataset_id})` : m.dataset_id;
    if (m.kind === 'portrait') {
      fill(sourceBox, ...portraitSource(m, dsName, units(m)));
      return;
    }
    if (m.kind === 'remote') {
      // the engine returned the document's window with the match: nothing to fetch
      const component = componentName(m.metadata);
      const remoteHead = h(
        'p',
        { class: 'source-head' },
        h('strong', { class: 'doc-id' }, `document ${m.doc_ix}`),
        ` in ${dsName}`,
        component ? ` (${component})` : '',
        h('br'),
        `Your text ${count(m.query_start)}–${count(m.query_end)} · ${count(m.tokens)} ${units(m)} · ${m.reuse} · the span occurs ${count(m.count)} time${m.count === 1 ? '' : 's'} in the corpus`,
        m.boilerplate ? ' — common text (boilerplate): shown, not counted as evidence' : '',
      );
      const t = m.source_text;
      const passage = h(
        'blockquote',
        { class: 'doc passage', id: 'source-passage' },
        m.source_start > 0 ? '… ' : '',
        t.slice(0, m.source_start),
        h('mark', { class: 'hit current' }, t.slice(m.source_start, m.source_end)),
        t.slice(m.source_end),
        ' …',
      );
      fill(
        sourceBox,
        remoteHead,
        passage,
        h(
          'p',
          null,
          h(
            'button',
            { type: 'button', class: 'link', onclick: () => view.compareWith(m.document_id, t) },
            'Compare your text with this passage',
          ),
        ),
      );
      if (focus) passage.scrollIntoView({ block: 'nearest' });
      return;
    }
    const docId = m.document_id;
    const head = h(
      'p',
      { class: 'source-head' },
      h('strong', { class: 'doc-id' }, docId),
      ` in ${dsName}`,
      h('br'),
      m.kind === 'near'
        ? `Near-duplicate document: estimated Jaccard similarity ${decimal(m.score)} of word 5-grams`
        : `Source characters ${count(m.source_start)}–${count(m.source_end)} · your text ${count(m.query_start)}–${count(m.query_end)} · ${count(m.tokens)} ${units(m)} · score ${decimal(m.score)}`,
    );
    fill(sourceBox, head, h('p', { class: 'muted' }, 'Loading the source text…'));
    const text = ds?.has_text ? await view.sourceText(m.dataset_id, docId) : null;
    if (token !== sourceToken) return;
    if (text === null) {
      fill(
        sourceBox,
        head,
        h('p', { class: 'note' }, 'Source text not available in this index (exact datasets keep positions, not text).'),
      );
      return;
    }
    const start = m.kind === 'near' ? 0 : m.source_start;
    const end = m.kind === 'near' ? Math.min(text.length, 600) : m.source_end;
    const { from, to } = excerpt(text, start, end, CONTEXT_CHARS);
    const passage = h(
      'blockquote',
      { class: 'doc passage', id: 'source-passage' },
      from > 0 ? '… ' : '',
      text.slice(from, start),
      h('mark', { class: 'hit current' }, text.slice(start, end)),
      text.slice(end, to),
      to < text.length ? ' …' : '',
    );
    fill(
      sourceBox,
      head,
      passage,
      h(
        'p',
        null,
        h(
          'button',
          { type: 'button', class: 'link', onclick: () => view.compareWith(docId, text) },
          `Compare your text with ${docId}`,
        ),
      ),
    );
    if (focus) passage.scrollIntoView({ block: 'nearest' });
  }

  for (const [i, m] of listed.entries()) tableBody.append(matchRow(m, i, () => select(i, true)));

  const risk = result.risk_assessment;
  fill(
    root,
    h('h3', { id: 'result-title', tabindex: -1 }, 'Result'),
    // what the number rests on, in words, before the number: the evidence a person can check, or that there is none
    h('p', { class: 'rests-on', id: 'corpus-evidence' }, withCode(result.corpus_evidence.summary)),
    h(
      'dl',
      { class: 'summary' },
      stat(
        'Confidence a model trained on it',
        `${decimal(result.confidence, 0)} / 100`,
        `95 % interval ${decimal(result.confidence_ci_95[0], 0)}–${decimal(result.confidence_ci_95[1], 0)}`,
      ),
      stat('Risk', h('span', { class: `badge risk-${risk.level}` }, risk.level), `score ${decimal(risk.score)}`),
      stat('Matched documents', count(result.potential_matches), `${count(result.tokens)} ${unit} analysed`),
      stat(
        'Estimated revenue',
        result.estimated_revenue.monthly === null ? 'none' : `${usd(result.estimated_revenue.monthly)} / month`,
        methodLabel(result.estimated_revenue.basis.method),
      ),
    ),
    result.extraction ? extractionBlock(result.extraction, view.text, result) : null,
    quotationsBlock(result, view.text),
    h(
      'div',
      { class: 'panes' },
      h(
        'section',
        { class: 'pane', 'aria-labelledby': 'query-title' },
        h('h4', { id: 'query-title' }, result.extraction ? "The file's text" : 'Your text'),
        h(
          'p',
          { class: 'hint' },
          passages.length
            ? 'Highlighted: passages found in a dataset. Select one (or a row below) to see its source.'
            : 'No passage of this text was found in the loaded datasets.',
        ),
        queryBox,
      ),
      h(
        'section',
        { class: 'pane', 'aria-labelledby': 'source-title' },
        h('h4', { id: 'source-title' }, 'Source passage'),
        sourceBox,
      ),
    ),
    matchesSection(result, listed, tableBody, unit),
    section('sources-title', 'Attribution sources', attribution(result, view.factors)),
    section('risk-title', 'Risk', riskBlock(result, view.factors)),
    section('revenue-title', 'Estimated revenue', revenue(result)),
    section('coverage-title', 'Coverage per dataset', coverageChart(result, view.datasets)),
    result.remote_corpora.length ? section('remote-title', 'Remote corpora consulted', remoteCorpora(result)) : null,
    section('limitations-title', 'Limitations', factorList(result.limitations, view.factors)),
    h(
      'p',
      { class: 'meta' },
      h('button', { type: 'button', onclick: () => download(result) }, 'Download the result (JSON)'),
      ' ',
      h(
        'span',
        { class: 'muted' },
        `${result.analysis_id} · ${result.fingerprint} · ${result.work_hash.slice(0, 23)}…`,
      ),
    ),
  );
  select(strongest(passages));
}

/** Longest quotation shown whole; a longer one shows its start and end. */
const QUOTE_SHOWN = 160;

/**
 * The text the work quotes, apart from its own (docs/analyze.md#quotations): "quoted: “We the People … of America.” —
 * in North America, Volume II (of 2) and 3 other documents", what marks it, and whether it counted; null without one.
 */
function quotationsBlock(result: AnalysisResult, text: string): Child {
  const quoted = result.matches.filter((m) => m.role === 'quotation');
  if (quoted.length === 0) return null;
  const items = quoted.map((m) => {
    const words = text.slice(m.query_start, m.query_end).replace(/\s+/g, ' ').trim();
    const shown =
      words.length <= QUOTE_SHOWN
        ? words
        : `${words.slice(0, QUOTE_SHOWN - 50).replace(/\s+\S*$/, '')} … ${words.slice(-40).replace(/^\S*\s+/, '')}`;
    const { document, others } = quotationSource(m, result.matches);
    const by = (m.quotation?.by ?? []).map((b) => b.replace(/_/g, ' ')).join(', ');
    const who = m.quotation?.attributed_to ? ` · attributed to ${m.quotation.attributed_to}` : '';
    return h(
      'li',
      null,
      'quoted: ',
      quotation(shown, m, text),
      ' — in ',
      h('cite', null, document),
      others > 0 ? ` and ${count(others)} other document${others === 1 ? '' : 's'}` : '',
      h('span', { class: 'muted' }, ` (${m.dataset_id} · ${by}${who})`),
    );
  });
  const counted = result.evidence.quotations === 'count';
  return h(
    'section',
    { class: 'quotations', 'aria-labelledby': 'quotations-title' },
    h('h4', { id: 'quotations-title' }, `Quotations (${count(quoted.length)})`),
    h(
      'p',
      { class: 'hint' },
      counted
        ? "Text your work quotes that the datasets hold, counted as your work's text (quotations: count)."
        : "Text your work quotes that the datasets hold: shown here, not counted — the confidence is about your work's own text.",
    ),
    h('ul', { id: 'quotation-list' }, ...items),
  );
}

/**
 * The quoted words between the marks the text itself put around them („…“, «…», 「…」), else in the page's own: a
 * German or Japanese quotation is not shown in English marks. Its language tag picks the glyphs of its script.
 */
function quotation(shown: string, m: Match, text: string): HTMLElement {
  const marks = m.quotation?.by.includes('quotation_marks') ? quoteMarks(text, m.query_start, m.query_end) : null;
  const lang = textLang(shown);
  const attrs = { ...(lang ? { lang } : {}), ...(marks ? { class: 'own-marks' } : {}) };
  return h('q', attrs, marks ? `${marks[0]}${shown}${marks[1]}` : shown);
}

/**
 * A quotation's document (a book's or an article's title, else its id) and how many other documents the result names
 * for its span: those it names (`also_in`) and other matches' over at least half of it (as the library counts them,
 * src/services/analyze/quotations.ts).
 */
function quotationSource(m: Match, all: readonly Match[]): { document: string; others: number } {
  const key = (x: Match): string | null =>
    x.kind === 'remote' || x.kind === 'near'
      ? null
      : x.kind === 'portrait'
        ? (x.article?.title ?? x.document?.title ?? `${x.dataset_id}/${x.document_id}`)
        : `${x.dataset_id}/${x.document_id}`;
  const own = key(m);
  const others = new Set<string>();
  if (m.kind === 'portrait') for (const a of m.also_in ?? []) others.add(a.document.title ?? a.document_id);
  for (const o of all) {
    const k = key(o);
    const overlap = Math.min(o.query_end, m.query_end) - Math.max(o.query_start, m.query_start);
    if (o !== m && k !== null && k !== own && overlap >= (m.query_end - m.query_start) / 2) others.add(k);
  }
  const title = m.kind === 'portrait' ? (m.article?.title ?? m.document?.title) : undefined;
  return { document: title ?? String(m.document_id ?? m.dataset_id), others: others.size };
}

/**
 * What was read from a file: its format and size, the words, characters, sections and (PDF) pages of its text, and
 * its sections — with the share of each inside the matches of the dataset that covers most of it, where the result
 * reports coverage per section.
 */
function extractionBlock(x: Extraction, text: string, result: AnalysisResult): HTMLElement {
  const sections = x.sections;
  const covered = (result as { sections?: readonly SectionCoverage[] }).sections;
  const summary =
    `${x.format.toUpperCase()} file, ${bytes(x.bytes)}: ${count(x.words)} words (${count(x.characters)} characters)` +
    ` in ${count(sections.length)} section${sections.length === 1 ? '' : 's'}` +
    (x.pages ? `, ${count(x.pages.length)} page${x.pages.length === 1 ? '' : 's'}` : '') +
    '. Spans below point into this extracted text.';
  const rows = sections.slice(0, MAX_SECTIONS).map((s, i) => {
    const c = covered?.[i];
    const words = c?.words ?? wordCount(text.slice(s.start, s.end));
    const [id, share] = c ? topCoverage(c.coverage) : [null, 0];
    return h(
      'tr',
      null,
      h('th', { scope: 'row' }, s.title || h('span', { class: 'muted' }, '(untitled)')),
      h('td', { class: 'num' }, count(words)),
      covered ? h('td', { class: 'num' }, id === null || share === 0 ? '—' : `${percent(share)} in ${id}`) : null,
    );
  });
  return section(
    'extraction-title',
    'Extracted from the file',
    h('p', { id: 'extraction-summary' }, summary),
    sections.length
      ? h(
          'details',
          { class: 'sections' },
          h('summary', null, `Sections (${count(sections.length)})`),
          h(
            'div',
            { class: 'table-wrap scroll' },
            h(
              'table',
              { id: 'extraction-sections' },
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  h('th', { scope: 'col' }, 'Section'),
                  h('th', { scope: 'col', class: 'num' }, 'Words'),
                  covered ? h('th', { scope: 'col', class: 'num' }, 'Most matched') : null,
                ),
              ),
              h('tbody', null, ...rows),
            ),
          ),
          sections.length > MAX_SECTIONS
            ? h('p', { class: 'muted' }, `Showing ${count(MAX_SECTIONS)} of ${count(sections.length)} sections.`)
            : null,
        )
      : null,
  );
}

/** The dataset whose matches cover the largest share of a section, and that share (first of equals). */
function topCoverage(coverage: Readonly<Record<string, number>>): [string | null, number] {
  let best: [string | null, number] = [null, 0];
  for (const [id, share] of Object.entries(coverage)) if (share > best[1]) best = [id, share];
  return best;
}

/** Whitespace-separated words, as the extraction counts them. */
function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** The component a remote document's metadata names (the Pile's `pile_set_name`, RedPajama's and Dolma's source). */
function componentName(metadata: unknown): string | null {
  const m = metadata as { meta?: { pile_set_name?: unknown; redpajama_set_name?: unknown }; source?: unknown } | null;
  const name = m?.meta?.pile_set_name ?? m?.meta?.redpajama_set_name ?? m?.source;
  return typeof name === 'string' ? name : null;
}

/**
 * Where a remote corpus's engine is, in words: its URL, or — when the API keeps a self-hosted engine's URL to the
 * operator (it may name an internal host) — the service's own engine.
 */
export function engineWhere(endpoint: string): string {
  return endpoint === 'self-hosted' ? "the service's own engine" : endpoint;
}

/** A remote corpus's search that answered nothing (not `searched`, no sample answered): it has no coverage to show. */
function unanswered(r: AnalysisResult['remote_corpora'][number]): boolean {
  return r.outcome !== 'searched' && r.samples === 0;
}

/** Each remote corpus the text was sent to, and how its search went. */
function remoteCorpora(result: AnalysisResult): Child {
  const outcome: Record<string, string> = {
    searched: 'searched',
    unreachable: 'did not answer',
    rate_limited: 'refused for rate',
    budget_exhausted: 'call budget spent',
    deadline_reached: 'deadline reached, partly searched',
    rejected: 'refused the request',
    invalid_response: 'answered unreadably',
    cancelled: 'cancelled',
  };
  return h(
    'ul',
    { id: 'remote-corpora' },
    ...result.remote_corpora.map((r) =>
      h(
        'li',
        null,
        h('strong', null, r.dataset_id),
        ` (${r.engine}, index ${r.index}, sent to ${engineWhere(r.endpoint)}): ${outcome[r.outcome] ?? r.outcome}`,
        // a corpus that answered nothing was not searched: "0 matches" would read as a search that found none
        unanswered(r)
          ? ' · nothing was searched: no evidence either way'
          : ` · ${count(r.matches)} match${r.matches === 1 ? '' : 'es'} in ${count(r.documents)} document${r.documents === 1 ? '' : 's'}`,
        ` · ${count(r.calls)} calls${r.cached ? `, ${count(r.cached)} answers cached` : ''}, ${count(Math.round(r.ms))} ms`,
        r.message ? h('span', { class: 'muted' }, ' — ', withCode(r.message)) : null,
      ),
    ),
  );
}

/**
 * The match the page opens on: the passage with the most aligned evidence (its query characters × its
 * similarity, 1 where the match has none), the first of equals: a verbatim copy of a source rather than a
 * reworded relative of it that starts a few characters earlier.
 */
function strongest(passages: readonly Match[]): number {
  let best = 0,
    bestWeight = -1;
  passages.forEach((m, i) => {
    const similarity = 'similarity' in m && typeof m.similarity === 'number' ? m.similarity : 1;
    const weight = (m.query_end - m.query_start) * similarity;
    if (weight > bestWeight) {
      best = i;
      bestWeight = weight;
    }
  });
  return best;
}

/** The query with highlighted spans; long texts keep only the matched regions plus context. */
function highlighted(
  text: string,
  spans: readonly Span[],
  mark: (text: string, covers: readonly number[]) => Child,
): Child[] {
  const windows: Span[] = [];
  if (text.length <= FULL_TEXT_CHARS || spans.length === 0) {
    windows.push({ start: 0, end: Math.min(text.length, FULL_TEXT_CHARS) });
  } else {
    for (const s of [...spans].sort((a, b) => a.start - b.start)) {
      const w = excerpt(text, s.start, s.end, CONTEXT_CHARS);
      const last = windows[windows.length - 1];
      if (last && w.from <= last.end)
        windows[windows.length - 1] = { start: last.start, end: Math.max(last.end, w.to) };
      else windows.push({ start: w.from, end: w.to });
    }
  }
  const out: Child[] = [];
  for (const w of windows) {
    if (w.start > 0) out.push(h('span', { class: 'gap' }, '…'));
    const local = spans.map((s) => ({ start: s.start - w.start, end: s.end - w.start }));
    for (const seg of segments(w.end - w.start, local))
      out.push(mark(text.slice(w.start + seg.start, w.start + seg.end), seg.covers));
  }
  const lastEnd = windows[windows.length - 1]?.end ?? 0;
  if (lastEnd < text.length)
    out.push(h('span', { class: 'gap' }, `… (${count(text.length - lastEnd)} more characters)`));
  return out;
}

/** A match's work as a person knows it: a pack's book by its title (ids such as pg22367 say nothing), else its id. */
function label(m: Match | undefined): string {
  if (!m) return '';
  const title = m.kind === 'portrait' ? m.document?.title : undefined;
  if (title) return `${title} (${m.dataset_id})`;
  return m.document_id ? `${m.document_id} (${m.dataset_id})` : m.dataset_id;
}

function stat(term: string, value: Child, note: string): HTMLElement {
  return h(
    'div',
    { class: 'stat' },
    h('dt', null, term),
    h('dd', null, h('span', { class: 'value' }, value), h('span', { class: 'note' }, note)),
  );
}

function section(id: string, title: string, ...body: Child[]): HTMLElement {
  return h('section', { class: 'block', 'aria-labelledby': id }, h('h4', { id }, title), ...body);
}

function methodLabel(method: AnalysisResult['estimated_revenue']['basis']['method']): string {
  return method === 'per_title_36m'
    ? 'per title, 36-month licence'
    : method === 'per_word_amortised'
      ? 'per word, amortised over 36 months'
      : 'no market anchor';
}

/**
 * A source's confidence, already on the 0..100 scale with one decimal (unlike `percent`, which takes a
 * share 0..1): 95 → '95', 85.5 → '85.5'.
 */
const of100 = (x: number): string => String(Number(x.toFixed(1)));

function attribution(result: AnalysisResult, factors: ReadonlyMap<string, FactorInfo>): Child {
  const sources = result.attribution_sources;
  if (sources.length === 0) {
    const why = ['no_documented_model_link', 'no_indexed_dataset_match', 'no_datasets_loaded'].find(
      (c) => result.risk_assessment.factors.includes(c) || result.limitations.includes(c),
    );
    return h(
      'p',
      { class: 'muted', id: 'no-sources' },
      'No attribution sources. ',
      why ? withCode(factors.get(why)?.meaning ?? why) : '',
      ' Declare what a loaded dataset samples (Datasets view) to link it to the models documented to train on it.',
    );
  }
  return h(
    'div',
    { class: 'table-wrap', role: 'region', 'aria-labelledby': 'sources-title', tabindex: 0 },
    h(
      'table',
      { id: 'sources-table' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ...['Provider', 'Model', 'Training dataset', 'Disclosure', 'Confidence', 'Link'].map((t) =>
            h('th', { scope: 'col', class: t === 'Confidence' ? 'num' : undefined }, t),
          ),
        ),
      ),
      h(
        'tbody',
        null,
        ...sources.map((s) =>
          h(
            'tr',
            null,
            h('td', null, s.provider),
            h('th', { scope: 'row' }, s.model),
            h(
              'td',
              null,
              s.training_dataset,
              s.kb_dataset ? h('span', { class: 'muted' }, ` (${s.kb_dataset})`) : null,
            ),
            h('td', null, s.disclosure),
            h(
              'td',
              { class: 'num' },
              `${of100(s.confidence)} %`,
              h('span', { class: 'note' }, ` (${of100(s.confidence_ci_95[0])}–${of100(s.confidence_ci_95[1])})`),
            ),
            h(
              'td',
              null,
              h(
                'span',
                { class: `badge supplied-${s.supplied_by}`, title: SUPPLIED_TITLE[s.supplied_by] },
                SUPPLIED_LABEL[s.supplied_by],
              ),
              ' ',
              s.declared
                ? h(
                    'span',
                    {
                      class: 'badge declared',
                      title:
                        'What the dataset samples was declared by whoever loaded it, not a fact the engine checked',
                    },
                    'declared',
                  )
                : null,
              ' ',
              s.link === 'declared'
                ? `model declared for ${s.dataset_id}`
                : `${s.dataset_id} → ${s.kb_dataset ?? '?'}; ${s.link_reason}`,
              h('span', { class: 'note' }, ` (link certainty ${decimal(s.link_certainty)})`),
            ),
          ),
        ),
      ),
    ),
  );
}

function riskBlock(result: AnalysisResult, factors: ReadonlyMap<string, FactorInfo>): Child[] {
  const r = result.risk_assessment;
  return [
    h(
      'p',
      { id: 'risk-level' },
      'Level ',
      h('span', { class: `badge risk-${r.level}` }, r.level),
      ` · score ${decimal(r.score)} · jurisdiction ${r.jurisdiction ?? 'not given'} · base weight ${decimal(r.base_weight)} · attribution scale ${decimal(r.attribution_scale)}`,
    ),
    r.modifiers.length
      ? h(
          'p',
          null,
          'Modifiers: ',
          r.modifiers.map((m, i) => [
            i ? ', ' : '',
            h('code', null, m.code),
            ` ${m.delta >= 0 ? '+' : '−'}${decimal(Math.abs(m.delta))}`,
          ]),
        )
      : null,
    h('p', { class: 'hint' }, 'Factors'),
    factorList(r.factors, factors),
  ];
}

function factorList(codes: readonly string[], factors: ReadonlyMap<string, FactorInfo>): Child {
  if (codes.length === 0) return h('p', { class: 'muted' }, 'None.');
  return h(
    'ul',
    { class: 'factors' },
    ...codes.map((c) => {
      const f = factors.get(c);
      return h(
        'li',
        null,
        h('code', null, c),
        f ? h('span', { class: 'cat' }, f.category) : null,
        ' ',
        withCode(f?.meaning ?? ''),
      );
    }),
  );
}

function revenue(result: AnalysisResult): Child[] {
  const { monthly, basis } = result.estimated_revenue;
  const rate = basis.rate;
  return [
    h(
      'p',
      { class: 'big' },
      monthly === null
        ? 'No estimate: there is no public licence price for this kind of content.'
        : `${usd(monthly)} per month`,
    ),
    h(
      'dl',
      { class: 'facts', id: 'revenue-basis' },
      fact('Range (low – mid – high)', `${usd(basis.low)} – ${usd(basis.mid)} – ${usd(basis.high)} per month`),
      fact('Method', methodLabel(basis.method)),
      fact('Work type', `${basis.work_type} (from ${basis.work_type_source})`),
      fact(
        'Rate',
        rate
          ? `${rate.low === rate.high ? usd(rate.mid) : `${usd(rate.low)} – ${usd(rate.high)}`} ${rate.unit.replace(/^USD\s+/, '')}`
          : '—',
      ),
      fact(
        'Quantity',
        `${count(basis.quantity)} ${basis.unit}${basis.quantity === 1 ? '' : 's'} over ${basis.term_months} months`,
      ),
      fact('Deals', basis.deal_ids.length ? basis.deal_ids.map((d) => DEALS[d] ?? `deal ${d}`).join('; ') : '—'),
      fact(
        'Providers (P used: low, point, high)',
        basis.providers.length
          ? basis.providers.map((p) => `${p.provider} ${p.p_used.map((x) => decimal(x)).join(' / ')}`).join('; ')
          : 'none: no attribution source, so nothing is owed by anyone',
      ),
    ),
  ];
}

function fact(term: string, value: string): Child {
  return [h('dt', null, term), h('dd', null, value)];
}

/** A bar chart that is also a table: one row per searched dataset. */
/** The datasets this analysis searched: a remote corpus only when its search ended `searched` (not down, not off). */
function searchedIn(result: AnalysisResult, datasets: readonly DatasetInfo[]): readonly DatasetInfo[] {
  const searched = new Set(result.remote_corpora.filter((r) => r.outcome === 'searched').map((r) => r.dataset_id));
  return datasets.filter((d) => d.kind !== 'remote' || searched.has(d.id));
}

/** The remote corpora consulted whose search did not finish, in words ('' when none). */
function notSearched(result: AnalysisResult): string {
  const missed = result.remote_corpora.filter((r) => r.outcome !== 'searched');
  return missed.length
    ? ` Not searched: ${missed.map((r) => `${r.dataset_id} (${r.outcome.replace(/_/g, ' ')})`).join('; ')}.`
    : '';
}

function coverageChart(result: AnalysisResult, datasets: readonly DatasetInfo[]): Child {
  // results stored before the analysis left them out gave a corpus that answered nothing a coverage of 0
  const skipped = new Set(result.remote_corpora.filter(unanswered).map((r) => r.dataset_id));
  const ids = Object.keys(result.coverage).filter((id) => !skipped.has(id));
  if (ids.length === 0) return h('p', { class: 'muted' }, 'No dataset was searched.');
  const evidence = new Map(result.evidence.datasets.map((d) => [d.dataset_id, d]));
  return h(
    'figure',
    { class: 'chart' },
    h('figcaption', null, "Share of your text's words inside matched passages, per dataset"),
    h(
      'table',
      { id: 'coverage-chart' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'Dataset'),
          h('th', { scope: 'col' }, 'Coverage'),
          h('th', { scope: 'col', class: 'num' }, 'Longest run'),
          // the text is in the dataset: not the headline's "a model trained on it", which needs a documented link
          h('th', { scope: 'col', class: 'num' }, 'Confidence it is in the dataset'),
        ),
      ),
      h(
        'tbody',
        null,
        ...ids.map((id) => {
          const c = result.coverage[id];
          const bar = h('span', { class: 'fill' });
          bar.style.width = `${Math.max(0, Math.min(100, c.share * 100)).toFixed(1)}%`;
          const name = datasets.find((d) => d.id === id)?.name;
          const e = evidence.get(id);
          return h(
            'tr',
            null,
            h('th', { scope: 'row' }, id, name ? h('span', { class: 'note' }, ` ${name}`) : null),
            h(
              'td',
              { class: 'barcell' },
              h('span', { class: 'bar', 'aria-hidden': 'true' }, bar),
              ` ${percent(c.share)}`,
            ),
            h('td', { class: 'num' }, `${count(c.longest_run)} words`),
            // a dataset whose evidence does not count shows none, not the calibration's floor for the text's length
            h(
              'td',
              { class: 'num' },
              !e
                ? '—'
                : e.counted
                  ? percent(e.confidence)
                  : h(
                      'span',
                      {
                        class: 'note',
                        title: `Nothing checkable beyond chance (the floor for a text this long is ${percent(e.confidence)})`,
                      },
                      'no evidence',
                    ),
            ),
          );
        }),
      ),
    ),
    datasets.length
      ? h(
          'p',
          { class: 'note' },
          `Searched: ${searchedIn(result, datasets)
            .map((d) => `${d.id} (${count(d.documents)} documents, ${bytes(d.bytes)} of text)`)
            .join('; ')}.${notSearched(result)}`,
        )
      : null,
  );
}

function download(result: AnalysisResult): void {
  const url = URL.createObjectURL(new Blob([JSON.stringify(result, null, 2)], { type: 'application/json' }));
  const a = h('a', { href: url, download: `${result.analysis_id}.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
