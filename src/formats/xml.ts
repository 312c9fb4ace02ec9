/**
 * A small scanner of XML tags for the package files of EPUB and DOCX (container.xml, the OPF, the NCX and nav table
 * of contents, encryption.xml, WordprocessingML): the tags in document order with their offsets, so a reader takes
 * the text between two tags itself. No tree and no validation — a package file is data to read, not markup to
 * render; the XHTML of an EPUB's chapters goes through the HTML extraction of src/text instead.
 *
 * Linear time: each tag is found with one `indexOf` from where the last ended, and a comment, CDATA section or tag
 * left open at the end stops the scan.
 */

import { decodeHTML } from 'entities';

/**
 * A tag: `<name …>` (open), `</name>` (close) or `<name …/>` (empty), at `[start, end)` of the scanned text.
 *
 * @example
 * const [tag] = xmlTags('<w:t xml:space="preserve">Hi</w:t>')
 * tag.local         // 't'
 * attr(tag, 'space') // 'preserve'
 */
export interface XmlTag {
  /** The name as written, prefix included ('w:p'). */
  readonly name: string;
  /** The name without its prefix ('p'). */
  readonly local: string;
  readonly kind: 'open' | 'close' | 'empty';
  readonly start: number;
  readonly end: number;
  /** The attributes' source text (parsed on demand by {@link attr}). */
  readonly attributes: string;
}

/**
 * The tags of `xml`, in order; comments, CDATA sections, processing instructions and declarations are skipped.
 * @example [...xmlTags('<a><b/></a>')].map((t) => `${t.kind} ${t.name}`) // ['open a', 'empty b', 'close a']
 */
export function* xmlTags(xml: string): Generator<XmlTag> {
  let at = xml.indexOf('<');
  while (at >= 0 && at < xml.length) {
    const next = xml.charCodeAt(at + 1);
    let end: number;
    if (next === 0x21 /* ! */ && isDoctype(xml, at)) {
      end = doctypeEnd(xml, at);
      if (end < 0) return;
    } else if (next === 0x21 /* ! */ || next === 0x3f /* ? */) {
      const close = xml.startsWith('<!--', at)
        ? '-->'
        : xml.startsWith('<![CDATA[', at)
          ? ']]>'
          : next === 0x3f
            ? '?>'
            : '>';
      const found = xml.indexOf(close, at + 2);
      if (found < 0) return;
      end = found + close.length;
    } else {
      end = tagEnd(xml, at + 1);
      if (end < 0) return;
      const closing = next === 0x2f; /* / */
      let nameStart = closing ? at + 2 : at + 1;
      while (nameStart < end && isSpace(xml.charCodeAt(nameStart))) nameStart++;
      let nameEnd = nameStart;
      while (
        nameEnd < end - 1 &&
        !isSpace(xml.charCodeAt(nameEnd)) &&
        xml.charCodeAt(nameEnd) !== 0x2f &&
        xml.charCodeAt(nameEnd) !== 0x3e
      )
        nameEnd++;
      if (nameEnd > nameStart) {
        const name = xml.slice(nameStart, nameEnd);
        const colon = name.indexOf(':');
        const empty = !closing && xml.charCodeAt(end - 2) === 0x2f;
        yield {
          name,
          local: colon < 0 ? name : name.slice(colon + 1),
          kind: closing ? 'close' : empty ? 'empty' : 'open',
          start: at,
          end,
          attributes: closing ? '' : xml.slice(nameEnd, empty ? end - 2 : end - 1),
        };
      }
    }
    at = xml.indexOf('<', end);
  }
}

/** Whether a `<!DOCTYPE` (any case) starts at `at`. */
function isDoctype(xml: string, at: number): boolean {
  return xml.length >= at + 9 && xml.slice(at + 2, at + 9).toUpperCase() === 'DOCTYPE';
}

/**
 * The index just past the `>` that ends the document type declaration at `at`: the first outside its internal subset
 * (`[…]`) and outside quotes; −1 when none.
 */
function doctypeEnd(xml: string, at: number): number {
  let quote = 0;
  let subset = false;
  for (let i = at + 9; i < xml.length; i++) {
    const c = xml.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) quote = c;
    else if (c === 0x5b /* [ */) subset = true;
    else if (c === 0x5d /* ] */) subset = false;
    else if (c === 0x3e /* > */ && !subset) return i + 1;
  }
  return -1;
}

/**
 * `xml` without its document type declaration (the `<!DOCTYPE …>` of its prolog, internal subset and all) and
 * without references to the entities that subset declares: no entity is ever expanded (a billion laughs, an external
 * file), and neither the subset's tail (`]>`) nor an unexpanded `&name;` is text of the document. The same string
 * when it has no declaration.
 * @example withoutDoctype('<!DOCTYPE x [<!ENTITY e "boom">]><p>a &e; b</p>') // '<p>a  b</p>'
 */
