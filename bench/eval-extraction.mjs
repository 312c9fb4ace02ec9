// Whole-work extraction measured on a model whose training data we know (models/README.md): byte-gpt-long-work,
// trained on a 2,050-word work 16 times an epoch, another once, and never on a third (its manifest's `inserted` and
// `never_seen`), served black-box by the package's own CLI (`trainprint model serve --generations-only`: the chat
// completions API, no log-probabilities) and measured by the built package (dist/).
//
// 1. The CLI: `trainprint extract WORK.txt --chat --budget-calls 2000` on the work inserted 16 times (its wall time
//    against the 15-minute target on 2 cores), and on the never-seen work.
// 2. The library (engine.memorization.extractWork over HTTP) on every inserted and never-seen work: nv_recall at 100
//    and 50 words, blocks, calls, hits; every block checked here again, independently of the engine: ≥ 90 % of the
//    whitespace words of its span (lower-cased) in order in `generated`.
// 3. Refusals: the same model behind a proxy that answers one request in four (by a hash of its body) with "I'm
//    sorry, but I can't help with that." — refusals counted, none aligned, and what best-of-N still finds.
// 4. The n-gram model (the package's NgramLanguageModel, order 6, trained on the same documents the same number of
//    times) on the same works: it writes lower-case words without punctuation, so no block passes the in-order
//    check however much of the work it continues (its calls' reproduced words say how much).
//   node bench/eval-extraction.mjs [--budget 2000]
// Results: bench/results/eval-extraction.json
import './help.mjs';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../dist/index.js';
import { createOpenAICompatibleModel, NgramLanguageModel } from '../dist/models.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return Number(i > 0 ? process.argv[i + 1] : fallback);
};
const BUDGET = arg('budget', 2000);
const MODEL = 'byte-gpt-long-work';
const root = fileURLToPath(new URL('../', import.meta.url));
const cli = join(root, 'dist/cli.js');
const t0 = performance.now();
const log = (...a) => console.log(`[${((performance.now() - t0) / 1000).toFixed(0)} s]`, ...a);
const manifest = JSON.parse(readFileSync(join(root, 'models', MODEL, 'manifest.json'), 'utf8'));
const words = (s) => s.split(/\s+/).filter(Boolean).length;

/**
 * The in-order check anyone can redo, computed here independently of the engine: the longest common subsequence of
 * the span's whitespace words and the generated text's (lower-cased), as a share of the span's words.
 */
function inOrder(span, generated) {
  const a = span.toLowerCase().split(/\s+/).filter(Boolean);
  const b = generated.toLowerCase().split(/\s+/).filter(Boolean);
  if (a.length === 0) return 0;
  let prev = new Uint32Array(b.length + 1);
  let row = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++)
      row[j] = a[i - 1] === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], row[j - 1]);
    [prev, row] = [row, prev];
  }
  return prev[b.length] / a.length;
}

/** `trainprint model serve` on a free port; resolves with its base URL and a stop function. */
async function serveModel() {
  const child = spawn(
    process.execPath,
    [cli, 'model', 'serve', '--model', MODEL, '--generations-only', '--port', '0'],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('model serve did not start in 120 s')), 120_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /at (http:\/\/\S+\/v1)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`model serve exited (${code})`)));
  });
  process.once('exit', () => child.kill('SIGTERM'));
  return { url, stop: () => child.kill('SIGTERM') };
}

