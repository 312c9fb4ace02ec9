// `trainprint analyze` and its progress line, through the built CLI (dist/cli.js, `npm run build` first). With stderr
// a pipe (CI, a log) nothing is written there — no line, no escape code — and stdout is the JSON alone; on a terminal
// (a pseudo-terminal made by util-linux `script`) the line is drawn through the phases and erased before the JSON,
// and `--quiet` turns it off.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIT_GRANT } from '../fixtures/client/server.js';
import { buildDocx } from '../fixtures/documents.js';
import { dist } from '../fixtures/web-build.js';

const cli = join(dist, 'cli.js');
const SCRIPT = '/usr/bin/script';
const CLEAR = '\r\x1b[K';

let dir: string;

function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: dir, timeout: 180_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** `trainprint analyze …` with stderr on a pseudo-terminal and stdout in out.json: what the terminal showed. */
async function onTerminal(args: string): Promise<string> {
  const command = `'${process.execPath}' '${cli}' analyze ${args} > out.json`;
  const r = await run(SCRIPT, ['-q', '-e', '-c', command, '/dev/null']);
  expect(r.code, r.stdout).toBe(0);
  return r.stdout;
}

beforeAll(() => {
  if (!existsSync(cli)) throw new Error('dist/cli.js missing: run `npm run build` first');
  dir = mkdtempSync(join(tmpdir(), 'trainprint-cli-progress-'));
  writeFileSync(join(dir, 'mit.txt'), `Our project is free software.\n\n${MIT_GRANT}\n`);
  writeFileSync(join(dir, 'terms.docx'), buildDocx([{ title: 'Licence', text: MIT_GRANT }]));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('analyze: the progress line', () => {
  it('writes nothing but the JSON when stderr is not a terminal', async () => {
    for (const args of [
      ['analyze', 'mit.txt'],
      ['analyze', 'terms.docx', '--packs', 'none'],
    ]) {
      const r = await run(process.execPath, [cli, ...args]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).not.toContain('\x1b');
      const result = JSON.parse(r.stdout);
      expect(result.matches.some((m: { document_id: string }) => m.document_id === 'MIT')).toBe(true);
    }
  });

  it('on a terminal: drawn in place through the phases, erased before the JSON; --quiet draws none', async () => {
    if (!existsSync(SCRIPT)) throw new Error(`${SCRIPT} not found (apt-get install -y util-linux)`);
    const shown = await onTerminal('terms.docx --packs none');
    for (const step of ['starting the engine', 'analyzing terms.docx', "reading the file's text"])
      expect(shown).toContain(`${CLEAR}${step} · `);
    expect(shown.endsWith(CLEAR)).toBe(true); // the last thing written: the line erased
    expect(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')).extraction.format).toBe('docx');
    const packs = await onTerminal('mit.txt');
    expect(packs).toContain(`${CLEAR}loading the reference packs · `);
    expect(await onTerminal('mit.txt --packs none --quiet')).toBe('');
  });
});
