// experiment: RSS of a process whose document pool reads the flate bomb N times
import { createDocumentPool } from '../dist/node.js';
import { onePage, streamOf, zlibRepeated } from './hostile-pdf.mjs';
import { readFileSync } from 'node:fs';
const rss = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024);
const pool = createDocumentPool({ threads: 1 });
const bomb = onePage(streamOf('/Filter/FlateDecode', zlibRepeated('(aaaa bbbb cccc dddd) Tj T*\n', 1024)));
const small = onePage(streamOf('/Filter/FlateDecode', zlibRepeated('(aaaa bbbb cccc dddd) Tj T*\n', 1)));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now();
try { await pool.extractDocument(small, 'pdf', {}); } catch (e) { console.log('small', e.code); }
await sleep(1000);
const before = rss();
let peak = before;
const iv = setInterval(() => (peak = Math.max(peak, rss())), 20);
for (let i = 0; i < Number(process.argv[2] ?? 1); i++) {
  const t = Date.now();
  try { await pool.extractDocument(bomb, 'pdf', {}); } catch (e) { console.log('bomb', e.code, Date.now() - t, 'ms', rss()); }
}
await sleep(3000);
clearInterval(iv);
console.log(JSON.stringify({ before, peak, after: rss(), ratio: +(rss() / before).toFixed(2) }));
await pool.close();
