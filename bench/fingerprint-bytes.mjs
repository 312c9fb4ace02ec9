// `engine.fingerprint` of a text file's UTF-8 bytes in one process, by the ways a caller can hand them in: as a string
// made before (`string`), decoded at the call (`decoded`: `fingerprint(new TextDecoder(…).decode(bytes))`, what
// `fingerprint(bytes)` did before it tokenised bytes), as bytes (`bytes`: `fingerprint(bytes)`, which tokenises a copy
// of its own), and handed over (`handed`: `fingerprintHandedOver(bytes)`, no copy: what `trainprint fingerprint` does). CPU time of the call (process.cpuUsage, user + system) and the minor page
// faults it took (process.resourceUsage), medians over rounds in which the ways run in turn, their order rotating;
// each way's summary is checked against the string's every round.
//
//   npm run build && node bench/fingerprint-bytes.mjs [--rounds 9] [--file /work/scan-inputs/en.txt]
//     [--out fingerprint-bytes.json]
//
// Without --file, 10 MB of English (bench/corpus.mjs). The decoded string is made once, before the rounds.
import './help.mjs';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadNow, loadSpread, recordHeader, writeRecord } from './record.mjs';
import { CORPORA } from './fingerprint-whole.mjs';
import { median } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const opt = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const ROUNDS = Number(opt('--rounds') ?? 9);
const OUT = opt('--out') ?? 'fingerprint-bytes.json';
const FILE = opt('--file');

const { createEngine } = await import(resolve(here, '..', 'dist', 'fingerprint.js'));
const bytes = FILE ? new Uint8Array(readFileSync(FILE)) : new TextEncoder().encode(CORPORA.en(10_000_000));
const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
const engine = await createEngine();

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }); // as the engine decoded bytes before
const WAYS = {
  string: () => engine.fingerprint(text),
  decoded: () => engine.fingerprint(decoder.decode(bytes)),
  bytes: () => engine.fingerprint(bytes),
  handed: () => engine.fingerprintHandedOver(bytes),
};
const names = Object.keys(WAYS);
const seen = (fp) => JSON.stringify([fp.fingerprint, fp.work_hash, fp.token_count, fp.simhash?.toString(16)]);

const cpu = Object.fromEntries(names.map((n) => [n, []]));
const faults = Object.fromEntries(names.map((n) => [n, []]));
const loads = [];
const load_average_at_start = loadNow();
await WAYS.string(); // the engine's first call (tables, touched memory) outside the rounds
for (let r = 0; r < ROUNDS; r++) {
  loads.push(loadNow());
  let expected;
  for (let k = 0; k < names.length; k++) {
    const name = names[(r + k) % names.length];
    globalThis.gc?.();
    const f0 = process.resourceUsage().minorPageFault;
    const c0 = process.cpuUsage();
    const fp = await WAYS[name]();
    const c = process.cpuUsage(c0);
    faults[name].push(process.resourceUsage().minorPageFault - f0);
    cpu[name].push((c.user + c.system) / 1000);
    expected ??= seen(fp);
    if (seen(fp) !== expected) throw new Error(`${name} gave another fingerprint in round ${r}`);
  }
}
const results = Object.fromEntries(
  names.map((n) => [
    n,
    {
      cpu_ms_median: Math.round(median(cpu[n]) * 10) / 10,
      vs_string: Math.round((median(cpu[n]) / median(cpu.string)) * 1000) / 1000,
      faults_median: median(faults[n]),
      cpu_ms: cpu[n].map((x) => Math.round(x * 10) / 10),
    },
  ]),
);
for (const [n, r] of Object.entries(results))
  console.log(`${n.padEnd(8)} ${r.cpu_ms_median} ms CPU (${r.vs_string}× string)  ${r.faults_median} faults`);
const record = {
  ...recordHeader('fingerprint-bytes'),
  input: FILE ?? 'bench/corpus.mjs English, 10 MB',
  input_bytes: bytes.length,
  rounds: ROUNDS,
  load_average_at_start,
  load: loadSpread(loads),
  results,
};
console.log(`wrote ${writeRecord(`bench/results/${OUT}`, record)}`);
