/**
 * Where a text marks something as quoted: the regions a reader sees as a quotation, in the caller's content (UTF-16
 * offsets, as every span of a result). `analyze` reads them to tell a work that quotes a known text from a work that
 * is one (src/services/analyze/quotations.ts), as a similarity report's "exclude quotes" does.
 *
 * What marks a quotation:
 * - **quotation marks**: straight `"…"`, curly `“…”` and `‘…’` (a closing `’` before a letter is an apostrophe),
 *   guillemets `«…»` (with or without inner spaces), `»…«` and `‹…›`, low-high `„…“`, `„…”` and `‚…‘`, corner brackets
 *   `「…」` and `『…』`; a quotation left open runs to the end of its paragraph when the next paragraph opens with a
 *   mark (the convention of a quotation of several paragraphs, each opened and the last closed), and a stray mark
 *   otherwise marks nothing;
 * - **dialogue dashes**: a line opened by `—` or `–` (French, Spanish, Russian, Polish dialogue), to the dash that
 *   opens the narrator's words ("—Ven aquí —dijo Pedro—.") or the line's end; each line is a speech of its own;
 * - **block quotes**: Markdown `>` lines, HTML `<blockquote>` and `<q>`;
 * - **an indented block** in plain text: two or more lines indented by two spaces or a tab, in a text whose other
 *   lines are not (a verse or a letter set off from the prose);
 * - **an attribution** (./attributions.ts): "as Lincoln said", "wie Goethe schrieb", "comme l'écrit Hugo", "Mark
 *   Twain wrote that", 子曰 mark the rest of their paragraph (or the next one); "…, wrote Thoreau." and "So wrote
 *   Gibbon" the text before them (or the paragraph before).
 */
import { ATTRIBUTION_REACH, attributionsIn } from './attributions.js';
import type { ContentType, ExtractedText } from './offset-map.js';
import { QUOTATION_MARKS } from './quotation-marks.js';

export { ATTRIBUTION_REACH };

/** What marked a region as quoted. */
export type QuotationMark = 'quotation_marks' | 'block_quote' | 'indented_block' | 'attribution';

/** A region of the content a reader sees as quoted: `[start, end)` in the caller's content. */
export interface QuotedRegion {
  readonly start: number;
  readonly end: number;
  readonly by: QuotationMark;
  /** Who the text is attributed to, as the content names them (`by: 'attribution'` only). */
  readonly attributed_to?: string;
  /** The attribution's own words, `[start, end)` (`by: 'attribution'` only). */
  readonly cue?: readonly [number, number];
}

/**
 * The quoted regions of `content` (see the module comment), in content offsets, sorted by start. `extracted` is its
 * readable text (`extractText(content, type)`): marks and attributions are read there and mapped back; block quotes
 * are read from the markup itself. `within` (offsets of the readable text): only the paragraphs that overlap one of these
 * spans are read — a region lies in one paragraph, so no region over a span is missed (a long text with a few matches
 * reads a few paragraphs).
 * @example
 * quotedRegions('She said: "We the People" and left.', 'text', extractText('She said: "We the People" and left.', 'text'))
 * // [{ start: 11, end: 24, by: 'quotation_marks' }]
 */
