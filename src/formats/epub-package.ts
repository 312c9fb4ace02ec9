/**
 * The package of an EPUB: `META-INF/container.xml` → the OPF package document → its manifest and its spine (the
 * reading order), the table of contents it names (the EPUB 3 nav document, the EPUB 2 NCX), and the DRM an EPUB
 * may carry (`META-INF/rights.xml`, `sinf.xml`, content documents listed in `META-INF/encryption.xml`).
 */

import { invalid } from './limits.js';
import { attr, xmlTags } from './xml.js';
import type { ZipArchive } from './zip.js';

/** A manifest item, its path resolved against the OPF. */
export interface ManifestItem {
  readonly path: string;
  readonly mediaType: string;
  readonly properties: string;
}

/** What the OPF says: the spine's documents in reading order and where the table of contents is. */
export interface EpubPackage {
  readonly opfPath: string;
  /** The spine's items, in reading order. */
  readonly spine: readonly ManifestItem[];
  /** The EPUB 3 navigation document, when the manifest names one. */
  readonly navPath: string | undefined;
  /** The EPUB 2 NCX, when the spine names one. */
  readonly ncxPath: string | undefined;
}

/**
 * `href` (a URL relative to the file `base`, percent-encoded, perhaps with a fragment) as a path inside the zip, and
 * its fragment; `undefined` for a URL with a scheme (outside the book).
 * @example resolveHref('OEBPS/content.opf', 'text/ch%201.xhtml#p3') // { path: 'OEBPS/text/ch 1.xhtml', fragment: 'p3' }
 */
export function resolveHref(base: string, href: string): { path: string; fragment: string } | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return undefined;
  const hash = href.indexOf('#');
  const fragment = hash < 0 ? '' : decode(href.slice(hash + 1));
  let relative = hash < 0 ? href : href.slice(0, hash);
  const query = relative.indexOf('?');
  if (query >= 0) relative = relative.slice(0, query);
  const parts = relative.startsWith('/') ? [] : base.split('/').slice(0, -1);
  for (const segment of decode(relative).split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.' && segment !== '') parts.push(segment);
  }
  // an href of only a fragment ('#note-3') points into the base file itself
  return { path: relative === '' ? base : parts.join('/'), fragment };
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The DRM of an EPUB: refused at once for Adobe's `rights.xml` or Apple's `sinf.xml`; else the paths that
 * `encryption.xml` lists as encrypted, to refuse when a document the book is read from is among them (see
 * {@link refuseEncrypted}) — fonts obfuscated under the IDPF's rules are listed there too, and are no DRM.
 * @example refuseEncrypted(encryptedPaths(zip), ['OEBPS/content.opf'])
 */
export function encryptedPaths(zip: ZipArchive): ReadonlySet<string> {
  for (const name of ['META-INF/rights.xml', 'META-INF/sinf.xml']) {
    if (zip.find(name)) throw invalid('epub', `it is protected by DRM (${name}); DRM-protected books are not read`);
  }
  const encrypted = new Set<string>();
  const xml = zip.readText('META-INF/encryption.xml');
  for (const tag of xml === undefined ? [] : xmlTags(xml)) {
    if (tag.local !== 'CipherReference' || tag.kind === 'close') continue;
    const uri = attr(tag, 'URI');
    const target = uri === undefined ? undefined : resolveHref('', uri);
    if (target) encrypted.add(target.path);
  }
  return encrypted;
}

/**
 * Refuses the EPUB when any of `documents` (the package document, the spine's documents) is encrypted.
 * @example refuseEncrypted(new Set(['OEBPS/ch1.xhtml']), ['OEBPS/ch1.xhtml']) // throws INVALID_INPUT naming DRM
 */
export function refuseEncrypted(encrypted: ReadonlySet<string>, documents: readonly string[]): void {
  const locked = documents.filter((d) => encrypted.has(d));
  if (locked.length > 0) {
    throw invalid(
      'epub',
      `it is protected by DRM: META-INF/encryption.xml lists ${locked.length} of its content documents as ` +
        `encrypted (${locked[0]}${locked.length > 1 ? ', …' : ''}); DRM-protected books are not read`,
    );
  }
}

/**
 * The path of the OPF package document, from `META-INF/container.xml` (its first rootfile of the OPF media type).
 * @example packagePath(zip) // 'OEBPS/content.opf'
 */
export function packagePath(zip: ZipArchive): string {
  const container = zip.readText('META-INF/container.xml');
  if (container === undefined) throw invalid('epub', 'META-INF/container.xml is missing (not an EPUB?)');
  let fallback: string | undefined;
  for (const tag of xmlTags(container)) {
    if (tag.local !== 'rootfile' || tag.kind === 'close') continue;
    const path = attr(tag, 'full-path');
    if (!path) continue;
    if (attr(tag, 'media-type') === 'application/oebps-package+xml') return resolveHref('', path)?.path ?? path;
    fallback ??= path;
  }
  if (fallback !== undefined) return resolveHref('', fallback)?.path ?? fallback;
  throw invalid('epub', 'META-INF/container.xml names no OPF package document');
}

/**
 * The spine, nav document and NCX of the OPF at `opfPath`.
 * @example readPackage(zip, 'OEBPS/content.opf').spine.map((i) => i.path) // ['OEBPS/ch1.xhtml', …]
 */
export function readPackage(zip: ZipArchive, opfPath: string): EpubPackage {
  const opf = zip.readText(opfPath);
  if (opf === undefined) throw invalid('epub', `the OPF package document ${opfPath} is missing`);
  const manifest = new Map<string, ManifestItem>();
  const itemrefs: string[] = [];
  let tocId: string | undefined;
  let navPath: string | undefined;
  for (const tag of xmlTags(opf)) {
    if (tag.kind === 'close') continue;
    if (tag.local === 'item') {
      const id = attr(tag, 'id');
      const href = attr(tag, 'href');
      const target = href === undefined ? undefined : resolveHref(opfPath, href);
      if (id === undefined || target === undefined || manifest.has(id)) continue;
      const item = {
        path: target.path,
        mediaType: attr(tag, 'media-type') ?? '',
        properties: attr(tag, 'properties') ?? '',
      };
      manifest.set(id, item);
      if (navPath === undefined && item.properties.split(/\s+/).includes('nav')) navPath = item.path;
    } else if (tag.local === 'spine') tocId = attr(tag, 'toc');
    else if (tag.local === 'itemref') {
      const idref = attr(tag, 'idref');
      if (idref !== undefined) itemrefs.push(idref);
    }
  }
  if (itemrefs.length === 0)
    throw invalid('epub', `the OPF package document ${opfPath} has no spine (no reading order)`);
  const spine = itemrefs.flatMap((id) => manifest.get(id) ?? []);
  const ncx = tocId === undefined ? undefined : manifest.get(tocId);
  const ncxItem = ncx ?? [...manifest.values()].find((i) => i.mediaType === 'application/x-dtbncx+xml');
  return { opfPath, spine, navPath, ncxPath: ncxItem?.path };
}
