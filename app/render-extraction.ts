/**
 * What a model wrote out of a work (an `extract` job's result, `memorization.extractWork`): the work report's strip
 * drawn in the page — the bar is the whole work with its sections' boundaries, a mark per near-verbatim block (faint
 * under 100 words: not counted in nv-recall) — with the share, calls and transcript digest above it. A mark is a
 * button: hovering shows its span and calls, a click (or Enter) shows the block's generated text beside the work's own
 * text of the span, when the page has it. The geometry is the report's (`stripGeometry` of `trainprint/evidence`), so
 * the page and the downloaded report draw the same strip. That entry is imported when the first strip is drawn, not
 * with the page: it loads the library, which the page's own thread otherwise never does.
 */
import { fill, h } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';

/** The fields of an extraction's result the strip reads (the result as the API answers it). */
export interface ExtractionView {
  readonly model: string;
  readonly words: number;
  readonly nv_recall: number;
  readonly nv_recall_50: number;
  readonly calls: number;
  readonly budget_calls: number;
  readonly refusals: number;
  readonly stopped: string;
  readonly blocks: ReadonlyArray<{
    readonly start: number;
    readonly end: number;
    readonly words: number;
    readonly generated: string;
    readonly calls: readonly number[];
    readonly prompt: string;
    readonly prompt_variant: string;
  }>;
  readonly sections: ReadonlyArray<{ readonly start: number; readonly end: number; readonly title?: string }>;
  readonly record: { readonly transcript_sha256: string };
}

/** Whether `v` has the fields of an extraction's result the strip draws. */
export function isExtraction(v: unknown): v is ExtractionView {
  const x = v as Partial<ExtractionView> | null;
  return (
    !!x &&
    typeof x === 'object' &&
    Array.isArray(x.blocks) &&
    Array.isArray(x.sections) &&
    typeof x.nv_recall === 'number' &&
    typeof x.record?.transcript_sha256 === 'string'
  );
}

const pct = (x: number) => `${(Math.round(x * 1000) / 10).toString()} %`;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, title?: string) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (title !== undefined) {
    const t = document.createElementNS(SVG, 'title');
    t.textContent = title;
    el.appendChild(t);
  }
  return el;
}

/**
 * The strip of `x` as a figure (a placeholder replaced by it once the geometry's entry has loaded). `text` is the work's text when the page has it (the item submitted): a block's panel
 * then shows the work's span beside what the model wrote.
 * @example rows.append(extractionFigure(result, item.text))
 */
export function extractionFigure(x: ExtractionView, text?: string): HTMLElement {
  const slot = h('div', { class: 'extraction-slot' }, 'Drawing what the model wrote out…');
  import('../src/entries/evidence.js').then(
    (evidence) => slot.replaceWith(drawExtraction(evidence, x, text)),
    (e: unknown) => fill(slot, `The strip could not be drawn: ${e instanceof Error ? e.message : String(e)}`),
  );
  return slot;
}

/** The figure, with the report's geometry. */
function drawExtraction(
  { extractionStrip, stripGeometry }: typeof import('../src/entries/evidence.js'),
  x: ExtractionView,
  text: string | undefined,
): HTMLElement {
  const length = text?.length ?? Math.max(1, x.sections[x.sections.length - 1]?.end ?? 1);
  const strip = extractionStrip(x, length);
  const g = stripGeometry(strip);
  const chart = svg('svg', {
    class: 'extraction-strip',
    viewBox: `0 0 ${g.width} ${g.height}`,
    preserveAspectRatio: 'none',
    role: 'group',
    'aria-label': strip.label,
  });
  chart.appendChild(svg('rect', { class: 'bar', x: 0, y: g.top, width: g.width, height: g.bar }));
  for (const e of g.edges) {
    if (e.line)
      chart.appendChild(svg('line', { class: 'edge', x1: e.x, y1: g.top - 4, x2: e.x, y2: g.top + g.bar }, e.title));
    if (e.labelX !== null) {
      const t = svg('text', { class: 'sec', x: e.labelX, y: g.top - 4 }, e.title);
      t.append(`§${e.index + 1}`);
      chart.appendChild(t);
    }
  }
  const panel = h('div', { class: 'extraction-block', hidden: true, 'aria-live': 'polite' });
  const show = (k: number) => {
    const b = x.blocks[k];
    for (const m of chart.querySelectorAll('.mark')) m.setAttribute('aria-pressed', String(m === marks[k]));
    panel.hidden = false;
    fill(
      panel,
      h('p', { class: 'extraction-block-spans' }, g.marks[k].label),
      h('p', null, 'What the model wrote:'),
      h('blockquote', { class: 'doc generated' }, b.generated),
      text === undefined
        ? null
        : [h('p', null, 'The work there:'), h('blockquote', { class: 'doc passage' }, text.slice(b.start, b.end))],
      h('p', { class: 'note' }, `Prompt (${b.prompt_variant}): `, h('q', null, b.prompt)),
    );
  };
  const marks = g.marks.map((m) => {
    const r = svg(
      'rect',
      {
        class: `mark${m.faint ? ' short' : ''}`,
        x: m.x,
        y: g.top,
        width: m.width,
        height: g.bar,
        tabindex: 0,
        role: 'button',
        'aria-pressed': 'false',
        'data-block': m.index,
        'aria-label': m.label,
      },
      m.label,
    );
    r.addEventListener('click', () => show(m.index));
    r.addEventListener('keydown', (e) => {
      if ((e as KeyboardEvent).key === 'Enter' || (e as KeyboardEvent).key === ' ') {
        e.preventDefault();
        show(m.index);
      }
    });
    chart.appendChild(r);
    return r;
  });
  const long = g.marks.filter((m) => !m.faint).length;
  const caption =
    `${x.model} wrote out ${pct(x.nv_recall)} of the work in ${long} near-verbatim block${long === 1 ? '' : 's'} of ` +
    `≥ 100 words (≥ 50 words: ${pct(x.nv_recall_50)}) · ${x.calls} of ${x.budget_calls} calls, ${x.refusals} refused` +
    `${x.stopped === 'done' ? '' : `, stopped: ${x.stopped}`}`;
  return h(
    'figure',
    { class: 'extraction' },
    h('figcaption', { class: 'extraction-caption' }, caption),
    chart,
    h(
      'p',
      { class: 'note' },
      x.blocks.length
        ? 'Each mark is a block the model wrote out (fainter: under 100 words); choose one to read it.'
        : 'The model wrote out no block of 50 words or more.',
      ' Transcript ',
      h('code', null, x.record.transcript_sha256),
    ),
    panel,
  );
}
