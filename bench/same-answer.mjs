// The same answer under load: analyze and score of the same text, --calls times each (a third in one go, a third
// sliced at every pause, a third with 3 ms slices; --together at once), while --burn child processes spin on the
// CPU, against this build and, alternating with it, a baseline build. Each call's JSON, fields ending in `id`
// and `_at` left out, is compared with the first call's of its build: the report counts the answers that differ
// and the alignment limitations seen. The text: edited and verbatim passages of four books (test fixtures)
// with long queries (a whole 200,000-character edited chapter run) whose alignment takes seconds on a loaded core.
//   node bench/same-answer.mjs [--baseline DIR] [--dist DIR] [--calls 50] [--together 4] [--burn 2] [--owner NAME]
//        (DIR: a build of the package; writes bench/results/same-answer.json)
import './help.mjs';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const here = fileURLToPath(new URL('.', import.meta.url));
const CALLS = Number(arg('calls', '50'));
const TOGETHER = Number(arg('together', '4'));
const BURN = Number(arg('burn', '2'));
// --owner NAME: the calls are an account's (its sliced work then takes the turns of the event loop by owner)
const OWNER = arg('owner');
const builds = [['this', resolve(arg('dist', join(here, '../dist')))]];
if (arg('baseline')) builds.push(['baseline', resolve(arg('baseline'))]);

const BOOKS = ['austen-persuasion', 'chesterton-thursday', 'milton-paradise', 'shakespeare-caesar'];
const book = (id) => readFileSync(join(here, '../test/fixtures/texts/gutenberg', `${id}.txt`), 'utf8');
const edit = (text, every) =>
  text
    .split(' ')
    .map((w, i) => (i % every === 0 ? 'zzyzx' : w))
    .join(' ');
const comparable = (value) =>
  JSON.stringify(value, (k, v) =>
    k.endsWith('id') || k.endsWith('_at') ? undefined : typeof v === 'bigint' ? String(v) : v,
  );
const TEXT = [
  ...BOOKS.flatMap((id, k) => [
    edit(book(id).slice(20_000 + k * 7_000, 23_000 + k * 7_000), 5),
    book(id).slice(60_000, 61_200),
  ]),
  edit(book('austen-persuasion').slice(100_000, 300_000), 4),
].join('\n\n');

const burners = Array.from({ length: BURN }, () =>
  spawn(process.execPath, ['-e', 'const end = Date.now() + 3_600_000; while (Date.now() < end);'], { stdio: 'ignore' }),
);
process.on('exit', () => {
  for (const b of burners) b.kill();
});

async function measure(dir) {
  const lib = await import(pathToFileURL(join(dir, 'index.js')).href);
  const { knowledgeBase } = await import(pathToFileURL(join(dir, 'kb.js')).href);
  const engine = await lib.createEngine();
  await engine.addDataset(
    { id: 'pg', kb_dataset: 'project-gutenberg' },
    BOOKS.map((id) => ({ id, text: book(id) })),
  );
  const { work_hash } = await engine.registerWork({ content: TEXT, owner: OWNER ?? 'bench' });
  const model = knowledgeBase()
    .modelsTrainedOn('project-gutenberg')
    .find((l) => l.via.length === 1 && l.model.disclosure === 'full').model.id;
  // an owner sees the datasets every account shares and its own (none here): the same datasets
  const asOwner = OWNER === undefined ? {} : { owner: OWNER };
  const kinds = {
    analyze: (sliceMs) => engine.analyze({ content: TEXT, content_type: 'text' }, { sliceMs, ...asOwner }),
    score: (sliceMs) => engine.score({ work_hash, target_model: model, jurisdiction: 'US' }, { sliceMs, ...asOwner }),
  };
  const out = {};
  for (const [kind, call] of Object.entries(kinds)) {
    const slices = [Infinity, 0, 3];
    const seen = [];
    const t0 = performance.now();
    for (let i = 0; i < CALLS; i += TOGETHER) {
      const batch = Array.from({ length: Math.min(TOGETHER, CALLS - i) }, (_, j) => call(slices[(i + j) % 3]));
      seen.push(...(await Promise.all(batch)));
    }
    const ms = performance.now() - t0;
    const first = comparable(seen[0]);
    const limits = {};
    for (const s of seen)
      for (const l of s.limitations ?? []) if (l.startsWith('alignment_')) limits[l] = (limits[l] ?? 0) + 1;
    out[kind] = {
      calls: seen.length,
      differing: seen.filter((s) => comparable(s) !== first).length,
      distinct_answers: new Set(seen.map(comparable)).size,
      alignment_limitations: limits,
      ms_per_call: Math.round(ms / seen.length),
    };
  }
  return out;
}

const results = [];
for (const [name, dir] of builds) {
  // each build in its own process would be cleaner; one process keeps the bench short, and each build loads
  // its own copy of the engine
  const r = await measure(dir);
  results.push({ build: name, ...r });
  console.log(name, JSON.stringify(r));
}
for (const b of burners) b.kill();
const out = {
  bench: 'same-answer',
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, node: process.version, burners: BURN },
  owner: OWNER ?? null,
  text_chars: TEXT.length,
  calls_per_kind: CALLS,
  together: TOGETHER,
  builds: Object.fromEntries(builds.map(([name, dir]) => [name, relative(join(here, '..'), dir)])),
  results,
};
mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(join(here, 'results', 'same-answer.json'), `${JSON.stringify(out, null, 2)}\n`);
