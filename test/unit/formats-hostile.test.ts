/**
 * Hostile document files, each a few kilobytes built here, that once took a server down: an XML attribute without
 * `=` (quadratic to scan), an EPUB spine naming one chapter many times, DOCTYPE internal subsets, PDF streams that
 * inflate without bound, page trees claiming a billion pages, a page of a million text items. Each is answered
 * within the extraction's budget: a typed error naming the limit, or text no larger than the limits allow.
 */
import { deflateRawSync, deflateSync, constants as zlibConstants } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { extractDocument } from '../../src/formats/index.js';
import { StreamInflater } from '../../src/util/inflate.js';
import { attr, xmlTags } from '../../src/formats/xml.js';
import { refused } from '../fixtures/expect-refused.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** A DOCX of one `word/document.xml` (no relationships: the reader falls back to the usual part name). */
function docxOf(documentXml: string): Uint8Array {
  return zipSync({ 'word/document.xml': strToU8(documentXml) }, { level: 9 });
}

const CONTAINER =
  '<container><rootfiles><rootfile full-path="OEBPS/content.opf" ' +
  'media-type="application/oebps-package+xml"/></rootfiles></container>';

/** An EPUB of the given OPF and chapter files under OEBPS/. */
function epubOf(opf: string, files: Record<string, string>): Uint8Array {
  const entries: Record<string, Uint8Array> = {
    'META-INF/container.xml': strToU8(CONTAINER),
    'OEBPS/content.opf': strToU8(opf),
  };
  for (const [name, text] of Object.entries(files)) entries[`OEBPS/${name}`] = strToU8(text);
  return zipSync(entries, { level: 9 });
}

describe('XML attributes', () => {
  it('reads attributes in one pass: names without a value, prefixes, both quotes, unquoted values', () => {
    const [tag] = xmlTags(`<w:pStyle novalue w:val='Heading1' bad=x w:other="a&amp;b"/>`);
    expect(attr(tag, 'val')).toBe('Heading1');
    expect(attr(tag, 'other')).toBe('a&b');
    expect(attr(tag, 'bad')).toBeUndefined();
    expect(attr(tag, 'novalue')).toBeUndefined();
    expect(attr({ ...tag, attributes: ' x="1" y="2' }, 'x')).toBe('1'); // an unclosed quote ends the scan
    expect(attr({ ...tag, attributes: ' x="1" y="2' }, 'y')).toBeUndefined();
    const [longName] = xmlTags(`<a xval="1" val="2"/>`);
    expect(attr(longName, 'val')).toBe('2'); // 'xval' is another name, not a prefix of 'val'
  });

  it('a 100,000-character attribute without "=" in a 1 KB DOCX: the text, in linear time', async () => {
    const docx = docxOf(
      `<w:document xmlns:w="${W}"><w:body><w:p><w:pPr><w:pStyle w:val${'a'.repeat(100_000)}/></w:pPr>` +
        '<w:r><w:t>hello world</w:t></w:r></w:p></w:body></w:document>',
    );
    expect(docx.length).toBeLessThan(2000);
    expect((await extractDocument(docx, 'docx')).text).toBe('hello world');
  });

  it('a 100,000-character attribute in an EPUB package document: the text', async () => {
    const opf =
      `<package><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml" x${'a'.repeat(100_000)}/>` +
      '</manifest><spine><itemref idref="c1"/></spine></package>';
    const epub = epubOf(opf, { 'c1.xhtml': '<html><body><p>hello world</p></body></html>' });
    expect(epub.length).toBeLessThan(2000);
    expect((await extractDocument(epub, 'epub')).text).toBe('hello world');
  });
});

/** `n` characters of plain words, in a paragraph of XHTML. */
function chapterOf(n: number, word = 'lorem ipsum dolor sit amet '): string {
  return `<html><body><p>${word.repeat(Math.ceil(n / word.length)).slice(0, n)}</p></body></html>`;
}

