// Reading files of a public repository's commit from a clone (bare or not), for the bench scripts that measure on
// text kept out of the packs: bench/measure-chain-null.mjs, bench/eval-formulas.mjs, bench/eval-span-edges.mjs.
import './help.mjs';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The git directory of `dir`: itself when bare, `dir/.git` for a work tree. */
export const gitDirOf = (dir) => (existsSync(join(resolve(dir), '.git')) ? join(resolve(dir), '.git') : resolve(dir));

/** The blobs `specs` (commit:path) of a git directory as UTF-8 text, in order, read 20 at a time. */
export function* readBlobs(gitDir, specs) {
  for (let i = 0; i < specs.length; i += 20) {
    const r = spawnSync('git', ['--git-dir', gitDir, 'cat-file', '--batch'], {
      input: `${specs.slice(i, i + 20).join('\n')}\n`,
      maxBuffer: 2 ** 30,
    });
    if (r.status !== 0) throw new Error(`git cat-file: ${r.stderr}`);
    const out = r.stdout;
    for (let at = 0; at < out.length; ) {
      const nl = out.indexOf(10, at);
      const head = out.subarray(at, nl).toString('utf8').split(' ');
      if (head[1] === 'missing') throw new Error(`missing ${head[0]}`);
      const size = Number(head[2]);
      yield out.subarray(nl + 1, nl + 1 + size).toString('utf8');
      at = nl + 1 + size + 1;
    }
  }
}

/** The WikiExtractor files text/AB … AD of jason-feng/wikiVisual at the commit pack:wikipedia-core is built from. */
export const WIKI_COMMIT = '1c0fac92f29f17c1603bfffbe864e0dfdff66897';
export function wikiVisualFiles() {
  const specs = [];
  for (const part of ['AB', 'AC', 'AD'])
    for (let i = 0; i < 100; i++) specs.push(`${WIKI_COMMIT}:text/${part}/wiki_${String(i).padStart(2, '0')}`);
  return specs;
}
/** The articles of a WikiExtractor file: [{ id, title, words }] (the body's words, without the title line). */
export function* extractorArticles(file) {
  for (const m of file.matchAll(/<doc id="(\d+)" url="[^"]*" title="([^"]*)">\n([\s\S]*?)\n<\/doc>/g))
    yield { id: Number(m[1]), title: m[2], words: m[3].split('\n').slice(1).join('\n').split(/\s+/).filter(Boolean) };
}
