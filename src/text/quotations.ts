/**
 * Where a text marks something as quoted: the regions a reader sees as a quotation, in the caller's content (UTF-16
 * offsets, as every span of a result). `analyze` reads them to tell a work that quotes a known text from a work that
 * is one (src/services/analyze/quotations.ts), as a similarity report's "exclude quotes" does.
 *
 * What marks a quotation:
 * - **quotation marks**: straight `"…"`, curly `“…”` and `‘…’` (a closing `’` before a letter is an apostrophe),
 *   guillemets `«…»`, German `„…“`; a quotation left open runs to the end of its paragraph when the next paragraph
 *   opens with a mark (the convention of a quotation of several paragraphs, each opened and the last closed), and a
 *   stray mark otherwise marks nothing;
 * - **block quotes**: Markdown `>` lines, HTML `<blockquote>` and `<q>`;
 * - **an indented block** in plain text: two or more lines indented by two spaces or a tab, in a text whose other
 *   lines are not (a verse or a letter set off from the prose);
 * - **an attribution**: "as Lincoln said", "in the words of Dickens", "Jefferson once wrote:", "according to the
 *   Gospel of John", "to quote Shakespeare", "the Constitution begins:", "the line is Austen's:" mark the rest of
 *   their paragraph; "…, wrote Thoreau." and "… Emerson
 *   wrote." the text of the paragraph before them. The name is a capitalised name ("the Bible", "St. Paul",
 *   "Abraham Lincoln"); a pronoun is no attribution, and "said" after a quotation is fiction's dialogue tag, not one.
 */
import type { ContentType, ExtractedText } from './offset-map.js';

/** What marked a region as quoted. */
export type QuotationMark = 'quotation_marks' | 'block_quote' | 'indented_block' | 'attribution';

/** A region of the content a reader sees as quoted: `[start, end)` in the caller's content. */
export interface QuotedRegion {
  readonly start: number;
  readonly end: number;
  readonly by: QuotationMark;
  /** Who the text is attributed to, as the content names them (`by: 'attribution'` only). */
  readonly attributed_to?: string;
}

/** The most of a paragraph before or after an attribution that it marks, in characters. */
export const ATTRIBUTION_REACH = 1500;

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
  const read = paragraphs(text).filter(([from, to]) => !within || within.some(([s, e]) => s < to && e > from));
  const inText: QuotedRegion[] = [...markedRegions(text, read), ...attributedRegions(text, read)];
  if (type === 'text') inText.push(...indentedBlocks(text));
  const out: QuotedRegion[] = [];
  for (const r of inText) {
    const [start, end] = extracted.mapSpan(r.start, r.end);
    if (end > start) out.push({ ...r, start, end });
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

const OPENERS: Readonly<Record<string, string>> = { '“': '”', '«': '»', '„': '“', '‘': '’' };
/** A paragraph that goes on with a quotation: the next one opens with a quotation mark. */
const CONTINUED = /^\s*["“«„‘]/;
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
        if (c === '"' || (c in OPENERS && (c !== '‘' || !LETTER.test(text[i - 1] ?? ' ')))) {
          open = i;
          closer = c === '"' ? '"' : OPENERS[c];
        }
      } else if (c === closer && !(c === '’' && LETTER.test(text[i + 1] ?? ' '))) {
        out.push({ start: open + 1, end: i, by: 'quotation_marks' });
        open = -1;
      }
    }
    if (open >= 0 && to - open > 1 && CONTINUED.test(text.slice(to, to + 16)))
      out.push({ start: open + 1, end: to, by: 'quotation_marks' });
  }
  return out.filter((r) => r.end > r.start);
}

