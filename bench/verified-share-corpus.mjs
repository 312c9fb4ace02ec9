// The works and corpora of the verified-share benches (bench/verified-share.mjs on the fixture engines,
// bench/real-verified-share.mjs on the real ones): texts by kind, the held parts of a work in a corpus's line form,
// cut into documents of a given length beside documents of another text. Deterministic: the same cell, the same bytes.
import './help.mjs';
import { readFileSync } from 'node:fs';

export const wordCount = (t) => (t.match(/\S+/g) ?? []).length;

// ---------------------------------------------------------------- texts (deterministic)

const gutenberg = (name) =>
  readFileSync(new URL(`../test/fixtures/texts/gutenberg/${name}.txt`, import.meta.url), 'utf8').replace(/\r/g, '');
const paragraphsOf = (t) =>
  t
    .split(/\n{2,}/)
    .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
    .filter((p) => wordCount(p) >= 8);

/** Paragraphs until `words` words (the last cut), after the paragraphs of the first `from` words. */
function take(paragraphs, words, from = 0) {
  const out = [];
  let n = 0;
  let skipped = 0;
  for (const p of paragraphs) {
    if (skipped < from) {
      skipped += wordCount(p);
      continue;
    }
    if (n >= words) break;
    const w = p.split(' ');
    const room = words - n;
    out.push(w.length <= room ? p : w.slice(0, room).join(' '));
    n += Math.min(room, w.length);
  }
  return out;
}

const ENGLISH = () => [
  ...paragraphsOf(gutenberg('austen-persuasion')),
  ...paragraphsOf(gutenberg('chesterton-thursday')),
  ...paragraphsOf(gutenberg('milton-paradise')),
];
const ENGLISH_OTHER = () => [
  ...paragraphsOf(gutenberg('shakespeare-caesar')),
  ...paragraphsOf(gutenberg('blake-poems')),
];

function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Paragraphs of 120 words that tokenise densely (see the header), seeded. */
function densePara(seed, count) {
  const r = mulberry32(seed);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const syl = ['ka', 'zu', 'mor', 'qen', 'vil', 'tra', 'sho', 'pex', 'lun', 'dri', 'gaw', 'nef', 'yor', 'bix', 'cul'];
  const foreign = ['ää', 'ör', 'üs', 'én', 'ñi', 'åk', 'ly', 'tsö', 'ké', 'rü', 'väl', 'mä', 'öy', 'ço', 'íz'];
  const made = (s, n) => Array.from({ length: n }, () => pick(s)).join('');
  const names = ['Quorvath', 'Elspeth', 'Ximenez', 'Thandiwe', 'Oyelaran', 'Przybylski', 'Nakagawa', 'Vukovic'];
  const ident = () => {
    const a = made(syl, 2),
      b = made(syl, 2);
    return pick([
      `${a}${b[0].toUpperCase()}${b.slice(1)}`,
      `${a}_${b}`,
      `${a}(${b},${Math.floor(r() * 999)})`,
      `${a}.${b}[${Math.floor(r() * 64)}]`,
      `0x${Math.floor(r() * 0xffff).toString(16)}`,
    ]);
  };
  const out = [];
  for (let i = 0; i < count; i++) {
    const kind = i % 4;
    const w = Array.from({ length: 120 }, () =>
      kind === 0
        ? made(syl, 3)
        : kind === 1
          ? r() < 0.3
            ? pick(names)
            : made(syl, 3)
          : kind === 2
            ? made(foreign, 2 + Math.floor(r() * 2))
            : ident(),
    );
    out.push(w.join(' '));
  }
  return out;
}

/**
 * Code-like text that repeats itself, seeded: functions of a made-up C-like library (about 2.5 characters a token),
 * each a paragraph: a signature, then statements of which about a third are stock lines every function draws from a
 * small pool (argument checks, error returns, locking), the rest its own identifiers and numbers. Like real code, a
 * stretch of 10 to 30 words recurs across the work (the stock lines, in varying orders); no 48-word stretch does.
 */
