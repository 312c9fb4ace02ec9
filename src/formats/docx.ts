/**
 * DOCX → text: the paragraphs (`w:p`) of the main document part in order, one a line, a run of empty paragraphs
 * kept as one blank line; inside a paragraph the text runs (`w:t`), tabs (`w:tab`), line breaks (`w:br`, `w:cr`) and
 * non-breaking hyphens. A paragraph in a heading style (Heading 1–9 or Title, by the style's name or outline level in
 * `styles.xml`, or by its id where there is no styles part) starts a section titled with its text.
 *
 * Left out as a reader of the page would not see them in the body: the fallback copy of markup-compatibility
 * content (`mc:Fallback`, which repeats `mc:Choice`), text moved away (`w:moveFrom`) and deleted (`w:del`) under
 * tracked changes, field instructions. Headers, footers, footnotes and comments are parts of their own, not read.
 *
 * A hand-written walk rather than a library (mammoth): it needs only the tag scanner, keeps the offsets of headings
 * exactly, inflates through the same bounded zip reader as EPUB, and adds no dependency.
 */

import { type ExtractionBudget, pause, SLICE_MS } from './budget.js';
import { invalid } from './limits.js';
import { finishExtraction, type SectionStart } from './result.js';
import type { DocumentExtraction } from './types.js';
import { attr, withoutDoctype, type XmlTag, xmlText, xmlTags } from './xml.js';
import { openZip, type ZipArchive } from './zip.js';

const WORDPROCESSING = [
  'http://schemas.openxmlformats.org/wordprocessingml/2006/main',
  'http://purl.oclc.org/ooxml/wordprocessingml/main',
];
const MARKUP_COMPATIBILITY = 'http://schemas.openxmlformats.org/markup-compatibility/2006';
const HEADING_NAME = /^(heading [1-9]|title)$/i;
const HEADING_ID = /^(heading[1-9]|title)$/i;

/** The OLE compound file signature: an encrypted Office document (or a Word 97–2003 .doc), not a zip. */
const COMPOUND_FILE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/**
 * The text of the DOCX file `bytes`.
 * @example (await readDocx(bytes, new ExtractionBudget('docx', resolveLimits(undefined)))).sections.map((s) => s.title) // ['Title', 'Chapter 1', …]
 */
export async function readDocx(bytes: Uint8Array, budget: ExtractionBudget): Promise<DocumentExtraction> {
  if (COMPOUND_FILE.every((b, i) => bytes[i] === b)) {
    throw invalid(
      'docx',
      'it is an encrypted (password-protected) Office document or a Word 97–2003 .doc, not a DOCX zip',
    );
  }
  const zip = await openZip(bytes, budget);
  const main = relationshipTarget(zip, '_rels/.rels', '', 'officeDocument') ?? 'word/document.xml';
  const source = zip.readText(main);
  // a DOCTYPE (Word writes none) declares entities that are never expanded: its references are no text
  const xml = source === undefined ? undefined : withoutDoctype(source);
  if (xml === undefined) throw invalid('docx', `its main document part ${main} is missing (not a Word document?)`);
  const dir = main.includes('/') ? main.slice(0, main.lastIndexOf('/') + 1) : '';
  const rels = `${dir}_rels/${main.slice(dir.length)}.rels`;
  const styles = zip.readText(relationshipTarget(zip, rels, dir, 'styles') ?? `${dir}styles.xml`);
  budget.check();
  return await walkDocument(xml, styles === undefined ? undefined : headingStyles(styles), budget);
}

/** The target of the first relationship of `rels` whose type ends in `/${type}`, as a path in the zip. */
function relationshipTarget(zip: ZipArchive, rels: string, dir: string, type: string): string | undefined {
  const xml = zip.readText(rels);
  if (xml === undefined) return undefined;
  for (const tag of xmlTags(xml)) {
    if (tag.local !== 'Relationship' || tag.kind === 'close') continue;
    const target = attr(tag, 'Target');
    if (target === undefined || !(attr(tag, 'Type') ?? '').endsWith(`/${type}`)) continue;
    const parts = target.startsWith('/') ? [] : dir.split('/').filter(Boolean);
    for (const s of target.split('/')) {
      if (s === '..') parts.pop();
      else if (s !== '.' && s !== '') parts.push(s);
    }
    return parts.join('/');
  }
  return undefined;
}

/** The ids of the paragraph styles that are headings: named Heading 1–9 or Title, or with an outline level. */
function headingStyles(xml: string): Set<string> {
  const ids = new Set<string>();
  let id: string | undefined;
  let heading = false;
  for (const tag of xmlTags(xml)) {
    if (tag.local === 'style') {
      if (tag.kind === 'close') {
        if (id !== undefined && heading) ids.add(id);
        id = undefined;
      } else {
        id = attr(tag, 'styleId');
        heading = HEADING_ID.test(id ?? '');
      }
    } else if (id !== undefined && tag.local === 'name') heading ||= HEADING_NAME.test(attr(tag, 'val') ?? '');
    else if (id !== undefined && tag.local === 'outlineLvl') heading ||= isOutlineLevel(tag);
  }
  return ids;
}

