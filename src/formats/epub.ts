/**
 * EPUB → text: the spine's XHTML documents in reading order, each through the HTML extraction of src/text, a blank
 * line between documents; a section where the table of contents points (a document, or an element inside one by
 * its id), else at each document that opens with a heading of its own (a document with neither continues the
 * section before it).
 */

import { type ExtractedText, extractText } from '../text/index.js';
import { type EpubPackage, encryptedPaths, packagePath, readPackage, refuseEncrypted } from './epub-package.js';
import { readToc, type TocEntry } from './epub-toc.js';
import { type ExtractionBudget, pause, SLICE_MS } from './budget.js';
import { invalid } from './limits.js';
import { finishExtraction, type SectionStart } from './result.js';
import { withoutDoctype } from './xml.js';
import type { DocumentExtraction } from './types.js';
import { openZip, type ZipArchive } from './zip.js';

const CONTENT_TYPES = new Set(['application/xhtml+xml', 'text/html']);

/**
 * The text of the EPUB file `bytes`.
 * @example (await readEpub(bytes, new ExtractionBudget('epub', resolveLimits(undefined)))).sections[0].title
 */
export async function readEpub(bytes: Uint8Array, budget: ExtractionBudget): Promise<DocumentExtraction> {
  const zip = await openZip(bytes, budget);
  const encrypted = encryptedPaths(zip);
  const opfPath = packagePath(zip);
  refuseEncrypted(encrypted, [opfPath]);
  const pkg = readPackage(zip, opfPath);
  const documents = pkg.spine.filter(
    (item) => CONTENT_TYPES.has(item.mediaType) || (item.mediaType === '' && /\.x?html?$/i.test(item.path)),
  );
  refuseEncrypted(
    encrypted,
    documents.map((d) => d.path),
  );
  const toc = readToc(zip, pkg.navPath, pkg.ncxPath);
  // a document the spine lists again is read once, where it first comes: a spine naming one chapter thousands of
  // times would otherwise inflate and extract it each time (one entry, however its paths are spelled)
  const seen = new Set<unknown>();
  const paths = documents
    .map((d) => d.path)
    .filter((path) => {
      const key = zip.find(path) ?? path;
      return !seen.has(key) && seen.add(key) !== undefined;
    });
  return await assemble(zip, pkg, paths, toc, budget);
}

/** One spine document's readable text (trimmed) and how to find places in it. */
interface SpineText {
  readonly path: string;
  readonly text: string;
  /** The offset in `text` of `source` offset `at` (the first extracted unit at or after it). */
  readonly offsetOf: (at: number) => number;
  readonly source: string;
  /** The document's first heading (computed once, however many entries of the table of contents want it). */
  readonly heading: () => string;
  /** Where each element id starts in `source` (the first element with it), indexed once. */
  readonly ids: () => ReadonlyMap<string, number>;
}

/**
 * The spine documents' text joined, with the sections of the table of contents; the text is spent from the budget
 * document by document, and a pause between documents lets the host's other work run.
 */
async function assemble(
  zip: ZipArchive,
  pkg: EpubPackage,
  paths: readonly string[],
  toc: readonly TocEntry[],
  budget: ExtractionBudget,
): Promise<DocumentExtraction> {
  const byPath = new Map<string, TocEntry[]>();
  for (const entry of toc) {
    const list = byPath.get(entry.path);
    if (list) list.push(entry);
    else byPath.set(entry.path, [entry]);
  }
  const parts: string[] = [];
  const starts: SectionStart[] = [];
  let length = 0;
  let found = 0;
  let sliceStart = Date.now();
  for (const path of paths) {
    budget.check();
    if (Date.now() - sliceStart > SLICE_MS) {
      await pause();
      budget.check();
      sliceStart = Date.now();
    }
    const source = zip.readText(path);
    if (source === undefined) continue; // a spine document missing from the zip: read what is there
    found++;
    const doc = spineText(path, source);
    budget.text(doc.text.length + 2);
    const at = doc.text === '' ? length : length + (length > 0 ? 2 : 0); // after the blank line that will join it
    const entries = byPath.get(path) ?? [];
    for (const entry of entries) {
      const whole = entry.fragment === '';
      // an entry without a title (an empty link) takes the document's heading
      const title = entry.title !== '' || !whole ? entry.title : doc.heading();
      starts.push({ title, start: at + (whole ? 0 : fragmentOffset(doc, entry.fragment)) });
    }
    if (entries.length === 0) {
      const heading = doc.heading();
      if (heading !== '') starts.push({ title: heading, start: at });
    }
    if (doc.text === '') continue;
    if (length > 0) parts.push('\n\n');
    parts.push(doc.text);
    length = at + doc.text.length;
  }
  if (found === 0 && paths.length > 0) {
    throw invalid('epub', `none of the ${paths.length} documents its spine lists is in the file (${pkg.opfPath})`);
  }
  return finishExtraction('epub', parts.join(''), starts);
}

/**
 * XHTML → what a reader sees, trimmed. XHTML closes an empty `<title/>` or `<script/>` itself, which HTML does not
 * (there they would hide everything after them), so those are closed explicitly first; a DOCTYPE with an internal
 * subset goes first, with the references to the entities it declares (HTML would end it at its first `>`).
 */
function spineText(path: string, xhtml: string): SpineText {
  const source = withoutDoctype(xhtml).replace(
    /<(title|script|style|iframe|noscript|noembed|noframes|textarea|xmp)(\s[^<>]*?)?\/>/gi,
    '<$1$2></$1>',
  );
  const x = extractText(source, 'html');
  const lead = x.text.length - x.text.trimStart().length;
  const text = x.text.trim();
  const offsetOf = (at: number) => Math.max(0, Math.min(text.length, extractedOffset(x, at) - lead));
  let heading: string | undefined;
  let ids: Map<string, number> | undefined;
  const doc: SpineText = {
    path,
    text,
    offsetOf,
    source,
    heading: () => (heading ??= firstHeading(doc)),
    ids: () => (ids ??= elementIds(source)),
  };
  return doc;
}

/** Where each element id of `source` is written (the offset of its `id=`), the first element with it. */
function elementIds(source: string): Map<string, number> {
  const ids = new Map<string, number>();
  for (const m of source.matchAll(/\sid\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    const id = m[1] ?? m[2];
    if (!ids.has(id)) ids.set(id, m.index);
  }
  return ids;
}

/** The first extracted offset whose source is at or after `at` (the map is monotone). */
function extractedOffset(x: ExtractedText, at: number): number {
  let lo = 0;
  let hi = x.text.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (x.toOriginal(mid) < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Where the element with id `fragment` starts in the document's text (0 when no element has it). */
function fragmentOffset(doc: SpineText, fragment: string): number {
  const at = doc.ids().get(fragment);
  if (at === undefined) return 0;
  return doc.offsetOf(doc.source.lastIndexOf('<', at));
}

/** The text of the document's first `<h1>`–`<h6>`, whitespace collapsed; '' when it has none. */
function firstHeading(doc: SpineText): string {
  const open = /<h([1-6])[\s/>]/i.exec(doc.source);
  if (open === null) return '';
  const close = new RegExp(`</h${open[1]}\\s*>`, 'gi');
  close.lastIndex = open.index;
  const end = close.exec(doc.source);
  const from = doc.offsetOf(open.index);
  const to = end === null ? from : doc.offsetOf(end.index);
  return doc.text.slice(from, to).replace(/\s+/g, ' ').trim();
}
