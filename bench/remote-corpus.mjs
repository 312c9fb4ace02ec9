// Remote corpora (src/remote): what searching an infini-gram engine costs an analysis, and what it finds.
//
// The engine is the fixture server of the tests (test/fixtures/infini-gram: the infini-gram and infini-gram mini
// APIs over suffix arrays of committed public-domain text), run in a child process on 127.0.0.1 so that its work
// does not share this process's event loop; every call is delayed by the latency under test (20 ms and 200 ms,
// the range between a nearby self-hosted engine and the public service across an ocean). Texts are 2,000- and
// 10,000-word texts with 60-word passages of the indexed corpus planted in them (test/fixtures/infini-gram/
// corpus.mjs, seeded); the client runs with its defaults (rate 150 calls/s, 8 at a time, retries, budget).
//
// Rows, each with medians over the texts and the in-memory path measured in the same run, alternating text by
// text (the machine is shared: ratios within one run are what mean anything):
//   - latency × engine × length: wall ms and calls per analysis with a cold cache, found share of the planted
//     passages, and the same analysis of the same engine with a local exact dataset of the same documents
//     (`addDataset`, the path the shipped packs take) → ratio remote / local;
//   - cache: the same text analysed again (answers from the in-memory cache): calls and ms;
//   - faults: a server that answers every 7th call with a 503 page (found share, nothing thrown) and a server
//     that is down (the analysis returns, within how long, with which code);
//   - calibration: the remote dataset's confidence on planted (member) and clean (non-member) texts: AUC, ECE
//     and Brier over 10 equal-width bins.
// Results: bench/results/remote-corpus.json.
//   node bench/remote-corpus.mjs [--texts N] [--quick]        (needs dist/: npm run build)
import './help.mjs';
import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { medianOrNull, round } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const fixtures = '../test/fixtures/infini-gram/index.mjs';
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const roundOrNull = (x, d = 1) => (x === null ? null : round(x, d));

// ------------------------------------------------------------------ child: the engine server
if (process.argv[2] === '--server') {
  const { buildCharIndex, buildTokenIndex, fixtureCorpus, startInfiniGramServer } = await import(fixtures);
  const { documents } = fixtureCorpus();
  const servers = {
    'infini-gram': await startInfiniGramServer({
      kind: 'infini-gram',
      indexes: { v4_piletrain_llama: buildTokenIndex({ documents, tokenizer: 'llama' }) },
    }),
    'infini-gram-mini': await startInfiniGramServer({
      kind: 'infini-gram-mini',
      indexes: { v2_piletrain: buildCharIndex({ documents }) },
    }),
  };
  process.on('message', (m) => {
    for (const s of Object.values(servers)) {
      s.setLatency(m.latency ?? 0);
      s.setFault(m.fault === 'every7' ? (c) => (c.n % 7 === 0 ? { status: 503, html: true } : undefined) : undefined);
      s.resetCalls();
    }
    process.send({ ok: true });
  });
  process.send({ urls: Object.fromEntries(Object.entries(servers).map(([k, s]) => [k, s.url])) });
  await new Promise(() => {}); // until killed
}

// ------------------------------------------------------------------ parent
const { createEngine } = await import('../dist/index.js');
const { fixtureCorpus, plantedCases, cleanTexts } = await import(fixtures);
const quick = process.argv.includes('--quick');
const TEXTS = Number(arg('texts', quick ? '4' : '10'));
const INDEX = { 'infini-gram': 'v4_piletrain_llama', 'infini-gram-mini': 'v2_piletrain' };

