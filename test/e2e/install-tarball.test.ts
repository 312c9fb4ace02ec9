/**
 * The README's install path before the package is published, as a new user follows it: `npm pack` in the clone (its
 * contents checked: the built entries, the CLI, the packs and their index, the notices — no sources, tests, web build
 * or dependencies), then a new project that installs the tarball (`npm install ../trainprint-x.y.z.tgz`, the
 * dependencies from the npm cache where they are there) and reaches `import { createEngine } from 'trainprint'` in an
 * ES module and `require('trainprint')` in CommonJS, and the browser's file, `node_modules/trainprint/dist/index.js`.
 * Needs dist/ (`npm run build`).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let dir: string;
let tarball: string;
let files: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-install-'));
  // the package as `npm publish` would send it (its build is dist/, already made: no prepare script run)
  const { stdout } = await run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(dir, packed.filename);
  files = packed.files.map((f) => f.path);
}, 300_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(existsSync(join(root, 'dist/index.js')))('the packed package, installed in a new project', () => {
  it('holds the built entries, the CLI, the packs and the notices, and no sources, tests or web build', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
      bin: Record<string, string>;
    };
    for (const f of [
      'package.json',
      'README.md',
      'THIRD-PARTY-NOTICES.md',
      'dist/index.js',
      'dist/index.cjs',
      'dist/index.d.ts',
      'dist/library.js',
      'dist/cli.js',
      // the starter snapshot the CLI reads as a file (src/cli/starter-file.ts), with the record it is checked against
      // and its content index
      'dist/starter.tpds',
      'dist/starter.json',
      'dist/starter.tpci',
      'packs/index.json',
      'packs/gutenberg.tpk',
    ])
      expect(files, f).toContain(f);
    // every file an export or the bin names is in the tarball
    const named = JSON.stringify(pkg.exports).match(/\.\/dist\/[^"]+/g) ?? [];
    for (const f of [...named, ...Object.values(pkg.bin)]) expect(files, f).toContain(f.replace(/^\.\//, ''));
    expect(files.filter((f) => /^(src|test|assembly|bench|app|node_modules|dist\/web)\//.test(f))).toEqual([]);
  });

  it("installs from the tarball and reaches createEngine from 'trainprint' (ESM and CommonJS) and the browser file", async () => {
    const project = join(dir, 'my-project');
    await run('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-project', private: true }));
    await run(npm, ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: project,
      maxBuffer: 16 * 1024 * 1024,
    });
    writeFileSync(
      join(project, 'index.mjs'),
      "import { createEngine } from 'trainprint';\n" +
        'const engine = await createEngine();\n' +
        "const r = await engine.analyze({ content: 'Call me Ishmael. Some years ago, never mind how long.', content_type: 'text', search_remote: false });\n" +
        'console.log(JSON.stringify({ analyze: typeof engine.analyze, id: r.analysis_id }));\n' +
        'engine.dispose();\n',
    );
    const esm = JSON.parse((await run(process.execPath, ['index.mjs'], { cwd: project })).stdout);
    expect(esm.analyze).toBe('function');
    expect(esm.id).toMatch(/^an_/);
    const cjs = await run(
      process.execPath,
      ['-e', "const { createEngine } = require('trainprint'); console.log(typeof createEngine)"],
      { cwd: project },
    );
    expect(cjs.stdout.trim()).toBe('function');
    // the browser's import: the ES module beside the library it loads
    for (const f of ['index.js', 'library.js'])
      expect(existsSync(join(project, 'node_modules/trainprint/dist', f)), f).toBe(true);
    const bin = await run(join(project, 'node_modules/.bin/trainprint'), ['--help'], { cwd: project });
    expect(bin.stdout).toContain('trainprint analyze');
  }, 300_000);
});