function isOutlineLevel(tag: XmlTag): boolean {
  const level = Number(attr(tag, 'val'));
  return Number.isInteger(level) && level >= 0 && level <= 8;
}

/** The prefix the document's root element gives `namespace` (`fallback` when it declares none). */
function prefixOf(xml: string, namespaces: readonly string[], fallback: string): string {
  const root = xmlTags(xml).next();
  if (root.done) return fallback;
  for (const m of root.value.attributes.matchAll(/xmlns:([\w.-]+)\s*=\s*["']([^"']*)["']/g)) {
    if (namespaces.includes(m[2])) return m[1];
  }
  return fallback;
}

/** What the run elements other than text stand for. */
const RUN_CHARACTERS: ReadonlyMap<string, string> = new Map([
  ['tab', '\t'],
  ['br', '\n'],
  ['cr', '\n'],
  ['noBreakHyphen', '-'],
]);

function isHeadingStyle(id: string, headings: Set<string> | undefined): boolean {
  return headings ? headings.has(id) : HEADING_ID.test(id);
}

/** The lines of the document, as paragraphs close; a heading paragraph's line starts a section. */
class Lines {
  readonly parts: string[] = [];
  readonly starts: SectionStart[] = [];
  length = 0;
  private blank = false;

  constructor(private readonly budget: ExtractionBudget) {}

  add(line: string, heading: boolean): void {
    if (line.trim() === '') {
      this.blank = this.length > 0;
      return;
    }
    if (this.length > 0) this.push(this.blank ? '\n\n' : '\n');
    this.blank = false;
    if (heading) this.starts.push({ title: line.replace(/\s+/g, ' ').trim(), start: this.length });
    this.push(line);
  }

  private push(s: string): void {
    this.budget.text(s.length);
    this.parts.push(s);
    this.length += s.length;
  }
}

/**
 * The paragraphs of WordprocessingML `xml`, with `headings` the heading styles' ids (none known: by id); a pause
 * every few milliseconds lets the host's other work run, and the budget is checked there.
 */
async function walkDocument(
  xml: string,
  headings: Set<string> | undefined,
  budget: ExtractionBudget,
): Promise<DocumentExtraction> {
  const w = prefixOf(xml, WORDPROCESSING, 'w');
  const mc = prefixOf(xml, [MARKUP_COMPATIBILITY], 'mc');
  // property changes of tracked revisions hold the *old* style: a paragraph once a heading is not one now
  const skipped = new Set([
    `${mc}:Fallback`,
    `${w}:moveFrom`,
    `${w}:del`,
    `${w}:instrText`,
    `${w}:tabs`,
    `${w}:pPrChange`,
    `${w}:rPrChange`,
  ]);
  const lines = new Lines(budget);
  const open: boolean[] = []; // the open paragraphs' heading flags, innermost last
  let text = '';
  let skip = '';
  let skipDepth = 0;
  let seen = 0;
  let sliceStart = Date.now();
  for (const tag of xmlTags(xml)) {
    if ((++seen & 1023) === 0 && Date.now() - sliceStart > SLICE_MS) {
      budget.check();
      await pause();
      sliceStart = Date.now();
    }
    const name = tag.name;
    if (skipDepth > 0) {
      if (name === skip) skipDepth += tag.kind === 'open' ? 1 : tag.kind === 'close' ? -1 : 0;
      continue;
    }
    if (skipped.has(name)) {
      if (tag.kind === 'open') (skip = name), (skipDepth = 1);
      continue;
    }
    if (!name.startsWith(`${w}:`)) continue;
    const local = name.slice(w.length + 1);
    if (local === 'p') {
      if (tag.kind === 'close') {
        lines.add(text, open.pop() ?? false);
      } else {
        // a paragraph inside another (in a text box) ends the outer one's line so far
        if (text !== '') lines.add(text, open.at(-1) ?? false);
        if (tag.kind === 'open') open.push(false);
        else lines.add('', false);
      }
      text = '';
    } else if (tag.kind === 'close') {
      // only the paragraph's end matters among closing tags
    } else if (local === 't') {
      if (tag.kind === 'open') {
        const end = xml.indexOf('<', tag.end);
        text += xmlText(xml.slice(tag.end, end < 0 ? xml.length : end));
        // a paragraph of endless runs passes the limit before it closes
        if (lines.length + text.length > budget.limits.maxCharacters) budget.text(lines.length + text.length);
      }
    } else if (local === 'pStyle' || local === 'outlineLvl') {
      const heading = local === 'outlineLvl' ? isOutlineLevel(tag) : isHeadingStyle(attr(tag, 'val') ?? '', headings);
      if (heading && open.length > 0) open[open.length - 1] = true;
    } else {
      text += RUN_CHARACTERS.get(local) ?? '';
    }
  }
  if (text !== '') lines.add(text, false);
  return finishExtraction('docx', lines.parts.join(''), lines.starts);
}
