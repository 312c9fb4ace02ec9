/**
 * Every code example of the documentation runs, as written, against the BUILT package.
 *
 * Reads README.md and docs/*.md, takes every fenced block tagged `js` or `ts`, and runs it:
 * - in Node (as an ES module) from a temporary folder whose `node_modules/trainprint` links to this
 *   repository, so `import … from 'trainprint'`, `'trainprint/starter'`, `'trainprint/node'`,
 *   `'trainprint/http'` and `'trainprint/client'` resolve through package.json's `exports` to dist/,
 *   exactly as in a project that installed the package; `ts` blocks are stripped of their types first;
 * - in Deno when the block imports `npm:trainprint…` specifiers: they are pointed at dist/ and it runs with network access to 127.0.0.1 only and read access to dist/.
 * A block passes when it exits with status 0 within the time limit; an HTML comment
 * `<!-- expect: a | b -->` right before a block also requires each of `a`, `b` in its output.
 * Other blocks are not run, so every fence must carry a language tag: `sh` (commands), `json`,
 * `html`, `text` (output), `python` (the Python client, tested by test/e2e/client-python.test.ts).
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const DENO = join(root, 'node_modules/.bin/deno');
const RUN_LANGS = new Set(['js', 'ts']);
const OTHER_LANGS = new Set(['sh', 'json', 'text', 'html', 'python']);
const BLOCK_TIMEOUT_MS = 60_000;

interface Block {
  readonly page: string;
  readonly line: number;
  readonly lang: string;
  readonly code: string;
  readonly expect: readonly string[];
}

/** The fenced blocks of one Markdown page, with their language tag and expectations. */
function blocksOf(page: string): Block[] {
  const lines = readFileSync(join(root, page), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const indent = open[1].length;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]); i++) body.push(lines[i].slice(indent));
    let j = start - 1;
    while (j >= 0 && lines[j].trim() === '') j--;
    const want = j >= 0 ? /^<!--\s*expect:\s*(.*?)\s*-->$/.exec(lines[j].trim()) : null;
    blocks.push({
      page,
      line: start + 1,
      lang: open[2],
      code: body.join('\n') + '\n',
      expect: want
        ? want[1]
            .split('|')
            .map((s) => s.trim())
            .filter(Boolean)
        : [],
    });
  }
  return blocks;
}

const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const all = pages.flatMap(blocksOf);
const runnable = all.filter((b) => RUN_LANGS.has(b.lang));

const usesDeno = (b: Block) => /(['"])npm:trainprint/.test(b.code);

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd, env, timeout: BLOCK_TIMEOUT_MS, maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
      else resolve(stdout + stderr);
    });
  });
}

let dir = '';
let n = 0;

beforeAll(() => {
  if (!existsSync(join(root, 'dist/index.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  dir = mkdtempSync(join(tmpdir(), 'trainprint-docs-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules/trainprint'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('documentation examples', () => {
  it('every fence carries a language tag; examples exist; none reads outside the repository', () => {
    const untagged = all.filter((b) => !RUN_LANGS.has(b.lang) && !OTHER_LANGS.has(b.lang));
    expect(untagged.map((b) => `${b.page}:${b.line} "${b.lang}"`)).toEqual([]);
    expect(runnable.length).toBeGreaterThan(20);
    for (const b of runnable) expect(b.code, `${b.page}:${b.line}`).not.toMatch(/\.\.\/shared|\/work\/shared/);
  });

  describe.concurrent.each(pages.filter((p) => runnable.some((b) => b.page === p)))('%s', (page) => {
    const blocks = runnable.filter((b) => b.page === page);
    it.each(blocks.map((b) => [`line ${b.line} (${b.lang}${usesDeno(b) ? ', deno' : ''})`, b] as const))(
      '%s',
      async (_name, b) => {
        const id = `${b.page.replace(/[^a-z0-9]+/gi, '-')}-${b.line}-${n++}`;
        let out: string;
        if (usesDeno(b)) {
          const dist = (entry: string) => pathToFileURL(join(root, 'dist', `${entry || 'index'}.js`)).href;
          const code = b.code.replace(
            /(['"])npm:trainprint(?:\/(\w+))?\1/g,
            (_m, q: string, entry: string | undefined) => q + dist(entry ?? '') + q,
          );
          const file = join(dir, `${id}.ts`);
          writeFileSync(file, code);
          const denoDir = mkdtempSync(join(tmpdir(), 'trainprint-docs-deno-'));
          try {
            out = await run(
              DENO,
              [
                'run',
                '--no-prompt',
                '--no-config',
                '--allow-net=127.0.0.1',
                `--allow-read=${join(root, 'dist')}`,
                file,
              ],
              dir,
              { ...process.env, DENO_DIR: denoDir, NO_COLOR: '1' },
            );
          } finally {
            rmSync(denoDir, { recursive: true, force: true });
          }
        } else {
          const code =
            b.lang === 'ts'
              ? ts.transpileModule(b.code, {
                  compilerOptions: {
                    target: ts.ScriptTarget.ES2022,
                    module: ts.ModuleKind.ESNext,
                    verbatimModuleSyntax: false,
                  },
                }).outputText
              : b.code;
          const file = join(dir, `${id}.mjs`);
          writeFileSync(file, code);
          out = await run(process.execPath, [file], dir, { ...process.env, NODE_OPTIONS: '' });
        }
        for (const want of b.expect) expect(out, `${b.page}:${b.line} prints "${want}"`).toContain(want);
      },
      BLOCK_TIMEOUT_MS + 10_000,
    );
  });
});