function codePara(seed, count) {
  const r = mulberry32(seed);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const syl = ['buf', 'ctx', 'len', 'idx', 'node', 'map', 'key', 'val', 'ptr', 'cnt', 'hdr', 'blk', 'seg', 'tbl', 'io'];
  const id = () => `${pick(syl)}${pick(syl)[0].toUpperCase()}${pick(syl).slice(1)}${Math.floor(r() * 90)}`;
  const stock = [
    'if (ctx == NULL) { return -EINVAL; }',
    'if (len > MAX_LEN) { log_error("length out of range: %zu", len); return -ERANGE; }',
    'mutex_lock(&ctx->lock); ctx->refs++; mutex_unlock(&ctx->lock);',
    'for (size_t i = 0; i < len; i++) { sum += buf[i]; }',
    'if (ret < 0) { goto cleanup; }',
    'cleanup: free(tmp); return ret;',
    'assert(ptr != NULL && "pointer must not be null");',
    'memset(&hdr, 0, sizeof(hdr)); hdr.magic = HDR_MAGIC; hdr.version = 2;',
  ];
  const own = () =>
    pick([
      () => `${id()} = ${id()}(${id()}, ${Math.floor(r() * 4096)});`,
      () =>
        `if (${id()}->${id()} != ${id()}) { ${id()}[${Math.floor(r() * 64)}] = 0x${Math.floor(r() * 0xffff).toString(16)}; }`,
      () => `${id()}.${id()} += ${id()} * ${Math.floor(r() * 17)};`,
      () => `while (${id()} < ${id()}) { ${id()} = ${id()}->next; }`,
    ])();
  const out = [];
  for (let i = 0; i < count; i++) {
    const lines = [`static int ${id()}(struct ${id()} *ctx, const uint8_t *buf, size_t len) {`];
    for (let k = 0; k < 9; k++) lines.push(r() < 0.35 ? pick(stock) : own());
    lines.push('}');
    out.push(lines.join(' '));
  }
  return out;
}

/**
 * The text kinds: `work(words, from)` the work's paragraphs (`from` > 0: another work of the kind — English after the
 * first `from` words, dense text of another seed), `other()` the other text of the corpora.
 */
export const KINDS = {
  english: { work: (words, from = 0) => take(ENGLISH(), words, from), other: () => take(ENGLISH_OTHER(), 30_000) },
  dense: { work: (words, from = 0) => densePara(71 + from, Math.ceil(words / 120)), other: () => densePara(9, 250) },
  code: {
    work: (words, from = 0) => take(codePara(53 + from, Math.ceil(words / 40)), words),
    other: () => codePara(7, 900),
  },
};

/** Which of `count` parts a corpus holds: about `share` of them, spread along the work. */
export function heldParts(count, share) {
  if (share === 0) return [];
  const step = 1 / share;
  const out = [];
  for (let x = 0; x < count - 1e-9; x += step) out.push(Math.floor(x));
  return [...new Set(out)];
}

const wrap70 = (p) => {
  const lines = [];
  let line = '';
  for (const w of p.split(' ')) {
    if (line && line.length + 1 + w.length > 70) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines.join('\n');
};
/**
 * A copy edited: the paragraph reflowed with one word in twenty changed (the 11th, 31st, … spelt backwards; a word of
 * one character becomes `x`), as a lightly edited or re-typed copy; its words still count as held.
 */
const edit20 = (p) =>
  p
    .split(' ')
    .map((w, i) => (i % 20 !== 10 ? w : w.length > 1 ? [...w].reverse().join('') : 'x'))
    .join(' ');
export const FORMS = { reflowed: (p) => p, wrapped: wrap70, edited: edit20 };

/** A text cut into documents of about `chars` characters at white space. */
export function cut(text, chars) {
  const out = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + chars);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      const nl = text.lastIndexOf('\n', end);
      const at = Math.max(space, nl);
      if (at > start + chars / 2) end = at + 1;
    }
    const piece = text.slice(start, end);
    if (piece.trim()) out.push({ text: piece });
    start = end;
  }
  return out;
}