export function quotedRegions(
  content: string,
  type: ContentType,
  extracted: ExtractedText,
  within?: ReadonlyArray<readonly [number, number]>,
): QuotedRegion[] {
  const text = extracted.text;
  const all = paragraphs(text);
  const hit = all.map(([from, to]) => !within || within.some(([s, e]) => s < to && e > from));
  const read = all.filter((_, i) => hit[i]);
  const inText: QuotedRegion[] = [...markedRegions(text, read), ...dialogueDashes(text, read)];
  // an attribution reaches the paragraph beside it: the neighbours of a paragraph read are read for one, and
  // what they mark is kept where it lies in a paragraph read
  const inRead = (start: number, end: number) => read.some(([from, to]) => start < to && end > from);
  for (let i = 0; i < all.length; i++) {
    // a paragraph read: all its cues; the one before or after it: the cues at its edge that reach across
    const cues = hit[i] || (hit[i - 1] && hit[i + 1]) ? 'all' : hit[i + 1] ? 'end' : hit[i - 1] ? 'start' : null;
    if (cues === null) continue;
    for (const r of attributionsIn(text, all, i, cues))
      if (inRead(r.start, r.end)) inText.push({ ...r, by: 'attribution' });
  }
  if (type === 'text') inText.push(...indentedBlocks(text));
  const out: QuotedRegion[] = [];
  for (const r of inText) {
    const [start, end] = extracted.mapSpan(r.start, r.end);
    const cue = r.cue ? { cue: extracted.mapSpan(r.cue[0], r.cue[1]) } : {};
    if (end > start) out.push({ ...r, start, end, ...cue });
  }
  if (type === 'markdown') out.push(...markdownBlockQuotes(content));
  if (type === 'html') out.push(...htmlQuotes(content));
  return out.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** Paragraphs of `text`: `[start, end)` pieces between blank lines. */
function paragraphs(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const blank = /\n[ \t\r]*\n/g;
  let from = 0;
  for (let m = blank.exec(text); m !== null; m = blank.exec(text)) {
    if (m.index > from) out.push([from, m.index]);
    from = m.index + m[0].length;
  }
  if (from < text.length) out.push([from, text.length]);
  return out;
}

/** Each opening mark and the marks that close it. */
const OPENERS = QUOTATION_MARKS;
/** A paragraph that goes on with a quotation: the next one opens with a quotation mark. */
const CONTINUED = /^\s*["“«»„‚‘「『]/;
const LETTER = /[\p{L}\p{N}]/u;

/**
 * The regions inside quotation marks, paragraph by paragraph. A quotation left open runs to its paragraph's end only
 * where the next paragraph opens with a quotation mark (a quotation of several paragraphs); otherwise the mark is
 * unpaired (a stray or a cut) and marks nothing.
 */
function markedRegions(text: string, read: ReadonlyArray<[number, number]>): QuotedRegion[] {
  const out: QuotedRegion[] = [];
  for (const [from, to] of read) {
    let open = -1;
    let closer = '';
    for (let i = from; i < to; i++) {
      const c = text[i];
      if (open < 0) {
        if (c === '"' || (c in OPENERS && opens(text, i))) {
          open = i;
          closer = c === '"' ? '"' : OPENERS[c];
        }
      } else if (closer.includes(c) && !(c === '’' && LETTER.test(text[i + 1] ?? ' '))) {
        out.push({ start: open + 1, end: i, by: 'quotation_marks' });
        open = -1;
      }
    }
    if (open >= 0 && to - open > 1 && CONTINUED.test(text.slice(to, to + 16)))
      out.push({ start: open + 1, end: to, by: 'quotation_marks' });
  }
  return out.filter((r) => r.end > r.start);
}

/**
 * Whether the mark at `i` opens a quotation: `‘` not after a letter (there it is an apostrophe), `»` not before a
 * space (there it closes a French quotation whose opening was not seen).
 */
function opens(text: string, i: number): boolean {
  if (text[i] === '‘') return !LETTER.test(text[i - 1] ?? ' ');
  if (text[i] === '»') return !/\s/.test(text[i + 1] ?? ' ');
  return true;
}

/** A line opened by a dialogue dash: the speech runs to the dash that opens the narrator's words, or the line's end. */
const DASH_LINE = /^[ \t]*[—–―][ \t\u00a0]*(?=\S)/gmu;
const NARRATOR_DASH = /\s[—–―]/u;

/** The speeches of lines opened by a dialogue dash, each a region of its own (a turn of a dialogue). */
function dialogueDashes(text: string, read: ReadonlyArray<[number, number]>): QuotedRegion[] {
  const out: QuotedRegion[] = [];
  for (const [from, to] of read) {
    const para = text.slice(from, to);
    DASH_LINE.lastIndex = 0;
    for (let m = DASH_LINE.exec(para); m !== null; m = DASH_LINE.exec(para)) {
      const start = m.index + m[0].length;
      const nl = para.indexOf('\n', start);
      const line = para.slice(start, nl < 0 ? para.length : nl);
      const cut = NARRATOR_DASH.exec(line);
      const end = start + (cut ? cut.index : line.trimEnd().length);
      if (end > start) out.push({ start: from + start, end: from + end, by: 'quotation_marks' });
    }
  }
  return out;
}

/** Blocks of two or more indented lines in a text whose other lines are not indented. */
function indentedBlocks(text: string): QuotedRegion[] {
  const lines: Array<{ start: number; end: number; indented: boolean; blank: boolean }> = [];
  for (let start = 0; start <= text.length; ) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(start, end);
    lines.push({ start, end, indented: /^(?: {2,}|\t)\S/.test(line), blank: line.trim() === '' });
    if (nl < 0) break;
    start = nl + 1;
  }
  if (!lines.some((l) => !l.indented && !l.blank)) return [];
  const out: QuotedRegion[] = [];
  for (let i = 0; i < lines.length; ) {
    if (!lines[i].indented) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < lines.length && (lines[j + 1].indented || (lines[j + 1].blank && lines[j + 2]?.indented))) j++;
    if (lines.slice(i, j + 1).filter((l) => l.indented).length >= 2)
      out.push({ start: lines[i].start, end: lines[j].end, by: 'indented_block' });
    i = j + 1;
  }
  return out;
}

/** Runs of Markdown block-quote lines (`>` after at most three spaces), in the content's offsets. */
function markdownBlockQuotes(content: string): QuotedRegion[] {
  const out: QuotedRegion[] = [];
  const line = /^ {0,3}>.*$/gm;
  for (let m = line.exec(content); m !== null; m = line.exec(content)) {
    const start = m.index;
    const end = m.index + m[0].length;
    const last = out[out.length - 1];
    // consecutive lines are one block quote
    if (last && content.slice(last.end, start).trim() === '' && !content.slice(last.end, start).includes('\n\n'))
      out[out.length - 1] = { ...last, end };
    else out.push({ start, end, by: 'block_quote' });
  }
  return out;
}

/** The contents of `<blockquote>` and `<q>` elements (nested ones inside the outermost), in the content's offsets. */
function htmlQuotes(content: string): QuotedRegion[] {
  const out: QuotedRegion[] = [];
  const tag = /<(\/?)(blockquote|q)\b[^>]*>/gi;
  const depth = { blockquote: 0, q: 0 };
  const opened = { blockquote: -1, q: -1 };
  for (let m = tag.exec(content); m !== null; m = tag.exec(content)) {
    const name = m[2].toLowerCase() as 'blockquote' | 'q';
    if (m[1] === '') {
      if (depth[name]++ === 0) opened[name] = m.index + m[0].length;
    } else if (depth[name] > 0 && --depth[name] === 0) {
      out.push({ start: opened[name], end: m.index, by: 'block_quote' });
    }
  }
  // an element left open runs to the end, as a browser shows it
  for (const name of ['blockquote', 'q'] as const)
    if (depth[name] > 0) out.push({ start: opened[name], end: content.length, by: 'block_quote' });
  return out.filter((r) => r.end > r.start);
}
