/**
 * The coverage strip: one bar along the whole work (inline SVG) with its sections' boundaries and a mark for every
 * passage found, so a reader sees at a glance where in the work a corpus or a model's training data holds its text.
 */
import { esc, num } from './html.js';
import { NV_BLOCK_WORDS } from '../memorization/nv-blocks.js';

/** A section of the work as the strip draws it: its title and span (UTF-16 offsets of the analysed text). */
export interface StripSection {
  readonly title: string;
  readonly start: number;
  readonly end: number;
}

/** A passage as the strip marks it. */
export interface StripMark {
  readonly start: number;
  readonly end: number;
  /** Its tooltip (the dataset, document and span). */
  readonly label: string;
  /** Drawn fainter (class `short`): a model's block too short to count in its nv-recall. */
  readonly faint?: boolean;
}

/** What one strip shows. */
export interface Strip {
  /** The strip's accessible name. */
  readonly label: string;
  /**
   * `dataset` (one corpus's matches), `model` (every corpus linked to the model) or `extraction` (what a model wrote
   * out of the work itself: its near-verbatim blocks).
   */
  readonly kind: 'dataset' | 'model' | 'extraction';
  /** The work's length (UTF-16 units): the bar's whole width. */
  readonly length: number;
  readonly sections: readonly StripSection[];
  readonly marks: readonly StripMark[];
}

const WIDTH = 960;
const TOP = 14;
const BAR = 22;
/** Narrowest mark drawn: a passage of a few words in a book would otherwise vanish. */
const MIN_MARK = 1.5;

/** A section boundary as drawn: its x, and its number's label when there is room for it. */
export interface StripEdge {
  readonly index: number;
  readonly x: number;
  /** Drawn as a line (every section but the first). */
  readonly line: boolean;
  /** Where the number `§i` goes, or null when the section is too narrow for it. */
  readonly labelX: number | null;
  /** The tooltip: `§i title (characters a–b)`. */
  readonly title: string;
}

/** A mark as drawn: its box, and the passage it stands for (its index in `marks`). */
export interface StripBox {
  readonly index: number;
  readonly x: number;
  readonly width: number;
  readonly faint: boolean;
  readonly label: string;
}

/**
 * Where everything of a strip goes, in the units of its `viewBox` (`width` × `height`): the bar at `top` of height
 * `bar`, a line per section boundary and a box per mark. The report's SVG and the web app draw from it.
 * @example
 * const g = stripGeometry({ label: 'm', kind: 'extraction', length: 1000, sections: [], marks: [{ start: 0, end: 500, label: 'b' }] })
 * g.marks[0].width // 480
 */
export function stripGeometry(strip: Strip): {
  readonly width: number;
  readonly height: number;
  readonly top: number;
  readonly bar: number;
  readonly edges: StripEdge[];
  readonly marks: StripBox[];
} {
  const length = Math.max(1, strip.length);
  const x = (offset: number) => (Math.min(length, Math.max(0, offset)) / length) * WIDTH;
  const edges = strip.sections.map((s, i) => {
    const x0 = x(s.start);
    return {
      index: i,
      x: x0,
      line: i > 0,
      labelX: x(s.end) - x0 >= 18 ? x0 + 2 : null,
      title: `§${i + 1} ${s.title} (characters ${num(s.start)}–${num(s.end)})`,
    };
  });
  const marks = strip.marks.map((m, i) => {
    const x0 = x(m.start);
    const w = Math.max(MIN_MARK, x(m.end) - x0);
    return { index: i, x: Math.min(x0, WIDTH - w), width: w, faint: m.faint === true, label: m.label };
  });
  return { width: WIDTH, height: TOP + BAR + 2, top: TOP, bar: BAR, edges, marks };
}

/**
 * The strip as an `<svg>` element: a `.bar`, a `.edge` line per section boundary (numbered above when there is room,
 * the title in its tooltip) and a `.mark` rectangle per passage.
 * @example
 * const marks = [{ start: 10, end: 90, label: 'p' }]
 * stripSvg({ label: 'books', kind: 'dataset', length: 1000, sections: [], marks })
 */
export function stripSvg(strip: Strip): string {
  const g = stripGeometry(strip);
  const parts: string[] = [`<rect class="bar" x="0" y="${g.top}" width="${g.width}" height="${g.bar}"/>`];
  for (const e of g.edges) {
    const title = `<title>${esc(e.title)}</title>`;
    if (e.line)
      parts.push(`<line class="edge" x1="${f(e.x)}" y1="${g.top - 4}" x2="${f(e.x)}" y2="${g.top + g.bar}"/>`);
    if (e.labelX !== null)
      parts.push(`<text class="sec" x="${f(e.labelX)}" y="${g.top - 4}">${title}§${e.index + 1}</text>`);
  }
  for (const m of g.marks) {
    const box = `x="${f(m.x)}" y="${g.top}" width="${f(m.width)}" height="${g.bar}"`;
    parts.push(`<rect class="mark${m.faint ? ' short' : ''}" ${box}><title>${esc(m.label)}</title></rect>`);
  }
  const size = `viewBox="0 0 ${g.width} ${g.height}" width="${g.width}" height="${g.height}"`;
  const name = `role="img" aria-label="${esc(strip.label)}" preserveAspectRatio="none"`;
  return `<svg class="${strip.kind}" ${size} ${name}>${parts.join('')}</svg>`;
}

const f = (n: number) => n.toFixed(1);

/** What {@link extractionStrip} reads of an extraction (`WorkExtractionResult`, or its JSON). */
export interface ExtractionStripInput {
  readonly model: string;
  readonly blocks: ReadonlyArray<{
    readonly start: number;
    readonly end: number;
    readonly words: number;
    readonly calls: readonly number[];
    readonly prompt_variant: string;
  }>;
  readonly sections: ReadonlyArray<{ readonly start: number; readonly end: number; readonly title?: string }>;
}

/**
 * The strip of an extraction (`memorization.extractWork`'s result): a mark per near-verbatim block (faint under
 * {@link NV_BLOCK_WORDS} words: it does not count in nv-recall) with its words, span, calls and prompt, over the
 * work's `length` and `sections` (by default the sections the extraction measured, untitled ones numbered).
 * @example const strip = extractionStrip(result, text.length)
 */
export function extractionStrip(x: ExtractionStripInput, length: number, sections?: readonly StripSection[]): Strip {
  return {
    label: `Blocks of the work written out by ${x.model}`,
    kind: 'extraction',
    length,
    sections:
      sections ?? x.sections.map((s, i) => ({ title: s.title ?? `Section ${i + 1}`, start: s.start, end: s.end })),
    marks: x.blocks.map((b) => ({
      start: b.start,
      end: b.end,
      faint: b.words < NV_BLOCK_WORDS,
      label:
        `${num(b.words)} words · characters ${num(b.start)}–${num(b.end)} · ` +
        `call${b.calls.length === 1 ? '' : 's'} ${b.calls.join(', ')} · prompt ${b.prompt_variant}`,
    })),
  };
}
