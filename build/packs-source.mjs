// What every prepare step of the reference packs shares (build/packs-prepare.mjs, build/packs-prepare-books.mjs):
// reading blobs from a clone of a source repository at a commit, and writing texts and manifests that the library's
// own manifest check accepts.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const lib = await import(new URL('../dist/packs.js', import.meta.url).href);
const { checkPackManifest } = lib;

export const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
export const today = () => new Date().toISOString().slice(0, 10);
export const fail = (msg) => {
  console.error(`error: ${msg}`);
  process.exit(2);
};

// ------------------------------------------------------------------------------------------ git

export function git(gitDir, args, input) {
  return new Promise((res, rej) => {
    const p = spawn('git', ['--git-dir', gitDir, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks = [];
    let err = '';
    p.stdout.on('data', (c) => chunks.push(c));
    p.stderr.on('data', (c) => {
      err += c;
    });
    p.on('error', rej);
    p.stdin.on('error', () => {}); // EPIPE when git exits before reading (ls-tree reads nothing): its exit code tells
    p.on('close', (code) => {
      if (code === 0) res(Buffer.concat(chunks));
      else rej(new Error(`git ${args[0]}: ${err.trim() || `exit ${code}`}`));
    });
    p.stdin.end(input ?? '');
  });
}

/** The git directory of `dir`: itself when bare, `dir/.git` for a work tree. */
export function gitDirOf(dir) {
  if (!dir) fail('--repo GITDIR is needed (a clone of the source repository)');
  const d = resolve(dir);
  return existsSync(join(d, '.git')) ? join(d, '.git') : d;
}

/** Every blob of a commit: [{ path, blob, size }] (paths as bytes → UTF-8; they may hold \r). */
export async function listBlobs(gitDir, commit) {
  const out = (await git(gitDir, ['ls-tree', '-r', '-l', '-z', commit])).toString('utf8');
  return out
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf('\t');
      const [, type, blob, size] = line.slice(0, tab).split(/\s+/);
      return { path: line.slice(tab + 1), type, blob, size: Number(size) };
    })
    .filter((e) => e.type === 'blob');
}

/** Contents of blobs by id, in one `git cat-file --batch`. */
export async function readBlobs(gitDir, blobs) {
  const buf = await git(gitDir, ['cat-file', '--batch'], blobs.map((b) => `${b}\n`).join(''));
  const out = new Map();
  let at = 0;
  for (const b of blobs) {
    const nl = buf.indexOf(10, at);
    const head = buf.subarray(at, nl).toString('utf8').split(' ');
    if (head[1] === 'missing') throw new Error(`blob ${b} is missing from the clone`);
    const size = Number(head[2]);
    out.set(b, buf.subarray(nl + 1, nl + 1 + size));
    at = nl + 1 + size + 1;
  }
  return out;
}

// ------------------------------------------------------------------------------------ manifests

export function readManifest(path) {
  return existsSync(path) ? checkPackManifest(JSON.parse(readFileSync(path, 'utf8'))) : null;
}

export function writeManifest(path, manifest) {
  checkPackManifest(manifest);
  mkdirSync(dirname(path), { recursive: true });
  // arrays of numbers (article page ids and starts) on one line each: thousands of them, one per line, would be most
  // of the file
  const json = JSON.stringify(manifest, null, 2).replace(
    /\[\n\s*(-?\d+(?:,\n\s*-?\d+)*)\n\s*\]/g,
    (_, list) => `[${list.replace(/,\n\s*/g, ', ')}]`,
  );
  writeFileSync(path, `${json}\n`);
  console.error(`wrote ${path}: ${manifest.documents.length} documents`);
}

/** Write the texts and check them against the manifest's documents. */
export function writeTexts(dir, docs, texts) {
  mkdirSync(dir, { recursive: true });
  let bad = 0;
  for (const d of docs) {
    const bytes = texts.get(d.id);
    if (bytes === undefined) {
      console.error(`missing: ${d.id} (${d.source_path ?? d.file})`);
      bad++;
      continue;
    }
    writeFileSync(join(dir, d.file), bytes);
    if (sha256(bytes) !== d.sha256 || bytes.length !== d.bytes) {
      console.error(`differs: ${d.id} (${d.file}): SHA-256 ${sha256(bytes)}, expected ${d.sha256}`);
      bad++;
    }
  }
  const total = docs.reduce((a, d) => a + d.bytes, 0);
  const mb = (total / 1e6).toFixed(1);
  console.error(`${dir}: ${docs.length - bad} of ${docs.length} texts as the manifest names them (${mb} MB)`);
  if (bad) process.exitCode = 1;
}

export const docEntry = (fields, bytes) => ({ ...fields, sha256: sha256(bytes), bytes: bytes.length });

/** Read blobs in batches of about 64 MB, calling `each(entry, bytes)` for every entry. */
export async function eachBlob(gitDir, entries, each) {
  for (let i = 0; i < entries.length; ) {
    const batch = [];
    let bytes = 0;
    while (i < entries.length && (batch.length === 0 || bytes < 64e6)) {
      batch.push(entries[i]);
      bytes += entries[i++].size;
    }
    const blobs = await readBlobs(gitDir, [...new Set(batch.map((e) => e.blob))]);
    for (const e of batch) each(e, blobs.get(e.blob));
  }
}
