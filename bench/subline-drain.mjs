#!/usr/bin/env node
/**
 * What a flood of refused bodies just under the 1 MiB large-request line costs the server, build against build: one
 * Free account whose day of calls is spent sends 40 analyze bodies of 1,029,996 bytes at once, again and again, each
 * answered 429 before it is read. Its sender is a raw socket writing one prepared request (no encoding a call), so
 * that what the server spends stands out from what the client spends on the same cores.
 *
 * `--sender fetch` sends the flood as bench/hostile-attackers.mjs does instead: `fetch` with the body as a string (one
 * UTF-8 encoding a call), so that its own CPU, on the same cores, is measured beside the server's.
 *
 * For each build (`--dists name=path,…`, alternating, `--rounds` each): a fresh `serve`, the victim's 2 MB analyze
 * alone (median of 3), then beside the flood (median of 3), and during the flood the server's CPU seconds a second
 * (/proc/PID/stat), the bytes it read a second (/proc/PID/io rchar: the drained rests), the flood's answers and the
 * connections it had to open, and the sender's own CPU.
 *
 *   npm run build && node bench/subline-drain.mjs --dists after=dist,before=../base/dist [--rounds 3] [--flood-s 20]
 *     [--sender raw|fetch]
 *     [--out bench/results/subline-drain.json]
 *
 * Linux only (/proc).
 */
import './help.mjs';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cliKey, madeUpText, serveCli, timed } from './hostile-attackers.mjs';
import { pct } from './hostile-client.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TICK = 100; // USER_HZ on Linux
const cpuS = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / TICK;
};
const readBytes = (pid) => Number(/rchar:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))[1]);
const auth = (key) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

/** One sender of the flood: a prepared request written again and again on a kept (or, if closed, new) connection. */
function sender(port, request, stopped, counts) {
  return new Promise((done) => {
    let socket = null;
    let got = '';
    const open = () => {
      counts.connections++;
      socket = connect(port, '127.0.0.1');
      socket.setNoDelay(true);
      socket.on('data', (d) => {
        got += d.toString('latin1');
        const head = got.indexOf('\r\n\r\n');
        if (head < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(got.slice(0, head))?.[1] ?? 0);
        if (got.length < head + 4 + length) return;
        const status = got.slice(9, 12);
        counts.answers[status] = (counts.answers[status] ?? 0) + 1;
        const close = /\r\nconnection: close/i.test(got.slice(0, head));
        got = '';
        if (close) {
          socket.removeAllListeners('close');
          socket.destroy();
          if (stopped()) return done();
          open();
          socket.write(request);
        } else if (stopped()) {
          socket.destroy();
          done();
        } else socket.write(request);
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        if (stopped()) return done();
        got = '';
        open();
        socket.write(request);
      });
    };
    open();
    socket.write(request);
  });
}

/** One sender of the flood as bench/hostile-attackers.mjs sends it: `fetch` with a string body, again and again. */
async function fetchSender(url, key, body, stopped, counts) {
  while (!stopped()) {
    const r = await timed(`${url}/api/v1/attribution/analyze`, { method: 'POST', headers: auth(key), body });
    counts.answers[r.status] = (counts.answers[r.status] ?? 0) + 1;
  }
}