export function withoutDoctype(xml: string): string {
  const first = xml.search(/<[A-Za-z]/); // the root element: a declaration comes before it
  const limit = first < 0 ? xml.length : first;
  let at = xml.indexOf('<!');
  while (at >= 0 && at < limit && !isDoctype(xml, at)) at = xml.indexOf('<!', at + 2);
  if (at < 0 || at >= limit) return xml;
  const end = doctypeEnd(xml, at);
  if (end < 0) return xml.slice(0, at); // never closed: nothing after it is the document's
  const declared = new Set<string>();
  for (const m of xml.slice(at, end).matchAll(/<!ENTITY\s+([^\s%"'<>]+)/g)) declared.add(m[1]);
  const rest = xml.slice(0, at) + xml.slice(end);
  if (declared.size === 0) return rest;
  return rest.replace(/&([^\s&;<>]{1,256});/g, (ref, name: string) => (declared.has(name) ? '' : ref));
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;
}

/** The index just past the `>` that ends the tag opened before `from`, quotes respected; −1 when none. */
function tagEnd(xml: string, from: number): number {
  let quote = 0;
  for (let i = from; i < xml.length; i++) {
    const c = xml.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) quote = c;
    else if (c === 0x3e) return i + 1;
    else if (c === 0x3c) return -1; // a `<` inside a tag: the tag was never closed
  }
  return -1;
}

/**
 * The value of the attribute whose name, without its prefix, is `local` (`attr(tag, 'val')` reads `w:val`), decoded;
 * `undefined` when the tag has none.
 *
 * One pass over the attribute text, each character looked at a bounded number of times: a run of name characters
 * without `=` is stepped over once, where a backtracking pattern would rescan it from every start (quadratic time —
 * a 100,000-character attribute of a 1 KB file held the thread for minutes).
 * @example attr([...xmlTags('<item href="a&amp;b.xhtml"/>')][0], 'href') // 'a&b.xhtml'
 */
export function attr(tag: XmlTag, local: string): string | undefined {
  const s = tag.attributes;
  if (!s.includes(local)) return undefined;
  const n = s.length;
  let i = 0;
  while (i < n) {
    while (i < n && isSpace(s.charCodeAt(i))) i++;
    const nameStart = i;
    while (i < n && !isSpace(s.charCodeAt(i)) && s.charCodeAt(i) !== 0x3d /* = */) i++;
    const nameEnd = i;
    while (i < n && isSpace(s.charCodeAt(i))) i++;
    if (i >= n || s.charCodeAt(i) !== 0x3d) {
      if (nameEnd === nameStart) i++; // a stray character: step over it
      continue; // a name without a value: the next name starts here
    }
    i++; // past '='
    while (i < n && isSpace(s.charCodeAt(i))) i++;
    const quote = s.charCodeAt(i);
    if (quote !== 0x22 && quote !== 0x27) continue; // an unquoted value is not XML: read on from it as a name
    const close = s.indexOf(quote === 0x22 ? '"' : "'", i + 1);
    if (close < 0) return undefined; // an unclosed quote runs to the end: nothing after it is an attribute
    if (nameEnd > nameStart && isNamed(s, nameStart, nameEnd, local)) return xmlText(s.slice(i + 1, close));
    i = close + 1;
  }
  return undefined;
}

/** Whether `s[start, end)` is `local` or `prefix:local`. */
function isNamed(s: string, start: number, end: number, local: string): boolean {
  const at = end - local.length;
  if (at < start || !s.startsWith(local, at)) return false;
  return at === start || s.charCodeAt(at - 1) === 0x3a; /* : */
}

/**
 * `raw` text of an XML file with its character and entity references decoded — HTML's named references too, which
 * the XHTML 1.1 documents of EPUB 2 may use (in XML proper, where a bare `&` cannot occur, they decode the same).
 * @example xmlText('Fish &amp; chips &#x2014; 3&lt;4&nbsp;') // 'Fish & chips — 3<4\u00a0'
 */
export function xmlText(raw: string): string {
  return raw.includes('&') ? decodeHTML(raw) : raw;
}

/**
 * The text between `open` (an open tag) and its closing tag, nested tags dropped and references decoded, whitespace
 * runs collapsed to one space — a title in a table of contents. Scans from `tags`, the same iterator `open` came
 * from, so the caller's scan goes on after the closing tag.
 * @example textUntilClose(xml, tags, open) // 'Chapter 1'
 */
export function textUntilClose(xml: string, tags: Iterator<XmlTag>, open: XmlTag): string {
  let depth = 1;
  let text = '';
  let at = open.end;
  for (let r = tags.next(); !r.done; r = tags.next()) {
    const t = r.value;
    text += xml.slice(at, t.start);
    at = t.end;
    if (t.name === open.name) depth += t.kind === 'open' ? 1 : t.kind === 'close' ? -1 : 0;
    if (depth === 0) break;
  }
  return xmlText(text).replace(/\s+/g, ' ').trim();
}
