#!/usr/bin/env node
/**
 * A throwaway PostgreSQL cluster for the tests: initdb into a temporary folder, start it on a free
 * port of 127.0.0.1 (socket in the same folder), stop it and delete the folder.
 *
 *   node test/pg/cluster.mjs start     prints TRAINPRINT_TEST_PG_URL=… and TRAINPRINT_TEST_PG_DIR=… (eval-able)
 *   node test/pg/cluster.mjs stop DIR  stops the cluster in DIR and deletes DIR
 *
 * The binaries come from `pg_config --bindir`, else the newest /usr/lib/postgresql/<n>/bin, else
 * PATH. initdb and the server refuse to run as root, so as root the cluster runs as `nobody` with
 * the folder handed to it. Login: user postgres with a random password over TCP (scram-sha-256),
 * so the tests can also check a refused login.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';

/** The folder holding initdb and pg_ctl, or undefined when PostgreSQL is not installed. */
export function findPostgresBin() {
  const candidates = [];
  try {
    const bindir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    candidates.push(bindir.trim());
  } catch {
    /* no pg_config */
  }
  try {
    const versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v));
    versions.sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  } catch {
    /* not Debian's layout */
  }
  for (const dir of candidates) if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  return undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL binary, as `nobody` when we are root. */
function runAs(bin, args, asNobody) {
  const [cmd, argv] = asNobody ? ['runuser', ['-u', 'nobody', '--', bin, ...args]] : [bin, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) {
    throw new Error(`${bin} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
  }
  return r.stdout;
}

/**
 * Starts a cluster; resolves to { url, dir, stop() }. Tests run it with fsync off (nothing to
 * survive); `{ durable: true }` keeps PostgreSQL's defaults (fsync, synchronous commit) for benches.
 * `settings` adds server settings (`{ shared_buffers: '1GB' }` → `-c shared_buffers=1GB`).
 */
export async function startCluster({ durable = false, settings = {} } = {}) {
  const bin = findPostgresBin();
  if (!bin) throw new Error('no PostgreSQL binaries (pg_config --bindir, /usr/lib/postgresql/*/bin, PATH)');
  const asNobody = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'trainprint-pg-'));
  const data = join(dir, 'data');
  const password = randomBytes(12).toString('hex');
  writeFileSync(join(dir, 'pwfile'), `${password}\n`);
  if (asNobody) {
    chmodSync(dir, 0o700);
    chownSync(dir, 65534, 65534);
    chownSync(join(dir, 'pwfile'), 65534, 65534);
  }
  const initdb = [
    '-D',
    data,
    '-U',
    'postgres',
    '--pwfile',
    join(dir, 'pwfile'),
    '--auth-host=scram-sha-256',
    '--auth-local=trust',
    '-E',
    'UTF8',
    '--no-sync',
  ];
  runAs(join(bin, 'initdb'), initdb, asNobody);
  const port = await freePort();
  const fsync = durable ? '' : ' -c fsync=off';
  const extra = Object.entries(settings)
    .map(([k, v]) => ` -c ${k}=${v}`)
    .join('');
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200${fsync}${extra}`;
  const log = join(dir, 'server.log');
  writeFileSync(join(dir, 'options'), options); // for startServer after a stopServer: the same port and settings
  runAs(join(bin, 'pg_ctl'), ['-D', data, '-l', log, '-o', options, '-w', '-t', '60', 'start'], asNobody);
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  return { url, dir, stop: () => stopCluster(dir) };
}

/**
 * Stops the server of the cluster in `dir` (`pg_ctl stop -m fast`: every connection is cut), keeping its data: a
 * database that goes away under its clients, as in a restart or a failover. {@link startServer} brings it back.
 */
export function stopServer(dir) {
  const bin = findPostgresBin();
  runAs(
    join(bin, 'pg_ctl'),
    ['-D', join(dir, 'data'), '-m', 'fast', '-w', '-t', '60', 'stop'],
    process.getuid?.() === 0,
  );
}

/** Starts the server of the cluster in `dir` again, on the same port with the same settings. */
export function startServer(dir) {
  const bin = findPostgresBin();
  const options = readFileSync(join(dir, 'options'), 'utf8');
  const args = ['-D', join(dir, 'data'), '-l', join(dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start'];
  runAs(join(bin, 'pg_ctl'), args, process.getuid?.() === 0);
}

/** Stops the cluster in `dir` (if it runs) and deletes the folder. */
export function stopCluster(dir) {
  const bin = findPostgresBin();
  const data = join(dir, 'data');
  if (bin && existsSync(join(data, 'postmaster.pid'))) {
    try {
      runAs(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop'], process.getuid?.() === 0);
    } catch (error) {
      console.error(String(error));
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [command, dir] = process.argv.slice(2);
  if (command === 'start') {
    const cluster = await startCluster();
    console.log(`TRAINPRINT_TEST_PG_URL=${cluster.url}`);
    console.log(`TRAINPRINT_TEST_PG_DIR=${cluster.dir}`);
  } else if (command === 'stop' && dir) {
    stopCluster(dir);
  } else {
    console.error('usage: node test/pg/cluster.mjs start | stop DIR');
    process.exit(2);
  }
}