/** A proxy that refuses one request in `every` (by an FNV hash of its body) and forwards the rest. */
async function refusingProxy(target, every) {
  let refused = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      let h = 2166136261;
      for (const b of body) h = Math.imul(h ^ b, 16777619) >>> 0;
      if (h % every === 0) {
        refused++;
        const parsed = JSON.parse(body.toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: `refusal-${refused}`,
            object: 'chat.completion',
            model: parsed.model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: "I'm sorry, but I can't help with that." },
                finish_reason: 'stop',
              },
            ],
            usage: { prompt_tokens: 0, completion_tokens: 10, total_tokens: 10 },
          }),
        );
        return;
      }
      const r = await fetch(`${target}${req.url.replace(/^\/v1/, '')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      res.writeHead(r.status, { 'content-type': 'application/json' }).end(Buffer.from(await r.arrayBuffer()));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    refused: () => refused,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** What a result says, with every block checked again here. */
function summary(result, text, seconds) {
  const checked = result.blocks.map((b) => inOrder(text.slice(b.start, b.end), b.generated));
  const long = result.blocks.filter((b) => b.words >= 100);
  return {
    nv_recall: result.nv_recall,
    nv_recall_50: result.nv_recall_50,
    blocks_100: long.length,
    blocks_50: result.blocks.length,
    longest_block_words: Math.max(0, ...result.blocks.map((b) => b.words)),
    blocks_verified: checked.filter((s) => s >= 0.9).length,
    lowest_in_order_share: checked.length ? Math.min(...checked) : null,
    calls: result.calls,
    hits: result.hits,
    refusals: result.refusals,
    failed_calls: result.failed_calls,
    reproduced_words_in_calls: result.record.calls.reduce((t, c) => t + c.reproduced_words, 0),
    stopped: result.stopped,
    prompt_variants_of_blocks: [...new Set(result.blocks.map((b) => b.prompt_variant))],
    reported_models: result.reported_models,
    transcript_sha256: result.record.transcript_sha256,
    seconds: Math.round(seconds * 10) / 10,
  };
}

const works = [
  ...manifest.inserted.map((w) => ({ ...w, role: `inserted ${w.times}×` })),
  ...manifest.never_seen.map((w) => ({ ...w, times: 0, role: 'never seen' })),
];
const out = {
  model: { name: MODEL, sha256: manifest.sha256, parameters: manifest.parameters, training: manifest.training },
  budget_calls: BUDGET,
  works: works.map((w) => ({ id: w.id, role: w.role, times: w.times, words: words(w.text), chars: w.text.length })),
  cli: {},
  library: {},
  refusing: {},
  ngram: {},
  machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
};
const engine = await createEngine();
const served = await serveModel();
log(`${MODEL} served at ${served.url}`);
const dir = mkdtempSync(join(tmpdir(), 'eval-extraction-'));
try {
  // 1. the CLI, as a user runs it
  for (const w of [works[0], works.find((x) => x.times === 0)]) {
    const file = join(dir, `${w.id.replace(/\W+/g, '-')}.txt`);
    const result = join(dir, 'result.json');
    writeFileSync(file, w.text);
    const start = performance.now();
    const code = await new Promise((resolve) => {
      const child = spawn(
        process.execPath,
        [
          cli,
          'extract',
          file,
          '--model-url',
          served.url,
          '--model',
          MODEL,
          '--chat',
          '--budget-calls',
          String(BUDGET),
          '--out',
          result,
          '--allow-private-model-hosts',
        ],
        { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] },
      );
      child.once('exit', resolve);
    });
    const seconds = (performance.now() - start) / 1000;
    if (code !== 0) throw new Error(`trainprint extract exited ${code}`);
    out.cli[w.id] = { role: w.role, ...summary(JSON.parse(readFileSync(result, 'utf8')), w.text, seconds) };
    log(`CLI ${w.role}: ${JSON.stringify(out.cli[w.id])}`);
  }

  // 2. the library over HTTP, every work
  const chat = (url) => createOpenAICompatibleModel({ baseUrl: url, model: MODEL, api: 'chat', timeoutMs: 600_000 });
  for (const w of works) {
    const start = performance.now();
    const r = await engine.memorization.extractWork({ text: w.text, model: chat(served.url), budget_calls: BUDGET });
    out.library[w.id] = { role: w.role, ...summary(r, w.text, (performance.now() - start) / 1000) };
    log(`library ${w.role}: ${JSON.stringify(out.library[w.id])}`);
  }

  // 3. refusals: one request in four refused by a proxy in front of the same model
  const proxy = await refusingProxy(served.url, 4);
  try {
    const w = works[0];
    const start = performance.now();
    const r = await engine.memorization.extractWork({ text: w.text, model: chat(proxy.url), budget_calls: BUDGET });
    out.refusing[w.id] = {
      role: w.role,
      proxy_refused: proxy.refused(),
      refused_calls_aligned: r.record.calls.filter((c) => c.refused && c.reproduced_words > 0).length,
      blocks_containing_refusal: r.blocks.filter((b) => /can't help with that/.test(b.generated)).length,
      ...summary(r, w.text, (performance.now() - start) / 1000),
    };
    log(`refusing proxy: ${JSON.stringify(out.refusing[w.id])}`);
  } finally {
    await proxy.close();
  }

  // 4. the n-gram model on the same documents, the same number of times
  const docs = [
    ...manifest.members.map((d) => d.text),
    ...manifest.inserted.flatMap((w) => Array(w.times).fill(w.text)),
  ];
  const lm = NgramLanguageModel.train(docs, { order: 6 });
  const ngram = lm.asTargetModel({ id: 'ngram:long-work' });
  for (const w of works) {
    const start = performance.now();
    const r = await engine.memorization.extractWork({
      text: w.text,
      model: ngram,
      budget_calls: BUDGET,
      max_tokens: 64,
    });
    out.ngram[w.id] = { role: w.role, ...summary(r, w.text, (performance.now() - start) / 1000) };
    log(`n-gram ${w.role}: ${JSON.stringify(out.ngram[w.id])}`);
  }
} finally {
  served.stop();
  engine.dispose();
  rmSync(dir, { recursive: true, force: true });
}
out.seconds = Math.round((performance.now() - t0) / 1000);
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/eval-extraction.json'), `${JSON.stringify(out, null, 2)}\n`);
log('wrote bench/results/eval-extraction.json');
