/**
 * A PDF's text layer → the text a reader sees, in three steps on plain data (pdf.js's text items, reduced to what
 * the steps use), so each is tested without a PDF:
 *
 * 1. {@link itemsToLines}: the items of a page in content order, joined into lines — a new line where pdf.js marks
 *    one or the baseline moves by more than half the font size; a space between two items where the gap says so.
 * 2. {@link removeRunningLines}: running headers and footers — a line among the two topmost or the two bottommost
 *    of a page that recurs there (digits aside, so page numbers match) on at least 40 % of the pages (and three):
 *    40 % rather than a majority because a book's heads alternate, the book's title on one side, the chapter's on
 *    the other; never a line in larger type than the text's (a chapter's title opening its page).
 * 3. {@link joinPages}: the lines joined, a newline between lines, a blank line where the vertical gap is over
 *    1.5 times the document's usual line spacing, a newline between pages; a word hyphenated at a line's end
 *    ("exam-" then "ple…") joined where the hyphen follows a letter and the next line starts with a lowercase one.
 */

import type { DocumentPage } from './types.js';

/** A text item of pdf.js: its string, baseline origin, advance width and font size, and its end-of-line mark. */
export interface PdfTextItem {
  readonly str: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly size: number;
  readonly hasEOL: boolean;
}

/** A line of a page: its text, baseline and font size. */
export interface PdfLine {
  readonly text: string;
  readonly y: number;
  readonly size: number;
}

/**
 * The lines of a page's items, in content order (no sorting: a second column stays after the first).
 * @example itemsToLines([{ str: 'Hello', x: 72, y: 700, width: 25, size: 11, hasEOL: true }])[0].text // 'Hello'
 */
export function itemsToLines(items: readonly PdfTextItem[]): PdfLine[] {
  const lines: PdfLine[] = [];
  let text = '';
  let y = 0;
  let size = 0;
  let right = 0;
  let ended = false;
  const close = () => {
    const trimmed = text.trim();
    if (trimmed !== '') lines.push({ text: trimmed, y, size });
    text = '';
  };
  for (const item of items) {
    const s = item.size > 0 ? item.size : 1;
    if (item.str !== '') {
      if (text !== '' && (ended || Math.abs(item.y - y) > 0.5 * Math.max(s, size))) close();
      if (text === '') {
        text = item.str;
        y = item.y;
        size = s;
      } else {
        const gap = item.x - right;
        if (gap > 0.2 * s && !/\s$/.test(text) && !/^\s/.test(item.str)) text += ' ';
        text += item.str;
        size = Math.max(size, s);
      }
      right = item.x + item.width;
      ended = false;
    }
    if (item.hasEOL) ended = true;
  }
  close();
  return lines;
}

/** A line's key for recurrence: whitespace collapsed, every run of digits one '#'. */
function runningKey(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\d+/g, '#').trim();
}

/** The indexes of the two topmost and the two bottommost lines of a page. */
function edges(lines: readonly PdfLine[]): { top: number[]; bottom: number[] } {
  const order = lines.map((_, i) => i).sort((a, b) => lines[b].y - lines[a].y);
  return { top: order.slice(0, 2), bottom: order.slice(-2) };
}

/**
 * The pages' lines without their running headers and footers.
 * @example removeRunningLines(pages).every((p, i) => p.length <= pages[i].length) // true
 */
export function removeRunningLines(pages: readonly PdfLine[][]): PdfLine[][] {
  const needed = Math.max(3, Math.ceil(0.4 * pages.length));
  const body = medianSize(pages);
  const counts = new Map<string, number>();
  const keyed = pages.map((lines) => {
    const { top, bottom } = edges(lines);
    const keys = new Map<number, string>();
    for (const [edge, indexes] of [
      ['top', top],
      ['bottom', bottom],
    ] as const) {
      for (const i of indexes) {
        const key = runningKey(lines[i].text);
        // a running head is a short line, in type no larger than the text's: a larger one ("Chapter 3") is a title
        if (key.length > 100 || lines[i].size > 1.15 * body) continue;
        keys.set(i, `${edge}\u0000${key}`);
      }
    }
    // one count per page and key, whichever of its edge lines carries it
    for (const key of new Set(keys.values())) counts.set(key, (counts.get(key) ?? 0) + 1);
    return keys;
  });
  return pages.map((lines, p) =>
    lines.filter((_, i) => {
      const key = keyed[p].get(i);
      return key === undefined || (counts.get(key) ?? 0) < needed;
    }),
  );
}

/** The font size of the text: the median over every line. */
function medianSize(pages: readonly PdfLine[][]): number {
  const sizes = pages.flatMap((lines) => lines.map((l) => l.size)).sort((a, b) => a - b);
  return sizes.length === 0 ? 0 : sizes[sizes.length >> 1];
}

/** A line that ends with a hyphen after a letter, so that a next line starting in lowercase continues its word. */
const HYPHENATED = /\p{L}[-\u2010\u00ad]$/u;
const LOWERCASE_START = /^\p{Ll}/u;

/** The usual distance between two lines' baselines: the median of the downward steps between consecutive lines. */
function lineSpacing(pages: readonly PdfLine[][]): number {
  const steps: number[] = [];
  for (const lines of pages) {
    for (let i = 1; i < lines.length; i++) {
      const dy = lines[i - 1].y - lines[i].y;
      if (dy > 0) steps.push(dy);
    }
  }
  if (steps.length === 0) return Number.POSITIVE_INFINITY;
  steps.sort((a, b) => a - b);
  return steps[steps.length >> 1];
}

/**
 * The text of the pages' lines and where each page's text lies in it.
 * @example joinPages([[{ text: 'an exam-', y: 700, size: 11 }, { text: 'ple', y: 686, size: 11 }]]).text // 'an example'
 */
export function joinPages(pages: readonly PdfLine[][]): { text: string; pages: DocumentPage[] } {
  const spacing = lineSpacing(pages);
  const parts: string[] = [];
  const out: DocumentPage[] = [];
  let length = 0;
  let pending: string | undefined; // the last line, not yet written: it may still lose its hyphen
  const write = (s: string) => {
    parts.push(s);
    length += s.length;
  };
  pages.forEach((lines, p) => {
    let start: number | undefined;
    lines.forEach((line, i) => {
      let at: number;
      if (pending !== undefined && HYPHENATED.test(pending) && LOWERCASE_START.test(line.text)) {
        pending = pending.slice(0, -1);
        at = length + pending.length;
        pending += line.text;
        // a word carried over from the page before: that page (and any empty one between) ends where this page's
        // part of the word begins
        for (let k = out.length - 1; i === 0 && k >= 0 && out[k].end > at; k--) {
          out[k] = { number: out[k].number, start: Math.min(out[k].start, at), end: at };
        }
      } else {
        if (pending !== undefined) {
          const dy = i === 0 ? 0 : lines[i - 1].y - line.y;
          write(pending);
          write(dy > 1.5 * spacing ? '\n\n' : '\n');
        }
        at = length;
        pending = line.text;
      }
      start ??= at;
    });
    const end = length + (pending?.length ?? 0);
    out.push({ number: p + 1, start: start ?? end, end });
  });
  if (pending !== undefined) write(pending);
  return { text: parts.join(''), pages: out };
}