describe('EPUB spine', () => {
  it('a 1 MiB chapter listed 500 times in the spine (a 3 KB file): read once', async () => {
    const opf =
      '<package><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>' +
      '<item id="c2" href="C1.XHTML" media-type="application/xhtml+xml"/></manifest><spine>' +
      '<itemref idref="c1"/><itemref idref="c2"/>'.repeat(250) +
      '</spine></package>';
    const epub = epubOf(opf, { 'c1.xhtml': chapterOf((1 << 20) - 40) }); // under 1 MiB: no ratio check
    expect(epub.length).toBeLessThan(8000);
    const x = await extractDocument(epub, 'epub');
    expect(x.characters).toBeLessThan(1 << 20);
    expect(x.characters).toBeGreaterThan(1_000_000);
  });

  it('stops at maxCharacters: text past it is refused, naming the limit', async () => {
    const opf =
      '<package><manifest>' +
      [1, 2, 3].map((i) => `<item id="c${i}" href="c${i}.xhtml" media-type="application/xhtml+xml"/>`).join('') +
      '</manifest><spine><itemref idref="c1"/><itemref idref="c2"/><itemref idref="c3"/></spine></package>';
    const chapters = { 'c1.xhtml': chapterOf(40_000), 'c2.xhtml': chapterOf(40_000), 'c3.xhtml': chapterOf(40_000) };
    const epub = epubOf(opf, chapters);
    expect((await extractDocument(epub, 'epub', { maxCharacters: 130_000 })).characters).toBeLessThan(130_000);
    await refused(
      extractDocument(epub, 'epub', { maxCharacters: 100_000 }),
      'PAYLOAD_TOO_LARGE',
      /EPUB.*100000 characters.*maxCharacters/,
    );
  });

  it('counts every read of the zip against maxUncompressedBytes, the same entry read twice included', async () => {
    // the nav document is also the spine's only chapter: read for the table of contents, then for the text
    const nav = `<html><body><nav epub:type="toc"><ol><li><a href="c1.xhtml">One</a></li></ol></nav>${chapterOf(60_000).slice(12)}`;
    const opf =
      '<package><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml" properties="nav"/>' +
      '</manifest><spine><itemref idref="c1"/></spine></package>';
    const epub = epubOf(opf, { 'c1.xhtml': nav });
    const declared = CONTAINER.length + opf.length + nav.length;
    expect(
      (await extractDocument(epub, 'epub', { maxUncompressedBytes: 2 * declared + 10 })).characters,
    ).toBeGreaterThan(50_000);
    await refused(
      extractDocument(epub, 'epub', { maxUncompressedBytes: declared + 1000 }),
      'PAYLOAD_TOO_LARGE',
      /EPUB.*inflates to more than \d+ bytes.*maxUncompressedBytes/,
    );
  });

  it('a table of contents of 50,000 links into one chapter: fragments and headings found once per chapter', async () => {
    const body = Array.from({ length: 200 }, (_, i) => `<h2 id="s${i}">Part ${i}</h2><p>${'word '.repeat(500)}</p>`);
    const chapter = `<html><body>${body.join('')}</body></html>`;
    const links = Array.from({ length: 50_000 }, (_, i) => `<li><a href="c1.xhtml#s${i % 250}"></a></li>`).join('');
    const nav = `<html><body><nav epub:type="toc"><ol>${links}</ol></nav></body></html>`;
    const opf =
      '<package><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>' +
      '<item id="n" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>' +
      '</manifest><spine><itemref idref="c1"/></spine></package>';
    const x = await extractDocument(epubOf(opf, { 'c1.xhtml': chapter, 'nav.xhtml': nav }), 'epub');
    expect(x.sections.length).toBeGreaterThanOrEqual(200);
    expect(x.text.startsWith('Part 0')).toBe(true);
  });
});

describe('DOCX text', () => {
  it('stops at maxCharacters, inside a paragraph that never closes too', async () => {
    const runs = '<w:r><w:t>lorem ipsum dolor sit amet </w:t></w:r>'.repeat(10_000);
    const docx = docxOf(`<w:document xmlns:w="${W}"><w:body><w:p>${runs}</w:p></w:body></w:document>`);
    expect((await extractDocument(docx, 'docx')).characters).toBe(270_000);
    await refused(
      extractDocument(docx, 'docx', { maxCharacters: 100_000 }),
      'PAYLOAD_TOO_LARGE',
      /DOCX.*maxCharacters/,
    );
  });
});

