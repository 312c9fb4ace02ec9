/**
 * The coverage strip: one bar along the whole work (inline SVG) with its sections' boundaries and a mark for every
 * passage found, so a reader sees at a glance where in the work a corpus or a model's training data holds its text.
 */
import { esc, num } from './html.js';

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

/**
 * The strip as an `<svg>` element: a `.bar`, a `.edge` line per section boundary (numbered above when there is room,
 * the title in its tooltip) and a `.mark` rectangle per passage.
 * @example
 * const marks = [{ start: 10, end: 90, label: 'p' }]
 * stripSvg({ label: 'books', kind: 'dataset', length: 1000, sections: [], marks })
 */
export function stripSvg(strip: Strip): string {
  const length = Math.max(1, strip.length);
  const x = (offset: number) => (Math.min(length, Math.max(0, offset)) / length) * WIDTH;
  const parts: string[] = [`<rect class="bar" x="0" y="${TOP}" width="${WIDTH}" height="${BAR}"/>`];
  strip.sections.forEach((s, i) => {
    const x0 = x(s.start);
    const wide = x(s.end) - x0;
    const title = `<title>${esc(`§${i + 1} ${s.title} (characters ${num(s.start)}–${num(s.end)})`)}</title>`;
    if (i > 0) parts.push(`<line class="edge" x1="${f(x0)}" y1="${TOP - 4}" x2="${f(x0)}" y2="${TOP + BAR}"/>`);
    if (wide >= 18) parts.push(`<text class="sec" x="${f(x0 + 2)}" y="${TOP - 4}">${title}§${i + 1}</text>`);
  });
  for (const m of strip.marks) {
    const x0 = x(m.start);
    const w = Math.max(MIN_MARK, x(m.end) - x0);
    const box = `x="${f(Math.min(x0, WIDTH - w))}" y="${TOP}" width="${f(w)}" height="${BAR}"`;
    parts.push(`<rect class="mark${m.faint ? ' short' : ''}" ${box}><title>${esc(m.label)}</title></rect>`);
  }
  const height = TOP + BAR + 2;
  const size = `viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}"`;
  const name = `role="img" aria-label="${esc(strip.label)}" preserveAspectRatio="none"`;
  return `<svg class="${strip.kind}" ${size} ${name}>${parts.join('')}</svg>`;
}

const f = (n: number) => n.toFixed(1);
