// The inputs of a scan of its searches alone, for `bench/cli-cpu.mjs --inputs`: the bench's 10 MB of English
// (bench/corpus.mjs) as a text file, the JSON Lines outputs of it that a scan of all of them reports a hit for (121
// of 9,943 against the bench's archive) repeated N times with their ids made unique, one output alone, and the
// archive they are scanned against (written by this build: `archiveFilesOf`). Why: in the whole scan the searches run
// 148 times as cold code among the lookups of every output; N copies of the hitting ones measure what a search costs
// once V8 has optimised it, and nothing else but the scan's fixed part.
//
//   npm run build && node bench/scan-hits-input.mjs --dir DIR [--copies 30]
//   node bench/cli-cpu.mjs --baseline OTHER/dist --rounds 7 \
//     --inputs DIR/en.txt,DIR/hits.jsonl,DIR/one.jsonl,DIR/archive-this.tpds --out cli-cpu-searches-NAME.json
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { archiveFilesOf, CORPORA, outputsOf } from './fingerprint-whole.mjs';

const opt = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const dir = opt('--dir');
if (!dir) throw new Error('--dir DIR: the folder the inputs are written to');
const COPIES = Number(opt('--copies') ?? 30);
if (!(Number.isInteger(COPIES) && COPIES >= 1)) throw new Error('--copies takes a whole number ≥ 1');

const dist = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', 'dist');
mkdirSync(dir, { recursive: true });
const text = CORPORA.en(10_000_000);
writeFileSync(join(dir, 'en.txt'), text);
const outputs = outputsOf(text);
const all = join(dir, 'all.jsonl');
writeFileSync(all, `${outputs.map((x) => JSON.stringify(x)).join('\n')}\n`);
writeFileSync(join(dir, 'one.jsonl'), `${JSON.stringify(outputs[0])}\n`);
const { this: archive } = await archiveFilesOf([['this', dist]], text, dir);
const hitsFile = join(dir, 'all-hits.jsonl');
execFileSync(process.execPath, [join(dist, 'cli.js'), 'scan', '--dataset', archive, all, '--out', hitsFile, '--quiet']);
const hit = new Set(
  readFileSync(hitsFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).id),
);
const lines = [];
for (let copy = 0; copy < COPIES; copy++)
  for (const o of outputs) if (hit.has(o.id)) lines.push(JSON.stringify({ ...o, id: `${o.id}_${copy}` }));
writeFileSync(join(dir, 'hits.jsonl'), `${lines.join('\n')}\n`);
console.log(
  `${dir}: ${hit.size} outputs that hit, ${COPIES} times over (${lines.length} searches); archive ${archive}`,
);
