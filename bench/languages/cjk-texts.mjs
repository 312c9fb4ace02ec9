// Texts of the Japanese and Chinese packs for bench/languages/ja.mjs and zh.mjs: the packed works from the prepared
// texts (pack-texts/<pack>/, as the pack's manifest lists them) and the natural negatives from the works the prepare
// step keeps out (pack-texts/<pack>-held-out/). Both are written by
//   node build/packs-prepare-cjk.mjs <pack> --repo GITDIR --held-out
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CJK_PACKS } from '../../build/packs-prepare-cjk.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));

function dirOf(name) {
  const dir = join(root, 'pack-texts', name);
  if (!existsSync(dir)) {
    throw new Error(
      `${dir} is missing: run node build/packs-prepare-cjk.mjs ${name.replace(/-held-out$/, '')} --repo GITDIR --held-out`,
    );
  }
  return dir;
}

/** The packed works: [{ work, document, text }] in the manifest's order. */
export function packedWorks(pack) {
  const manifest = JSON.parse(readFileSync(join(root, 'packs', pack, 'manifest.json'), 'utf8'));
  const dir = dirOf(pack);
  return manifest.documents.map((d) => ({
    work: d.title,
    document: d.id,
    text: readFileSync(join(dir, d.file), 'utf8'),
  }));
}

/**
 * The held-out works cut into passages of about `size` characters at paragraph ends, at most `perWork` of them
 * spread over each work: [{ source, genre, text }].
 */
export function heldOutPassages(pack, genre, { size = 1200, perWork = 40 } = {}) {
  const dir = dirOf(`${pack}-held-out`);
  const titles = new Map(
    CJK_PACKS[pack].heldOut.map(([id, , title, author]) => [`${id}.txt`, `${title}${author ? ` (${author})` : ''}`]),
  );
  const out = [];
  for (const file of readdirSync(dir).sort()) {
    const paragraphs = readFileSync(join(dir, file), 'utf8')
      .split(/\n+/)
      .filter((p) => p.trim().length > 0);
    const passages = [];
    let cur = '';
    for (const p of paragraphs) {
      cur += `${p}\n`;
      if (cur.length >= size) {
        passages.push(cur);
        cur = '';
      }
    }
    const step = Math.max(1, Math.floor(passages.length / perWork));
    for (let i = 0; i < passages.length && i / step < perWork; i += step) {
      out.push({ source: `${titles.get(file) ?? file}, ${CJK_PACKS[pack].source}`, genre, text: passages[i] });
    }
  }
  return out;
}