const server = fork(fileURLToPath(import.meta.url), ['--server'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const urls = await new Promise((resolve) => server.once('message', (m) => resolve(m.urls)));
const configure = (m) =>
  new Promise((resolve) => {
    server.once('message', resolve);
    server.send(m);
  });

const { documents } = fixtureCorpus();
const local = await createEngine();
await local.addDataset(
  { id: 'local', kb_dataset: 'the-pile' },
  documents.map((d, i) => ({ id: `doc-${i}`, text: d.text })),
);
local.search('the first search builds the indexes');

// the remote client's file, as dist/index.js loads it: its answer cache and endpoint states are per process
const chunk = ['library.js', 'index.js']
  .map((f) => /import\(\s*"\.\/(remote[\w-]*\.js)"\s*\)/.exec(readFileSync(join(here, `../dist/${f}`), 'utf8')))
  .find(Boolean)[1];
const { sharedCache, resetEndpoints } = await import(`../dist/${chunk}`);

/** A fresh engine on one remote corpus, with a cold answer cache and no endpoint history. */
async function remoteEngine(kind, endpoint = urls[kind], extra = {}) {
  sharedCache.clear();
  resetEndpoints();
  return createEngine({ remoteCorpora: [{ id: 'remote', kind, index: INDEX[kind], endpoint, ...extra }] });
}

/** Whether a remote match covers ≥ 95 % of the planted passage, from its document. */
function found(result, c) {
  const len = c.passage.end - c.passage.start;
  return result.matches.some(
    (m) =>
      m.kind === 'remote' &&
      m.doc_ix === c.source.doc_ix &&
      Math.min(m.query_end, c.passage.end) - Math.max(m.query_start, c.passage.start) >= 0.95 * len,
  );
}

async function timed(engine, text) {
  const t0 = performance.now();
  const r = await engine.analyze({ content: text, content_type: 'text' });
  return { ms: performance.now() - t0, r };
}

const rows = [];
const cacheRows = [];
for (const latency of [20, 200]) {
  await configure({ latency });
  for (const kind of ['infini-gram', 'infini-gram-mini']) {
    for (const words of [2000, 10000]) {
      const n = words === 10000 || latency === 200 ? Math.max(2, Math.ceil(TEXTS / 2)) : TEXTS;
      const cases = plantedCases({ seed: 101 + words + latency, count: n, words });
      const remoteMs = [],
        localMs = [],
        calls = [],
        againMs = [],
        againCalls = [];
      let hits = 0;
      for (const [i, c] of cases.entries()) {
        const engine = await remoteEngine(kind);
        // alternate which goes first, text by text
        const runLocal = async () => localMs.push((await timed(local, c.text)).ms);
        if (i % 2) await runLocal();
        const { ms, r } = await timed(engine, c.text);
        if (i % 2 === 0) await runLocal();
        remoteMs.push(ms);
        calls.push(r.remote_corpora[0].calls);
        if (found(r, c)) hits++;
        const again = await timed(engine, c.text);
        againMs.push(again.ms);
        againCalls.push(again.r.remote_corpora[0].calls);
        engine.dispose();
      }
      const row = {
        latency_ms: latency,
        engine: kind,
        words,
        texts: n,
        remote_ms_p50: roundOrNull(medianOrNull(remoteMs)),
        remote_ms_max: roundOrNull(Math.max(...remoteMs)),
        calls_p50: medianOrNull(calls),
        calls_max: Math.max(...calls),
        found: `${hits}/${n}`,
        local_ms_p50: roundOrNull(medianOrNull(localMs)),
        remote_over_local: roundOrNull(medianOrNull(remoteMs) / medianOrNull(localMs), 2),
      };
      rows.push(row);
      cacheRows.push({
        latency_ms: latency,
        engine: kind,
        words,
        first_ms_p50: row.remote_ms_p50,
        first_calls_p50: row.calls_p50,
        again_ms_p50: roundOrNull(medianOrNull(againMs)),
        again_calls_p50: medianOrNull(againCalls),
        again_over_first: roundOrNull(medianOrNull(againMs) / medianOrNull(remoteMs), 3),
      });
      console.log(JSON.stringify(row));
    }
  }
}

// ------------------------------------------------------------------ faults
await configure({ latency: 0, fault: 'every7' });
const faultCases = plantedCases({ seed: 977, count: TEXTS * 2, words: 2000 });
const faults = {};
for (const kind of ['infini-gram', 'infini-gram-mini']) {
  let hits = 0,
    thrown = 0;
  const outcomes = {};
  for (const c of faultCases) {
    const engine = await remoteEngine(kind);
    try {
      const r = await engine.analyze({ content: c.text, content_type: 'text' });
      if (found(r, c)) hits++;
      outcomes[r.remote_corpora[0].outcome] = (outcomes[r.remote_corpora[0].outcome] ?? 0) + 1;
    } catch {
      thrown++;
    }
    engine.dispose();
  }
  faults[`every_7th_call_503_${kind}`] = {
    texts: faultCases.length,
    found: `${hits}/${faultCases.length}`,
    found_share: roundOrNull(hits / faultCases.length, 3),
    thrown,
    outcomes,
  };
}
// a port nothing listens on: connections are refused
const deadPort = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});
{
  const engine = await remoteEngine('infini-gram', `http://127.0.0.1:${deadPort}/`);
  const { ms, r } = await timed(engine, faultCases[0].text);
  faults.down_server = {
    ms: roundOrNull(ms),
    outcome: r.remote_corpora[0].outcome,
    limitations: r.limitations.filter((l) => l.startsWith('remote_')),
    calls: r.remote_corpora[0].calls,
  };
  engine.dispose();
}
// a server that accepts and never answers: the search deadline decides
{
  const hang = createServer((socket) => socket.on('error', () => {})).listen(0, '127.0.0.1');
  await new Promise((resolve) => hang.once('listening', resolve));
  const engine = await remoteEngine('infini-gram', `http://127.0.0.1:${hang.address().port}/`);
  const { ms, r } = await timed(engine, faultCases[0].text);
  faults.hanging_server = {
    ms: roundOrNull(ms),
    outcome: r.remote_corpora[0].outcome,
    limitations: r.limitations.filter((l) => l.startsWith('remote_')),
    calls: r.remote_corpora[0].calls,
  };
  engine.dispose();
  hang.close();
}
console.log(JSON.stringify(faults));