/**
 * The held strata in the corpus: each after a stretch of the other text (a quarter of a document, at most 3,000
 * characters: the work's text never runs from one held stratum into the next), cut into documents of `doc`
 * characters, the last filled up with the other text to that length.
 */
export function corpusDocuments(texts, doc, otherText) {
  let at = 0;
  const other = (chars) => {
    let out = '';
    while (out.length < chars) {
      const piece = otherText.slice(at, at + chars - out.length);
      out += piece;
      at = (at + piece.length) % otherText.length;
    }
    const space = out.lastIndexOf(' ');
    return space > 0 ? out.slice(0, space) : out;
  };
  const gap = Math.min(3_000, Math.floor(doc / 4));
  let stream = '';
  for (const t of texts) if (t) stream += `${other(gap)}\n\n${t}\n\n`;
  if (stream.length === 0) return [];
  const tail = doc - (stream.length % doc);
  if (tail > 0 && tail < doc) stream += other(tail);
  return cut(stream, doc);
}
/**
 * A cell's work and what a corpus holds of it. `cell`: { kind, words, share, form, parts?, from? }.
 * Returns `contentOf(d)` (the work of draw d: a first line naming the draw, of the same length in every draw, so the
 * strata stay in place; that line is not held), `heldTexts` (the held parts in the corpus's form) and `heldWords`.
 * @example
 * const w = cellWork({ kind: 'english', words: 14_000, share: 0.5, form: 'wrapped' });
 * const truth = w.heldWords / wordCount(w.contentOf(0));
 */
export function cellWork(cell, label = 'of the sampled search') {
  const body = KINDS[cell.kind].work(cell.words, cell.from ?? 0).join('\n\n');
  const contentOf = (d) => `Draw ${String(d).padStart(4, '0')} ${label}.\n\n${body}`;
  const probe = contentOf(0);
  const head = probe.length - body.length;
  // the search's strata of a text without sections: ten equal parts by characters (src/remote/sampling.ts); a
  // held stratum is the words that start in it (a drawn passage never crosses one), the first line left out
  // `parts: 20`: twenty equal parts instead, half a stratum each (a stratum half held; passages across the edges)
  const count = cell.parts ?? 10;
  const strata = Array.from({ length: count }, (_, i) => [
    Math.floor((i * probe.length) / count),
    Math.floor(((i + 1) * probe.length) / count),
  ]);
  const heldTexts = heldParts(strata.length, cell.share).map((i) => {
    const [a, b] = strata[i];
    const ws = [...probe.matchAll(/\S+/g)].filter((m) => m.index >= Math.max(a, head) && m.index < b);
    if (ws.length === 0) return { text: '', words: 0 };
    const slice = probe.slice(ws[0].index, ws.at(-1).index + ws.at(-1)[0].length);
    return { text: slice.split('\n\n').map(FORMS[cell.form]).join('\n\n'), words: ws.length };
  });
  return { contentOf, heldTexts, heldWords: heldTexts.reduce((t, h) => t + h.words, 0) };
}

/** The other text of a kind in a line form (the corpora's documents beside the work's). */
export const otherTextOf = (kind, form) => KINDS[kind].other().map(FORMS[form]).join('\n\n');

/**
 * A draw's record from an analysis's remote corpus (`rc`, with its `sampling`) against its true share: the
 * estimate, the interval and whether it covers, and the counts it was computed from (estimateShare).
 */
export function drawRecord(rc, truth, ms) {
  const s = rc.sampling;
  return {
    truth: Math.round(truth * 1e4) / 1e4,
    estimate: s?.share.estimate ?? null,
    ci_95: s?.share.ci_95 ?? null,
    ci_rule: s?.share.ci_rule ?? null,
    covered: s ? s.share.ci_95[0] <= truth && truth <= s.share.ci_95[1] : false,
    passages: s?.passages ?? 0,
    found: s?.found ?? 0,
    documents: s?.documents ?? null,
    detection: s?.detection ?? null,
    calls: rc.calls,
    outcome: rc.outcome,
    ms: Math.round(ms),
  };
}