async function round(name, dist, o) {
  const cli = resolve(dist, 'cli.js');
  const dir = mkdtempSync(join(tmpdir(), 'subline-drain-'));
  const store = join(dir, 'store');
  const victimKey = await cliKey(cli, store, 'victim', 'pro');
  const floodKey = await cliKey(cli, store, 'fran', 'free');
  const served = await serveCli(cli, ['--store', store]);
  const { child, url, port } = served;
  try {
    const victimBody = JSON.stringify({ content: madeUpText(330_000, 3).slice(0, 2_000_000), content_type: 'text' });
    const victim = async () => {
      const r = await timed(`${url}/api/v1/attribution/analyze`, {
        method: 'POST',
        headers: auth(victimKey),
        body: victimBody,
      });
      return r.status === 200 ? r.ms : Number.NaN;
    };
    // the flood's account spends its day of calls first: every body of the flood is then refused before it is read
    let spent = 0;
    for (let i = 0; i < 1000; i++) {
      const r = await timed(`${url}/api/v1/attribution/analyze`, {
        method: 'POST',
        headers: auth(floodKey),
        body: JSON.stringify({ content: `a few words ${i}`, content_type: 'text' }),
      });
      if (r.status === 429) break;
      spent++;
    }
    await victim();
    const alone = [await victim(), await victim(), await victim()];
    const content = madeUpText(200_000, 11).slice(0, 1_029_960);
    const body = Buffer.from(JSON.stringify({ content, content_type: 'text' }));
    const request = Buffer.concat([
      Buffer.from(
        `POST /api/v1/attribution/analyze HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${floodKey}\r\n` +
          `content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
      ),
      body,
    ]);
    let stop = false;
    const counts = { connections: 0, answers: {} };
    const senderCpu = process.cpuUsage();
    const floodStart = performance.now();
    const flood = Promise.all(
      Array.from({ length: 40 }, () =>
        o.sender === 'fetch'
          ? fetchSender(url, floodKey, JSON.stringify({ content, content_type: 'text' }), () => stop, counts)
          : sender(port, request, () => stop, counts),
      ),
    );
    await sleep(1000);
    const cpu0 = cpuS(child.pid);
    const read0 = readBytes(child.pid);
    const t0 = performance.now();
    await sleep(o.floodS * 1000);
    const seconds = (performance.now() - t0) / 1000;
    const serverCpu = (cpuS(child.pid) - cpu0) / seconds;
    const readMBs = (readBytes(child.pid) - read0) / seconds / 1e6;
    const answers0 = Object.values(counts.answers).reduce((a, b) => a + b, 0);
    const beside = [await victim(), await victim(), await victim()];
    stop = true;
    await flood;
    const used = process.cpuUsage(senderCpu);
    const answered = Object.values(counts.answers).reduce((a, b) => a + b, 0);
    const med = (xs) => pct(xs.filter(Number.isFinite), 50);
    const r = {
      build: name,
      dist: relative(ROOT, resolve(dist)) || '.',
      sender: o.sender,
      flood_account_calls_spent_first: spent,
      body_bytes: body.length,
      victim_alone_ms: alone.map(Math.round),
      victim_beside_ms: beside.map(Math.round),
      victim_ratio: Math.round((med(beside) / med(alone)) * 100) / 100,
      flood_answers: counts.answers,
      flood_connections_opened: o.sender === 'fetch' ? null : counts.connections, // fetch's pool: not counted
      flood_answers_a_second_before_the_victim: Math.round(answers0 / seconds),
      server_cpu_s_a_second: Math.round(serverCpu * 1000) / 1000,
      server_read_mb_a_second: Math.round(readMBs * 10) / 10,
      sender_cpu_s: Math.round(((used.user + used.system) / 1e6) * 100) / 100,
      flood_s: Math.round((performance.now() - floodStart) / 100) / 10,
      load_average: loadavg()[0],
      flood_answered: answered,
    };
    console.log(JSON.stringify(r));
    return r;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      dists: { type: 'string', default: 'after=dist' },
      rounds: { type: 'string', default: '3' },
      'flood-s': { type: 'string', default: '20' },
      out: { type: 'string', default: 'bench/results/subline-drain.json' },
      sender: { type: 'string', default: 'raw' },
    },
  });
  const builds = values.dists.split(',').map((s) => s.split('='));
  const o = { floodS: Number(values['flood-s']), sender: values.sender };
  const result = {
    bench: 'subline-drain',
    node: process.version,
    cpus: cpus().length,
    load_average_at_start: loadavg()[0],
    runs: [],
  };
  for (let k = 0; k < Number(values.rounds); k++)
    for (const [name, dist] of k % 2 ? [...builds].reverse() : builds) result.runs.push(await round(name, dist, o));
  result.load_average_at_end = loadavg()[0];
  result.medians = {};
  for (const [name] of builds) {
    const runs = result.runs.filter((r) => r.build === name);
    const m = (f) => pct(runs.map(f), 50);
    result.medians[name] = {
      victim_ratio:
        pct(
          runs.map((r) => r.victim_ratio * 100),
          50,
        ) / 100,
      server_cpu_s_a_second:
        pct(
          runs.map((r) => r.server_cpu_s_a_second * 1000),
          50,
        ) / 1000,
      server_read_mb_a_second: m((r) => r.server_read_mb_a_second),
      flood_answers_a_second: m((r) => r.flood_answers_a_second_before_the_victim),
      sender_cpu_s_a_second:
        pct(
          runs.map((r) => (r.sender_cpu_s / r.flood_s) * 1000),
          50,
        ) / 1000,
    };
  }
  const out = resolve(ROOT, values.out);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result.medians), `wrote ${relative(ROOT, out)}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