// A capitalised name of up to four words ("the Bible", "St. Paul", "Abraham Lincoln", "the Gospel of John").
const NAME = String.raw`((?:the\s+)?\p{Lu}[\p{L}.'’-]*(?:\s+(?:of\s+|de\s+|van\s+|von\s+)?\p{Lu}[\p{L}.'’-]*){0,3})`;
const VERB = String.raw`(?:said|says|wrote|writes|puts?\s+it|observed|declared|proclaimed|remarked|reminded\s+us|taught|tells\s+us|told\s+us|asked|begins|opens|reads)`;
const ADVERB = String.raw`(?:(?:once|famously|memorably|rightly|so\s+\p{Ll}+|himself|herself|also|later)\s+)?`;
/** Attributions that mark the text after them (to their paragraph's end). */
const BEFORE: readonly RegExp[] = [
  new RegExp(String.raw`\b(?:[Aa]s|[Ww]hat)\s+${NAME}\s+${ADVERB}${VERB}\b`, 'gu'),
  new RegExp(String.raw`\b[Ii]n\s+the\s+(?:\p{Ll}+\s+)?words\s+of\s+${NAME}`, 'gu'),
  new RegExp(String.raw`\b(?:[Aa]ccording\s+to|[Qq]uoting|[Qq]uoted|[Tt]o\s+quote)\s+${NAME}`, 'gu'),
  // "is Austen's:", "Dickens's own words:"
  new RegExp(String.raw`${NAME}['’]s?(?:\s+(?:own\s+)?(?:words|line|lines|sentence|opening|verse))?\s*:`, 'gu'),
  new RegExp(String.raw`${NAME}\s+${ADVERB}${VERB}\s*(?:[^\n.:]{0,60})?:`, 'gu'),
  new RegExp(String.raw`\b(?:wrote|said|declared|observed)\s+${NAME}\s*:`, 'gu'),
];
/** Attributions that mark the text before them: "…," wrote Thoreau / "…" Emerson wrote (never "said": dialogue). */
const AFTER: readonly RegExp[] = [
  new RegExp(String.raw`[,.;!?]["”’»]?\s*(?:wrote|writes|declared|observed)\s+${NAME}`, 'gu'),
  new RegExp(String.raw`[,.;!?]["”’»]?\s*${NAME}\s+(?:once\s+|famously\s+)?(?:wrote|writes)\b`, 'gu'),
];
/** Words that start a capitalised phrase but name no one. */
const NOT_NAMES = new Set(['I', 'He', 'She', 'It', 'We', 'They', 'You', 'This', 'That', 'There', 'Everyone', 'Nobody']);
/** Capitalised words that open a sentence before the name ("When Lincoln wrote:"): left out of the name. */
const OPENING_WORDS = new Set(['When', 'Then', 'And', 'But', 'So', 'As', 'Later', 'Once', 'In', 'On', 'At', 'After']);

/** The regions an attribution marks (see the module comment), in the text's offsets. */
function attributedRegions(text: string, read: ReadonlyArray<[number, number]>): QuotedRegion[] {
  const out: QuotedRegion[] = [];
  for (const [from, to] of read) {
    const para = text.slice(from, to);
    for (const re of BEFORE) {
      re.lastIndex = 0;
      for (let m = re.exec(para); m !== null; m = re.exec(para)) {
        const name = nameOf(m[1]);
        const start = from + m.index + m[0].length;
        if (name && start < to) out.push(region(start, Math.min(to, start + ATTRIBUTION_REACH), name));
      }
    }
    for (const re of AFTER) {
      re.lastIndex = 0;
      for (let m = re.exec(para); m !== null; m = re.exec(para)) {
        const name = nameOf(m[1]);
        const end = from + m.index + 1;
        if (name && end > from) out.push(region(Math.max(from, end - ATTRIBUTION_REACH), end, name));
      }
    }
  }
  return out;
}

function region(start: number, end: number, name: string): QuotedRegion {
  return { start, end, by: 'attribution', attributed_to: name };
}

/** The name an attribution gives, or null for a pronoun or a word that names no one. */
function nameOf(raw: string | undefined): string | null {
  if (!raw) return null;
  let words = raw.replace(/\s+/g, ' ').trim().split(' ');
  while (words.length > 0 && OPENING_WORDS.has(words[0])) words = words.slice(1);
  const first = words[0] === 'the' ? words[1] : words[0];
  return first === undefined || NOT_NAMES.has(first) ? null : words.join(' ');
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