// ------------------------------------------------------------------ calibration of the remote confidence
await configure({ latency: 0 });
const members = [
  ...plantedCases({ seed: 5003, count: TEXTS * 3, words: 2000 }),
  ...plantedCases({ seed: 5011, count: TEXTS * 3, words: 2000, editEvery: 20 }),
];
const nonMembers = cleanTexts({ seed: 5021, count: TEXTS * 6, words: 2000 });
const scored = [];
{
  const engine = await remoteEngine('infini-gram');
  for (const [label, texts] of [
    [1, members.map((c) => c.text)],
    [0, nonMembers],
  ]) {
    for (const text of texts) {
      const r = await engine.analyze({ content: text, content_type: 'text' });
      const d = r.evidence.datasets.find((x) => x.dataset_id === 'remote');
      scored.push({ label, confidence: d?.confidence ?? 0 });
    }
  }
  engine.dispose();
}
const auc = (() => {
  const pos = scored.filter((s) => s.label === 1),
    neg = scored.filter((s) => s.label === 0);
  let wins = 0;
  for (const p of pos)
    for (const q of neg) wins += p.confidence > q.confidence ? 1 : p.confidence === q.confidence ? 0.5 : 0;
  return wins / (pos.length * neg.length);
})();
const bins = Array.from({ length: 10 }, () => ({ n: 0, conf: 0, acc: 0 }));
for (const s of scored) {
  const b = bins[Math.min(9, Math.floor(s.confidence * 10))];
  b.n++;
  b.conf += s.confidence;
  b.acc += s.label;
}
const ece = bins.reduce((e, b) => e + (b.n ? (b.n / scored.length) * Math.abs(b.acc / b.n - b.conf / b.n) : 0), 0);
const brier = scored.reduce((e, s) => e + (s.confidence - s.label) ** 2, 0) / scored.length;
const calibration = {
  members: members.length,
  non_members: nonMembers.length,
  auc: roundOrNull(auc, 4),
  ece: roundOrNull(ece, 4),
  brier: roundOrNull(brier, 4),
  false_positives_at_0_5: scored.filter((s) => s.label === 0 && s.confidence >= 0.5).length,
  members_below_0_5: scored.filter((s) => s.label === 1 && s.confidence < 0.5).length,
};
console.log(JSON.stringify(calibration));

server.kill();
local.dispose();
const t20 = rows.filter((r) => r.latency_ms === 20 && r.words === 2000);
const report = {
  bench: 'remote-corpus',
  date: new Date().toISOString(),
  node: process.version,
  cores: (await import('node:os')).availableParallelism(),
  setup:
    'fixture infini-gram / infini-gram mini server in a child process on 127.0.0.1, latency added per call; ' +
    'client defaults (150 calls/s, 8 concurrent); planted 60-word corpus passages; local = addDataset of the same documents',
  targets: {
    p50_ms_2000_words_at_20ms: {
      target: '≤ 2000',
      measured: Object.fromEntries(t20.map((r) => [r.engine, r.remote_ms_p50])),
    },
    calls_2000_words: {
      target: '≤ 250',
      measured: Object.fromEntries(
        rows.filter((r) => r.words === 2000).map((r) => [`${r.engine}@${r.latency_ms}ms`, r.calls_max]),
      ),
    },
    calls_10000_words: {
      target: '≤ 1000',
      measured: Object.fromEntries(
        rows.filter((r) => r.words === 10000).map((r) => [`${r.engine}@${r.latency_ms}ms`, r.calls_max]),
      ),
    },
    every_7th_call_fails: {
      target: '≥ 0.90 found, nothing thrown',
      measured: Object.fromEntries(
        Object.entries(faults)
          .filter(([k]) => k.startsWith('every'))
          .map(([k, v]) => [k, { found_share: v.found_share, thrown: v.thrown }]),
      ),
    },
    down_server: { target: '< 30000 ms, remote_corpus_unreachable', measured: faults.down_server },
  },
  rows,
  cache: cacheRows,
  faults,
  calibration,
};
writeFileSync(join(here, 'results/remote-corpus.json'), JSON.stringify(report, null, 2) + '\n');
console.log('wrote bench/results/remote-corpus.json');
process.exit(0);
