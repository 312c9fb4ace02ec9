// Deterministic benchmark corpora.
//   english(bytes): real English from ../shared/data (Gutenberg, tinyshakespeare, Brown, WikiText,
//                   PAN source documents), files in sorted order, concatenated until `bytes` UTF-8 bytes.
//   mixed(), cjk(): the Vim tutor translations in bench/corpus (see SOURCE.md), repeated to size.
//   scaledDocuments(text, scale, doc): `text` cut into documents of `doc` characters, `scale` times over.
import './help.mjs';
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const shared = join(here, '../../shared/data');

function files(dir, ext) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p, ext));
    else if (ext.some((e) => name.endsWith(e))) out.push(p);
  }
  return out;
}

function jsonlText(p) {
  return readFileSync(p, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const o = JSON.parse(l);
      return (
        o.text ??
        o.passage ??
        Object.values(o)
          .filter((v) => typeof v === 'string')
          .join('\n')
      );
    })
    .join('\n\n');
}

/** English text of exactly `bytes` bytes (ASCII-only after dropping other characters is NOT done: real text). */
export function english(bytes = 10_000_000) {
  const sources = [
    ...files(join(shared, 'gutenberg-nltk/texts'), ['.txt']),
    join(shared, 'tinyshakespeare/input.txt'),
    ...files(join(shared, 'brown-corpus'), ['.txt']),
    join(shared, 'wikitext-2-raw-test/articles.jsonl'),
    ...files(join(shared, 'pan13-text-alignment'), ['.txt']),
  ];
  const parts = [];
  let have = 0;
  for (const p of sources) {
    if (!existsSync(p)) continue;
    const part = (p.endsWith('.jsonl') ? jsonlText(p) : readFileSync(p, 'utf8')) + '\n\n';
    parts.push(part);
    have += Buffer.byteLength(part);
    if (have >= bytes) break;
  }
  if (have < bytes) throw new Error(`../shared/data holds only ${have} bytes of English`);
  return Buffer.from(parts.join(''))
    .subarray(0, bytes)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

function repeatTo(text, bytes) {
  let out = '';
  while (Buffer.byteLength(out) < bytes) out += text + '\n';
  return out;
}

const tutor = (lang) => readFileSync(join(here, 'corpus', `tutor.${lang}.utf-8`), 'utf8');

/** Mixed-script text (Cyrillic, Greek, Latin with diacritics) of about `bytes` bytes. */
export function mixed(bytes = 2_000_000) {
  return repeatTo(['ru', 'el', 'bg', 'de', 'fr', 'pl'].map(tutor).join('\n'), bytes);
}

/** CJK text (Chinese, Japanese, Korean) of about `bytes` bytes. */
export function cjk(bytes = 2_000_000) {
  return repeatTo(['zh_cn', 'zh_tw', 'ja', 'ko'].map(tutor).join('\n'), bytes);
}

/**
 * `scale` copies of `text` as documents of `doc` characters, `{ id: 'c<copy>-d<n>', text }`: copies after
 * the first mark every 4th word with the copy number, so no word 5-gram of a copy is shared with another
 * and the documents hold `scale` distinct-looking corpora of real word statistics.
 */
export function* scaledDocuments(text, scale, doc = 10_000) {
  for (let copy = 0; copy < scale; copy++) yield* copyDocuments(text, copy, doc);
}

/** The documents of one copy of {@link scaledDocuments} (`copy` from 0), made alone. */
export function* copyDocuments(text, copy, doc = 10_000) {
  for (let at = 0, n = 0; at < text.length; at += doc, n++) {
    let part = text.slice(at, at + doc);
    if (copy > 0) part = part.replace(/(\S+)(\s+\S+\s+\S+\s+\S+)/g, `$1x${copy}$2`);
    yield { id: `c${copy}-d${n}`, text: part };
  }
}
