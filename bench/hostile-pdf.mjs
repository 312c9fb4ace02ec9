/**
 * PDF files made in code for the benches of hostile documents (bench/hostile-files.mjs, bench/document-refusals.mjs):
 * a PDF of numbered objects with its cross-reference table, stream objects, a zlib stream of many copies of one
 * flushed 1 MiB deflate segment (a flate bomb of any size in a few KiB per MiB), and a one-page document.
 */
import './help.mjs';
import { constants as zlib, deflateRawSync, deflateSync } from 'node:zlib';

export const latin1 = (s) => Buffer.from(s, 'latin1');

/** A PDF of the objects `{ number: body }` (string or bytes), with its xref table and a trailer naming object 1. */
export function pdfOf(objects) {
  const parts = [latin1('%PDF-1.7\n')];
  let length = parts[0].length;
  const numbers = Object.keys(objects)
    .map(Number)
    .sort((a, b) => a - b);
  const offsets = new Map();
  for (const n of numbers) {
    offsets.set(n, length);
    const body = objects[n];
    for (const p of [latin1(`${n} 0 obj\n`), typeof body === 'string' ? latin1(body) : body, latin1('\nendobj\n')]) {
      parts.push(p);
      length += p.length;
    }
  }
  const size = numbers.at(-1) + 1;
  let xref = `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let n = 1; n < size; n++) {
    const at = offsets.get(n);
    xref += at === undefined ? '0000000000 65535 f \n' : `${String(at).padStart(10, '0')} 00000 n \n`;
  }
  parts.push(latin1(`${xref}trailer\n<</Size ${size}/Root 1 0 R>>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A stream object: its dictionary entries, its length, its data. */
export const streamOf = (dict, data) =>
  Buffer.concat([latin1(`<<${dict}/Length ${data.length}>>\nstream\n`), data, latin1('\nendstream')]);

/** A zlib stream inflating to `mib` MiB of `unit` repeated. */
export function zlibRepeated(unit, mib) {
  const block = latin1(unit.repeat(Math.ceil((1 << 20) / unit.length)).slice(0, 1 << 20));
  const segment = deflateRawSync(block, { level: 9, finishFlush: zlib.Z_FULL_FLUSH });
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array.from({ length: mib }, () => segment), Buffer.alloc(6)]);
}

export const HELVETICA = '<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>';
export const PAGE =
  '<</Type/Page/Parent 2 0 R/MediaBox [0 0 612 792]/Resources <</Font <</F1 5 0 R>>>>/Contents 4 0 R>>';
/** A deflated content stream showing "three words here". */
export const threeWords = () => deflateSync(latin1('BT /F1 11 Tf 72 720 Td (three words here) Tj ET'));
/** A one-page PDF whose page shows `contents` (object 4) in Helvetica (object 5); `extra` adds or replaces objects. */
export const onePage = (contents, extra = {}) =>
  pdfOf({
    1: '<</Type/Catalog/Pages 2 0 R>>',
    2: '<</Type/Pages/Kids [3 0 R]/Count 1>>',
    3: PAGE,
    4: contents,
    5: HELVETICA,
    ...extra,
  });

/**
 * A PDF whose page tree is a chain of nine levels of ten kids each, all pointing at the next level: one page object
 * claiming 10⁹ pages, which a reader that walks the tree without remembering what it saw visits 10⁹ times.
 */
export function pagesDag() {
  const o = {
    1: '<</Type/Catalog/Pages 10 0 R>>',
    4: streamOf('/Filter/FlateDecode', threeWords()),
    5: HELVETICA,
    19: '<</Type/Page/Resources <</Font <</F1 5 0 R>>>>/Contents 4 0 R>>',
  };
  for (let l = 0; l < 9; l++)
    o[10 + l] = `<</Type/Pages/Count ${10 ** (9 - l)}/Kids [${`${11 + l} 0 R `.repeat(10)}]>>`;
  return pdfOf(o);
}
