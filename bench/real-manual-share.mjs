// A technical manual a quarter held, on the real engines: the share of a 20,000-word work of technical English (the
// Debian Policy Manual's text, policy.txt of Debian's `debian-policy` package) whose ~5,000-character documents are
// one in four in the corpus, mixed with unrelated documents — the case where a manual's own recurring phrases
// ("the package must", "in the control file") were found by chance and counted at the verified rate.
//
//   node bench/real-manual-share.mjs corpus DIR --manual policy.txt --others a.txt,b.txt,… [--words 20000] [--doc 5000]
//        writes DIR/manual-q5k/docs.jsonl: the work's documents (every fourth held, from the second), documents of
//        the manual beyond the work (from twice its length on) and of the other files, one of control characters
//        (mini's FM-index has no 0 sentinel); index it with the engines' own scripts as v4_manualq5k_llama /
//        v2_manualq5k (bench/real-verified-share.mjs names the prerequisites)
//   nice node bench/real-manual-share.mjs run --manual policy.txt [--words 20000] [--doc 5000] [--draws 3]
//        [--infini-gram URL] [--mini URL]   writes bench/results/real-manual-share.json
//
// The work of a draw: a first line naming the draw (another work hash, other passages; not held), then the manual's
// words from its first chapter on (after the table of contents), as the file has them (hard-wrapped at ~70 columns
// by Sphinx's text builder); the corpus holds the held documents in that form. Truth: held words ÷ the work's words.
import './help.mjs';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { cut, drawRecord, wordCount } from './verified-share-corpus.mjs';
import { round } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const WORDS = Number(arg('words', '20000'));
const DOC = Number(arg('doc', '5000'));
const INDEX = { 'infini-gram': 'v4_manualq5k_llama', 'infini-gram-mini': 'v2_manualq5k' };

/** The manual's text from its first chapter (the second "1. " heading: the first is the table of contents). */
function manualBody() {
  const text = readFileSync(arg('manual'), 'utf8');
  const first = text.indexOf('\n1. ');
  const start = text.indexOf('\n1. ', first + 1) + 1;
  if (start <= 0) throw new Error('--manual: no first chapter after the table of contents');
  return text.slice(start);
}

/** The first `words` words of the body, cut at white space. */
function firstWords(body, words) {
  const m = [...body.matchAll(/\S+/g)];
  return m.length <= words ? body : body.slice(0, m[words].index).trimEnd();
}

/** The work, its documents, which are held, and the held words. */
function work() {
  const body = manualBody();
  const text = firstWords(body, WORDS);
  const docs = cut(text, DOC).map((d, i) => ({ ...d, held: i % 4 === 1 }));
  const heldWords = docs.filter((d) => d.held).reduce((t, d) => t + wordCount(d.text), 0);
  const contentOf = (d) => `Draw ${String(d).padStart(4, '0')} of the real engines, manual.\n\n${text}`;
  return { body, text, docs, heldWords, contentOf };
}

function corpus(dir) {
  const { body, text, docs } = work();
  const beyond = body.slice(text.length * 2);
  const others = (arg('others', '') || '').split(',').filter(Boolean);
  const documents = [
    ...docs.filter((d) => d.held),
    ...cut(beyond, DOC),
    ...others.flatMap((f) => cut(readFileSync(f, 'utf8'), DOC)),
    { text: '\u0001\u0002\t' },
  ];
  const folder = join(dir, 'manual-q5k');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'docs.jsonl'), `${documents.map((d) => JSON.stringify({ text: d.text })).join('\n')}\n`);
  console.log(JSON.stringify({ folder, documents: documents.length, held: docs.filter((d) => d.held).length }));
}

async function run() {
  const { createEngine } = await import('../dist/index.js');
  const { sharedCache, resetEndpoints } = await import('../dist/remote.js');
  const urls = {
    'infini-gram': arg('infini-gram', 'http://127.0.0.1:5077/'),
    'infini-gram-mini': arg('mini', 'http://127.0.0.1:5078/'),
  };
  const { heldWords, contentOf } = work();
  const draws = Number(arg('draws', '3'));
  const runs = [];
  // the two engines at once, one analysis at a time on each (a Flask server answers one call at a time)
  await Promise.all(
    Object.keys(urls).map(async (engine) => {
      for (let d = 0; d < draws; d++) {
        sharedCache.clear();
        resetEndpoints();
        const e = await createEngine({
          remoteCorpora: [
            {
              id: 'corpus',
              kind: engine,
              endpoint: urls[engine],
              index: INDEX[engine],
              deadlineMs: 900_000,
              timeoutMs: 120_000,
            },
          ],
        });
        try {
          const content = contentOf(d);
          const truth = heldWords / wordCount(content);
          const t0 = performance.now();
          const r = await e.analyze({ content, content_type: 'text' }, { remote: true });
          const run = { engine, draw: d, ...drawRecord(r.remote_corpora[0], truth, performance.now() - t0) };
          runs.push(run);
          console.log(JSON.stringify(run));
        } finally {
          e.dispose();
        }
      }
    }),
  );
  const out = {
    method:
      `a ${WORDS.toLocaleString('en')}-word technical manual (the Debian Policy Manual, debian-policy 4.6.2.0, ` +
      `policy.txt from its first chapter) cut into ~${DOC.toLocaleString('en')}-character documents, one in four ` +
      'held, beside the manual beyond twice the work and the other texts of the package; the real engines built ' +
      'from source, their own Flask API servers on 127.0.0.1; engine.analyze (text, remote on, default client: 400 ' +
      'calls), 900 s deadline; cold cache; coverage without slack',
    machine: { cpus: cpus().length, loadavg: loadavg().map((x) => round(x, 2)) },
    covered: `${runs.filter((r) => r.covered).length}/${runs.length}`,
    runs: runs.sort((a, b) => a.engine.localeCompare(b.engine) || a.draw - b.draw),
  };
  writeFileSync(new URL('./results/real-manual-share.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
}

const [command, target] = process.argv.slice(2);
if (command === 'corpus') corpus(target);
else if (command === 'run') await run();
else console.log('usage: node bench/real-manual-share.mjs corpus DIR --manual FILE --others FILES | run --manual FILE');
