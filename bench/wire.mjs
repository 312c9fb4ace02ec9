// Answers lost on the wire: the mix of bench/wire-mix.mjs (1,000 concurrent requests over kept-alive connections,
// 200 / 401 / 413 / 429 / 503, through undici and through curl --parallel) run --runs times against the server of
// this build and, alternating with it, of a baseline build; each run counts requests that ended without their
// status (connection resets, "other side closed", curl's send and receive failures). Optional --burn N child
// processes spin on the CPU meanwhile (the loaded machine the faults were seen on).
//   node bench/wire.mjs [--baseline DIR] [--dist DIR] [--runs 10] [--requests 1000] [--burn 0]
//        (DIR: a build of the package, e.g. a copy of dist/ from the commit before; writes bench/results/wire.json)
import './help.mjs';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { curlMix, mixHandler, undiciMix } from './wire-mix.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const here = fileURLToPath(new URL('.', import.meta.url));
const RUNS = Number(arg('runs', '10'));
const REQUESTS = Number(arg('requests', '1000'));
const BURN = Number(arg('burn', '0'));
const builds = [['this', resolve(arg('dist', join(here, '../dist')))]];
if (arg('baseline')) builds.push(['baseline', resolve(arg('baseline'))]);

const burners = Array.from({ length: BURN }, () =>
  spawn(process.execPath, ['-e', 'const end = Date.now() + 3_600_000; while (Date.now() < end);'], { stdio: 'ignore' }),
);
const stopBurners = () => {
  for (const b of burners) b.kill();
};
process.on('exit', stopBurners);

const servers = new Map();
for (const [name, dir] of builds) servers.set(name, (await import(pathToFileURL(join(dir, 'node.js')).href)).serve);

const runs = [];
try {
  for (let r = 0; r < RUNS; r++) {
    // alternating: the baseline first in odd runs
    for (const [name] of r % 2 === 0 ? builds : [...builds].reverse()) {
      const server = await servers.get(name)(mixHandler(), { port: 0 });
      const t0 = performance.now();
      const undici = await undiciMix(server.url, { requests: REQUESTS, connections: 50 });
      const curl = await curlMix(server.url, { requests: REQUESTS, parallel: 50 });
      const ms = Math.round(performance.now() - t0);
      await server.close();
      const lost = undici.requests - undici.answered + (curl ? curl.requests - curl.answered : 0);
      const row = { build: name, run: r, ms, lost, wrong: undici.wrong + (curl?.wrong ?? 0), undici, curl };
      runs.push(row);
      console.log(
        `${name} run ${r}: ${lost} lost (undici ${undici.resets} resets, curl ${curl?.resets ?? 'n/a'} resets,` +
          ` ${curl?.connects ?? 'n/a'} connections), ${ms} ms`,
      );
    }
  }
} finally {
  stopBurners();
}

const summary = {};
for (const [name] of builds) {
  const own = runs.filter((x) => x.build === name);
  summary[name] = {
    runs: own.length,
    requests_per_run: 2 * REQUESTS,
    lost: own.reduce((s, x) => s + x.lost, 0),
    runs_with_a_loss: own.filter((x) => x.lost > 0).length,
    wrong_status: own.reduce((s, x) => s + x.wrong, 0),
    curl_connections_median: median(own.map((x) => x.curl?.connects ?? 0)),
    ms_median: median(own.map((x) => x.ms)),
  };
}
const out = {
  bench: 'wire',
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, node: process.version, burners: BURN },
  builds: Object.fromEntries(builds.map(([name, dir]) => [name, relative(join(here, '..'), dir)])),
  summary,
  ...(summary.baseline
    ? { ms_ratio_to_baseline: Math.round((summary.this.ms_median / summary.baseline.ms_median) * 100) / 100 }
    : {}),
  runs,
};
mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(join(here, 'results', 'wire.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log(JSON.stringify(summary, null, 2));

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor((s.length - 1) / 2)];
}
