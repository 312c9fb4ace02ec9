/**
 * The table of contents of an EPUB, as entries in reading order (a title and the place it links to): the EPUB 3
 * navigation document's `toc` nav, else the EPUB 2 NCX's navPoints. Both are read as XML tag streams; a title is the
 * text inside its link or label, whitespace collapsed.
 */

import { resolveHref } from './epub-package.js';
import { attr, textUntilClose, xmlTags } from './xml.js';
import type { ZipArchive } from './zip.js';

/** An entry of the table of contents: its title and the file (and fragment) it links to. */
export interface TocEntry {
  readonly title: string;
  readonly path: string;
  readonly fragment: string;
}

/**
 * The entries of the nav document at `navPath` (its `toc` nav, else its first nav), else of the NCX at `ncxPath`;
 * none when neither holds any.
 * @example readToc(zip, 'OEBPS/nav.xhtml', undefined)[0] // { title: 'Chapter 1', path: 'OEBPS/ch1.xhtml', fragment: '' }
 */
export function readToc(zip: ZipArchive, navPath: string | undefined, ncxPath: string | undefined): TocEntry[] {
  const nav = navPath === undefined ? undefined : zip.readText(navPath);
  const fromNav = nav === undefined || navPath === undefined ? [] : navEntries(nav, navPath);
  if (fromNav.length > 0) return fromNav;
  const ncx = ncxPath === undefined ? undefined : zip.readText(ncxPath);
  return ncx === undefined || ncxPath === undefined ? [] : ncxEntries(ncx, ncxPath);
}

/** The links of the nav whose `epub:type` (or `role`) says `toc`, else of the first nav. */
function navEntries(xml: string, base: string): TocEntry[] {
  const navs: Array<{ toc: boolean; entries: TocEntry[] }> = [];
  let current: { toc: boolean; entries: TocEntry[] } | undefined;
  let depth = 0;
  const tags = xmlTags(xml);
  for (let r = tags.next(); !r.done; r = tags.next()) {
    const tag = r.value;
    if (tag.local === 'nav' && tag.kind === 'open') {
      if (depth++ === 0) {
        const type = `${attr(tag, 'type') ?? ''} ${attr(tag, 'role') ?? ''}`;
        current = { toc: /(^|\s)(doc-)?toc(\s|$)/.test(type), entries: [] };
        navs.push(current);
      }
    } else if (tag.local === 'nav' && tag.kind === 'close') {
      if (depth > 0 && --depth === 0) current = undefined;
    } else if (current !== undefined && tag.local === 'a' && tag.kind === 'open') {
      const href = attr(tag, 'href');
      const title = textUntilClose(xml, tags, tag);
      const target = href === undefined ? undefined : resolveHref(base, href);
      if (target) current.entries.push({ title, ...target });
    }
  }
  return (navs.find((n) => n.toc) ?? navs[0])?.entries ?? [];
}

/** The navPoints of an NCX in document order (a parent before its children): the label's text and the content's src. */
function ncxEntries(xml: string, base: string): TocEntry[] {
  const entries: TocEntry[] = [];
  let title: string | undefined;
  let open = false;
  const tags = xmlTags(xml);
  for (let r = tags.next(); !r.done; r = tags.next()) {
    const tag = r.value;
    if (tag.kind === 'close') continue;
    if (tag.local === 'navPoint') {
      open = true;
      title = undefined;
    } else if (open && tag.local === 'text' && tag.kind === 'open' && title === undefined) {
      title = textUntilClose(xml, tags, tag);
    } else if (open && tag.local === 'content') {
      const src = attr(tag, 'src');
      const target = src === undefined ? undefined : resolveHref(base, src);
      if (target) entries.push({ title: title ?? '', ...target });
      open = false;
    }
  }
  return entries;
}