/** A PDF of the numbered objects' bodies, with a cross-reference table of their offsets (`/Root 1 0 R`). */
function pdfOf(objects: Record<number, Uint8Array | string>): Uint8Array {
  const parts: Uint8Array[] = [strToU8('%PDF-1.7\n')];
  let length = parts[0].length;
  const offsets = new Map<number, number>();
  const size = Math.max(...Object.keys(objects).map(Number)) + 1;
  for (const n of Object.keys(objects)
    .map(Number)
    .sort((a, b) => a - b)) {
    offsets.set(n, length);
    const body = objects[n];
    for (const part of [
      strToU8(`${n} 0 obj\n`),
      typeof body === 'string' ? strToU8(body) : body,
      strToU8('\nendobj\n'),
    ]) {
      parts.push(part);
      length += part.length;
    }
  }
  let xref = `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let n = 1; n < size; n++) {
    const at = offsets.get(n);
    xref += at === undefined ? '0000000000 65535 f \n' : `${String(at).padStart(10, '0')} 00000 n \n`;
  }
  parts.push(strToU8(`${xref}trailer\n<</Size ${size}/Root 1 0 R>>\nstartxref\n${length}\n%%EOF\n`));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, (at += p.length) - p.length);
  return out;
}

/** A stream object: its dictionary entries, `/Length` (its data's, unless given), and its data. */
function streamOf(dict: string, data: Uint8Array, length = String(data.length)): Uint8Array {
  const head = strToU8(`<<${dict}/Length ${length}>>\nstream\n`);
  const tail = strToU8('\nendstream');
  const out = new Uint8Array(head.length + data.length + tail.length);
  out.set(head);
  out.set(data, head.length);
  out.set(tail, head.length + data.length);
  return out;
}

/**
 * zlib data of `unit` repeated to about `mib` MiB, made in a moment: the unit's MiB deflated once with a full flush
 * (so it stands alone) and the segment repeated, then the final block (the Adler-32 is not checked by readers here).
 */
function zlibRepeated(unit: string, mib: number): Uint8Array {
  const block = strToU8(unit.repeat(Math.ceil((1 << 20) / unit.length)));
  const segment = deflateRawSync(block, { level: 9, finishFlush: zlibConstants.Z_FULL_FLUSH });
  const out = new Uint8Array(2 + segment.length * mib + 2 + 4);
  out.set([0x78, 0xda]);
  for (let i = 0; i < mib; i++) out.set(segment, 2 + i * segment.length);
  out.set([0x03, 0x00], 2 + segment.length * mib);
  return out;
}

const HELVETICA = '<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>';

/** A one-page PDF whose content stream is `content` (with `filter` written in its dictionary). */
function onePage(content: Uint8Array, filter: string, extra: Record<number, Uint8Array | string> = {}): Uint8Array {
  return pdfOf({
    1: '<</Type/Catalog/Pages 2 0 R>>',
    2: '<</Type/Pages/Kids [3 0 R]/Count 1>>',
    3: '<</Type/Page/Parent 2 0 R/MediaBox [0 0 612 792]/Resources <</Font <</F1 5 0 R>>>>/Contents 4 0 R>>',
    4: streamOf(filter, content),
    5: HELVETICA,
    ...extra,
  });
}

describe('PDF streams', () => {
  const TJ = '(aaaa bbbb cccc dddd) Tj T*\n';

  it('a content stream that inflates past maxUncompressedBytes: refused before pdf.js reads it', async () => {
    const pdf = onePage(zlibRepeated(TJ, 40), '/Filter/FlateDecode');
    expect(pdf.length).toBeLessThan(400_000);
    await refused(
      extractDocument(pdf, 'pdf', { maxUncompressedBytes: 32 << 20 }),
      'PAYLOAD_TOO_LARGE',
      /PDF.*inflates to more than 33554432 bytes.*maxUncompressedBytes/,
    );
  });

  it('a font stream of 300 MiB of zeros (300 KB): refused at the default budget', async () => {
    const pdf = onePage(strToU8('BT /F1 11 Tf 72 720 Td (three words here) Tj ET'), '', {
      6: streamOf('/Filter/FlateDecode/Length1 314572800', zlibRepeated('\0', 300)),
      7: '<</Type/FontDescriptor/FontName/Bomb/Flags 32/FontBBox [0 0 1000 1000]/ItalicAngle 0/Ascent 800/Descent -200/CapHeight 700/StemV 80/FontFile2 6 0 R>>',
      5: '<</Type/Font/Subtype/TrueType/BaseFont/Bomb/FirstChar 32/LastChar 126/FontDescriptor 7 0 R>>',
    });
    await refused(extractDocument(pdf, 'pdf'), 'PAYLOAD_TOO_LARGE', /inflates to more than 268435456 bytes/);
  });

  it('counts through chains: zlib inside zlib behind an indirect /Filter, ASCII85 then Flate', async () => {
    const inner = zlibRepeated(TJ, 20);
    const twice = deflateSync(inner);
    const nested = onePage(twice, '/Filter 6 0 R', { 6: '[/FlateDecode/FlateDecode]' });
    await refused(extractDocument(nested, 'pdf', { maxUncompressedBytes: 16 << 20 }), 'PAYLOAD_TOO_LARGE', /inflates/);
    const a85 = onePage(ascii85(inner), '/Filter [/ASCII85Decode/FlateDecode]');
    await refused(extractDocument(a85, 'pdf', { maxUncompressedBytes: 16 << 20 }), 'PAYLOAD_TOO_LARGE', /inflates/);
  });

  it('reads a deflate stream to its own end, past an "endstream" hidden inside its data', async () => {
    // a stored block holding the bytes "endstream" first, then the bomb: the data does not end where they stand
    const hidden = strToU8('\nendstream\nendobj\n');
    const stored = new Uint8Array([0x00, hidden.length, 0x00, ~hidden.length & 0xff, 0xff, ...hidden]);
    const bomb = zlibRepeated(TJ, 20);
    const data = new Uint8Array(2 + stored.length + bomb.length - 2);
    data.set([0x78, 0xda]);
    data.set(stored, 2);
    data.set(bomb.subarray(2), 2 + stored.length);
    // its /Length given by reference, so that only the data itself says where it ends
    const pdf = pdfOf({
      1: '<</Type/Catalog/Pages 2 0 R>>',
      2: '<</Type/Pages/Kids [3 0 R]/Count 1>>',
      3: '<</Type/Page/Parent 2 0 R/MediaBox [0 0 612 792]/Resources <</Font <</F1 5 0 R>>>>/Contents 4 0 R>>',
      4: streamOf('/Filter/FlateDecode', data, '6 0 R'),
      5: HELVETICA,
      6: String(data.length),
    });
    await refused(extractDocument(pdf, 'pdf', { maxUncompressedBytes: 16 << 20 }), 'PAYLOAD_TOO_LARGE', /inflates/);
  });

  it('an image of 300 MiB is not counted (text never decodes it); a content stream dressed as one inflates nothing', async () => {
    const text = strToU8('BT /F1 11 Tf 72 720 Td (three words here) Tj ET');
    const scan = onePage(text, '', {
      3: '<</Type/Page/Parent 2 0 R/MediaBox [0 0 612 792]/Resources <</Font <</F1 5 0 R>>/XObject <</Im1 6 0 R>>>>/Contents 4 0 R>>',
      6: streamOf(
        '/Type/XObject/Subtype/Image/Width 10240/Height 30720/ColorSpace/DeviceGray/BitsPerComponent 8/Filter/FlateDecode',
        zlibRepeated('\0', 300),
      ),
    });
    expect((await extractDocument(scan, 'pdf')).text).toBe('three words here');
    const dressed = onePage(zlibRepeated('(aaaa bbbb cccc dddd) Tj T*\n', 300), '/Subtype/Image/Filter/FlateDecode');
    await refused(extractDocument(dressed, 'pdf'), 'INVALID_INPUT', /no text layer/);
    // an image's name inside a nested dictionary is not the stream's
    const nested = onePage(
      zlibRepeated('(aaaa bbbb cccc dddd) Tj T*\n', 40),
      '/DecodeParms<</Subtype/Image>>/Filter/FlateDecode',
    );
    await refused(extractDocument(nested, 'pdf', { maxUncompressedBytes: 32 << 20 }), 'PAYLOAD_TOO_LARGE', /inflates/);
  });

  it('a stream within the budget reads as before', async () => {
    const content = deflateSync(strToU8('BT /F1 11 Tf 72 720 Td (three words here) Tj ET'));
    const x = await extractDocument(onePage(content, '/Filter/FlateDecode'), 'pdf', { maxUncompressedBytes: 4096 });
    expect(x.text).toBe('three words here');
  });
});

/** ASCII85 of `bytes` (no `z` shorthand), ended by `~>`. */
function ascii85(bytes: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i += 4) {
    const n = Math.min(4, bytes.length - i);
    let v = 0;
    for (let k = 0; k < 4; k++) v = v * 256 + (k < n ? bytes[i + k] : 0);
    const digits: number[] = [];
    for (let k = 0; k < 5; k++) digits.unshift((v % 85) + 33), (v = Math.floor(v / 85));
    out.push(...digits.slice(0, n + 1));
  }
  out.push(0x7e, 0x3e);
  return Uint8Array.from(out);
}

describe('PDF pages and text items', () => {
  it('a page tree of shared nodes claiming 10⁹ pages (2 KB): refused before any page is read', async () => {
    const objects: Record<number, Uint8Array | string> = {
      1: '<</Type/Catalog/Pages 10 0 R>>',
      4: streamOf('/Filter/FlateDecode', deflateSync(strToU8('BT /F1 11 Tf 72 720 Td (three words here) Tj ET'))),
      5: HELVETICA,
      19: '<</Type/Page/Resources <</Font <</F1 5 0 R>>>>/Contents 4 0 R>>',
    };
    for (let level = 0; level < 9; level++) {
      objects[10 + level] = `<</Type/Pages/Count ${10 ** (9 - level)}/Kids [${`${11 + level} 0 R `.repeat(10)}]>>`;
    }
    const pdf = pdfOf(objects);
    expect(pdf.length).toBeLessThan(3000);
    await refused(extractDocument(pdf, 'pdf'), 'PAYLOAD_TOO_LARGE', /1000000000 pages, over the limit of 10000/);
  });

  it('one page referenced a million times (a 6 MB array): refused before pdf.js parses the object', async () => {
    const pdf = pdfOf({
      1: '<</Type/Catalog/Pages 2 0 R>>',
      2: `<</Type/Pages/Count 1/Kids [${'3 0 R '.repeat(1_000_000)}]>>`,
      3: '<</Type/Page/MediaBox [0 0 612 792]/Resources <</Font <</F1 5 0 R>>>>/Contents 4 0 R>>',
      4: streamOf('/Filter/FlateDecode', deflateSync(strToU8('BT /F1 11 Tf 72 720 Td (three words here) Tj ET'))),
      5: HELVETICA,
    });
    await refused(extractDocument(pdf, 'pdf'), 'PAYLOAD_TOO_LARGE', /an object takes more than 1048576 bytes/);
  });

  it('one page of a million text items: refused at the limit of items on a page', async () => {
    const content = deflateSync(strToU8(`BT /F1 1 Tf 72 720 Td ${'(a) Tj T*\n'.repeat(1_000_000)} ET`));
    await refused(
      extractDocument(onePage(content, '/Filter/FlateDecode'), 'pdf'),
      'PAYLOAD_TOO_LARGE',
      /page 1 has more than 50000 text items/,
    );
  });

  it('pages that repeat one page: the text stops at maxCharacters', async () => {
    const content = deflateSync(
      strToU8(`BT /F1 11 Tf 72 720 Td ${'(lorem ipsum dolor sit amet) Tj T*\n'.repeat(300)} ET`),
    );
    const pdf = pdfOf({
      1: '<</Type/Catalog/Pages 2 0 R>>',
      2: `<</Type/Pages/Count 5000/Kids [${'3 0 R '.repeat(5000)}]>>`,
      3: '<</Type/Page/MediaBox [0 0 612 792]/Resources <</Font <</F1 5 0 R>>>>/Contents 4 0 R>>',
      4: streamOf('/Filter/FlateDecode', content),
      5: HELVETICA,
    });
    await refused(extractDocument(pdf, 'pdf', { maxCharacters: 100_000 }), 'PAYLOAD_TOO_LARGE', /PDF.*maxCharacters/);
  });
});

describe('DOCTYPE internal subsets', () => {
  const SUBSET =
    '<!DOCTYPE x [<!ENTITY lol "lol"><!ENTITY lol9 "&lol;&lol;"><!ENTITY xxe SYSTEM "file:///etc/passwd">]>';

  it('EPUB: neither "]>" nor an unexpanded entity reference is text; nothing is expanded or read', async () => {
    const opf =
      '<package><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>' +
      '<spine><itemref idref="c1"/></spine></package>';
    const chapter = `<?xml version="1.0"?>${SUBSET}<html><body><p>a &lol9; b &xxe; c &amp; d &unknown; e</p></body></html>`;
    const x = await extractDocument(epubOf(opf, { 'c1.xhtml': chapter }), 'epub');
    expect(x.text).toBe('a  b  c & d &unknown; e');
  });

  it('DOCX: the same', async () => {
    const docx = docxOf(
      `<?xml version="1.0"?>${SUBSET}<w:document xmlns:w="${W}"><w:body><w:p><w:r>` +
        '<w:t>a &lol9; b &xxe; c &amp; d</w:t></w:r></w:p></w:body></w:document>',
    );
    expect((await extractDocument(docx, 'docx')).text).toBe('a  b  c & d');
  });

  it('the tag scanner steps over a DOCTYPE whole, ">" inside its subset included', () => {
    const tags = [...xmlTags(`${SUBSET}<a x="1"><b/></a>`)].map((t) => `${t.kind} ${t.name}`);
    expect(tags).toEqual(['open a', 'empty b', 'close a']);
  });
});

describe('turns', () => {
  it('files sent at once are all read (one after another); a caller that aborts while waiting leaves at once', async () => {
    const docx = docxOf(
      `<w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>one</w:t></w:r></w:p></w:body></w:document>`,
    );
    const bomb = onePage(zlibRepeated('(aaaa bbbb cccc dddd) Tj T*\n', 40), '/Filter/FlateDecode');
    const controller = new AbortController();
    const first = extractDocument(bomb, 'pdf', { maxUncompressedBytes: 32 << 20 });
    const firstRefused = refused(first, 'PAYLOAD_TOO_LARGE', /inflates/);
    const waiting = extractDocument(docx, 'docx', { signal: controller.signal });
    // the expectation is attached before anything is awaited: the rejection may come while the others are read
    const waitingLeft = expect(waiting).rejects.toThrow('left the queue');
    controller.abort(new Error('left the queue'));
    const texts = await Promise.all([1, 2, 3].map(() => extractDocument(docx, 'docx')));
    await waitingLeft;
    await firstRefused;
    expect(texts.map((x) => x.text)).toEqual(['one', 'one', 'one']);
  });
});

describe('time', () => {
  it('a reading that passes timeoutMs is refused naming it, while pdf.js works', async () => {
    const content = deflateSync(strToU8(`BT /F1 1 Tf 72 720 Td ${'(a) Tj T*\n'.repeat(40_000)} ET`));
    const pdf = pdfOf({
      1: '<</Type/Catalog/Pages 2 0 R>>',
      2: `<</Type/Pages/Count 5000/Kids [${'3 0 R '.repeat(5000)}]>>`,
      3: '<</Type/Page/MediaBox [0 0 612 792]/Resources <</Font <</F1 5 0 R>>>>/Contents 4 0 R>>',
      4: streamOf('/Filter/FlateDecode', content),
      5: HELVETICA,
    });
    await refused(
      extractDocument(pdf, 'pdf', { timeoutMs: 200 }),
      'PAYLOAD_TOO_LARGE',
      /longer than 200 ms.*timeoutMs/,
    );
  });
});

describe('the end of deflate data', () => {
  it('is seen by the streaming inflater the stream counter uses, however much data follows', () => {
    const data = deflateRawSync(strToU8('lorem ipsum dolor sit amet '.repeat(1000)));
    const inflater = new StreamInflater();
    let n = 0;
    inflater.push(data.subarray(0, data.length >> 1), false, (c) => (n += c.length));
    expect(inflater.ended).toBe(false);
    inflater.push(
      new Uint8Array([...data.subarray(data.length >> 1), ...strToU8('\nendstream\nendobj\n')]),
      false,
      (c) => (n += c.length),
    );
    expect(inflater.ended).toBe(true);
    expect(n).toBe(27_000);
  });
});
