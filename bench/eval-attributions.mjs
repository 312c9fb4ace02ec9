// Attributions as a reader reads them, and the share quoted from one work (docs/analyze.md#quotations): new
// development sets beside bench/eval-quotations.mjs.
//
//   attributed   the 32 essays of bench/data/quotations/essays.txt with their passage (default packs) introduced
//                without quotation marks by forms that set not one of them: reported speech ("Melville wrote that
//                …"), a possessive narrator ("As Melville's narrator tells it, …"), an attribution in the paragraph
//                after ("So wrote Melville in …", "These are the words of …"), one ending the paragraph before ("I
//                copied out what Melville wrote:", "Melville described it in these words."), "In Melville's own
//                words", an unnamed "… and said:" before the block, "That is how Melville put it" after; and the same
//                text with no attribution (the control: the passage must still count). Split as
//                the essays are (dev 20, held-out 12)
//   tags         copies of a page of a packed book holding its own dialogue tags ("said Anne", "… said:") inside
//                another text, unmarked, at about a quarter of its words: the book's tags must not make the copy a
//                quotation (≥ 50 naming the book); the same page after "As <author> wrote," is one (< 50)
//   shares       a Markdown block quote of one packed book padded with the essays' prose to 20–60 % of the text:
//                under a third < 50, from 40 % ≥ 50 with the share in the headline, 52 % and more ≥ 50
//   languages    bench/data/attributions/languages.json: openings of works in Italian, German, French, Spanish,
//                Portuguese, Dutch, Polish and Russian in an exact dataset declared as Project Gutenberg, and texts
//                in each language (and an English one quoting Dante in Italian) quoting their first sentences (about
//                40 words, a fifth of the text) in the forms of the language: < 50 with the quotation shown naming
//                the work; the same text without the form ≥ 50, but the English one quoting Dante in Italian: its
//                passage is in another language than the text around it, a quotation without a form (< 50)
//
//   node bench/eval-attributions.mjs [--check] [--out FILE]     (the tags and shares parts read ../shared/data)
import './help.mjs';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../dist/index.js';
import { round } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const CHECK = process.argv.includes('--check');
const OUT = arg('out', fileURLToPath(new URL('./results/eval-attributions.json', import.meta.url)));
const QDATA = new URL('./data/quotations/', import.meta.url);
const SHARED = new URL('../../shared/data/gutenberg-nltk/texts/', import.meta.url);
const LANGS = JSON.parse(readFileSync(new URL('./data/attributions/languages.json', import.meta.url), 'utf8'));

/** Floors of --check: attributed ≤ 1 in 7 at ≥ 50; the rest as the targets. */
const CHECK_FLOORS = {
  attributed_below_50: 6 / 7,
  control_ge50: 0.9,
  tags_ge50: 0.9,
  tags_attributed_below_50: 0.9,
  languages_below_50: 6 / 7,
  languages_control_ge50: 0.9,
};

const AUTHORS = {
  austen: ['Jane Austen', 'Pride and Prejudice'],
  'two-cities': ['Dickens', 'A Tale of Two Cities'],
  ishmael: ['Herman Melville', 'Moby-Dick'],
  woods: ['Thoreau', 'Walden'],
  desperation: ['Thoreau', 'Walden'],
  preamble: ['the Framers', 'the Constitution'],
  sonnet18: ['Shakespeare', 'the sonnets'],
  romeo: ['Shakespeare', 'Romeo and Juliet'],
  marley: ['Dickens', 'A Christmas Carol'],
  karenina: ['Tolstoy', 'Anna Karenina'],
  copperfield: ['Dickens', 'David Copperfield'],
  paradise: ['Milton', 'Paradise Lost'],
  raven: ['Poe', 'The Raven'],
  huck: ['Mark Twain', 'Huckleberry Finn'],
  eyre: ['Charlotte Brontë', 'Jane Eyre'],
  fog: ['Dickens', 'Bleak House'],
};
const lower = (s) => s.charAt(0).toLowerCase() + s.slice(1);
const flat = (s) => s.replace(/\s*\n\s*/g, ' ');
/** The attribution forms: (passage, author, work) → the paragraphs between the essay's before and after. */
const FORMS = {
  none: (q) => q,
  reported: (q, a) => `${a} wrote that ${lower(q)}`,
  narrator: (q, a) => `As ${a}'s narrator tells it, ${q}`,
  'so-wrote-after': (q, a, w) => `${q}\n\nSo wrote ${a} in ${w}, and I have not found a better way to say it.`,
  'words-of-after': (q, a) => `${q}\n\nThese are the words of ${a}, and they have stayed with me ever since.`,
  'wrote-before': (q, a) => `I copied out what ${a} wrote:\n\n${q}`,
  'own-words': (q, a) => `In ${a}'s own words, ${q}`,
  'said-block': (q) => `Then she stood up in front of all of us and said:\n\n${q}`,
  'these-words-before': (q, a) => `${a} described it in these words.\n\n${q}`,
  'that-is-how-after': (q, a) => `${q}\n\nThat is how ${a} put it, and nobody has put it better since.`,
};

const rate = (rows, f) => {
  const k = rows.filter(f).length;
  return { k, n: rows.length, share: rows.length ? round(k / rows.length, 4) : null };
};
const words = (s) => s.split(/\s+/).filter(Boolean).length;

function readEssays() {
  const raw = readFileSync(new URL('essays.txt', QDATA), 'utf8');
  return raw
    .split(/^=== /m)
    .slice(1)
    .map((b) => {
      const [header, ...lines] = b.trim().split('\n');
      const [id, passage, , , split] = header.split('|').map((s) => s.trim());
      const at = lines.findIndex((l) => l.startsWith('@@'));
      return {
        id,
        passage,
        split,
        before: lines.slice(0, at).join('\n').trim(),
        after: lines
          .slice(at + 1)
          .join('\n')
          .trim(),
      };
    });
}

/** What an analysis says of the passage at [from, to) of the content: its best match there. */
function at(r, from, to) {
  const over = r.matches.filter(
    (m) => m.kind !== 'near' && Math.min(m.query_end, to) - Math.max(m.query_start, from) > 0,
  );
  const m = over.sort((a, b) => b.tokens - a.tokens)[0];
  return m
    ? {
        role: m.role ?? null,
        by: m.quotation?.by ?? null,
        attributed_to: m.quotation?.attributed_to ?? null,
        share: m.quotation?.share ?? null,
        document: m.document?.title ?? m.article?.title ?? m.document_id ?? null,
      }
    : null;
}

const engine = await createEngine({ packs: 'default' });
const { passages } = JSON.parse(readFileSync(new URL('passages.json', QDATA), 'utf8'));
const byId = new Map(passages.map((p) => [p.id, p]));
const essays = readEssays();

// ---- attributed: the essays' passages behind each form
const attributed = [];
for (const e of essays) {
  const q = flat(byId.get(e.passage).text);
  const [author, work] = AUTHORS[e.passage];
  for (const [form, make] of Object.entries(FORMS)) {
    const middle = make(q, author, work);
    const content = `${e.before}\n\n${middle}\n\n${e.after}`;
    const from = content.indexOf(form === 'reported' ? lower(q).slice(0, 30) : q.slice(0, 30));
    const r = await engine.analyze({ content, content_type: 'text' });
    attributed.push({
      id: e.id,
      split: e.split,
      form,
      confidence: r.confidence,
      match: at(r, from, from + q.length),
    });
  }
}

// ---- tags: copies of pages of packed books holding their own dialogue tags
const tags = [];
const shares = [];
const BOOKS = [
  ['austen-persuasion.txt', 'Jane Austen', /persuasion/i],
  ['chesterton-thursday.txt', 'Chesterton', /thursday/i],
];
const host = essays.map((e) => `${e.before}\n\n${e.after}`);
if (existsSync(SHARED)) {
  for (const [file, author, title] of BOOKS) {
    const book = readFileSync(new URL(file, SHARED), 'utf8').replace(/\s+/g, ' ');
    const tag = /[,.!?]["”]? said [A-Z][a-z]+[,.]|[A-Z][a-z]+ said[:,] ?["“]/g;
    let n = 0;
    for (let m = tag.exec(book); m !== null && n < 8; m = tag.exec(book)) {
      if (m.index < 20000 || m.index % 3 !== 0) continue; // spread over the book, past its opening
      const start = book.lastIndexOf('. ', m.index - 300) + 2;
      const page = book
        .slice(start, start + 900)
        .split(' ')
        .slice(0, 110)
        .join(' ');
      if (!page.includes(m[0].trim().slice(0, 8))) continue;
      n++;
      // two essays' prose around the page: the copy is about a quarter of the text, under the share that counts
      const around = `${host[(n * 7 + file.length) % host.length]}\n\n${host[(n * 7 + file.length + 1) % host.length]}`;
      const cut = around.indexOf('\n\n');
      for (const lead of ['', `As ${author} wrote, `]) {
        const content = `${around.slice(0, cut)}\n\n${lead}${page}\n\n${around.slice(cut + 2)}`;
        const r = await engine.analyze({ content, content_type: 'text' });
        const from = content.indexOf(page.slice(0, 40));
        const hit = at(r, from, from + page.length);
        tags.push({
          book: file,
          attributed: lead !== '',
          share: round(words(page) / words(content), 3),
          confidence: r.confidence,
          named: hit !== null && title.test(hit.document ?? ''),
          match: hit,
        });
      }
    }
  }
  // ---- shares: one block quote of a packed book at 20–60 % of the text
  const book = readFileSync(new URL('austen-persuasion.txt', SHARED), 'utf8').split(/\s+/).filter(Boolean);
  const prose = host.join('\n\n').split(/\s+/).filter(Boolean);
  for (const target of [0.2, 0.3, 0.4, 0.45, 0.48, 0.52, 0.6]) {
    for (const offset of [30000, 52000, 71000]) {
      const quoted = 160;
      const own = Math.round((quoted * (1 - target)) / target);
      const half = Math.floor(own / 2);
      const text = book.slice(offset, offset + quoted).join(' ');
      const content = `${prose.slice(offset % 500, (offset % 500) + half).join(' ')}\n\n> ${text}\n\n${prose.slice(2000, 2000 + own - half).join(' ')}`;
      const r = await engine.analyze({ content, content_type: 'markdown' });
      shares.push({
        target,
        offset,
        confidence: r.confidence,
        quotations: r.matches.filter((m) => m.role === 'quotation').length,
        stated: /(\d+) % of the text is quoted from/.exec(r.corpus_evidence.summary)?.[0] ?? null,
        named: r.matches.some((m) => /persuasion/i.test(m.document?.title ?? '')),
      });
    }
  }
}
engine.dispose();

// ---- languages: an exact dataset of the openings, texts quoting them in their languages' forms
const ml = await createEngine();
await ml.addDataset(
  { id: 'openings', kb_dataset: 'project-gutenberg' },
  LANGS.passages.map((p) => ({ id: p.id, text: p.text })),
);
const languages = [];
/** The passage's first sentences, about 20–45 words (a fifth of the text, under the share that counts). */
const opening = (text) => {
  const sentences = text.match(/[^.!?;]+[.!?;]+\s*/g) ?? [text];
  let out = '';
  for (const s of sentences) if (words(out) < 20 || (words(out) < 30 && words(out) + words(s) <= 45)) out += s;
  return out.trim();
};
for (const t of LANGS.texts) {
  const q = opening(LANGS.passages.find((p) => p.id === t.passage).text);
  for (const form of ['', ...t.forms]) {
    const middle = form === '' ? q : form.replace('{q}', q).replace('{Q}', lower(q));
    const content = `${t.before}\n\n${middle}\n\n${t.after}`;
    const from = content.indexOf(form.includes('{Q}') ? lower(q).slice(0, 20) : q.slice(0, 20));
    const r = await ml.analyze({ content, content_type: 'text' });
    languages.push({
      id: t.id,
      lang: t.lang,
      // the passage's language differs from the text's: a quotation with or without a form (other_language)
      foreign: LANGS.passages.find((p) => p.id === t.passage).lang !== t.lang,
      form: form === '' ? 'none' : form.replace('{q}', '…').replace('{Q}', '…').replace(/\n/g, ' '),
      share: round(words(q) / words(content), 3),
      confidence: r.confidence,
      match: at(r, from, from + q.length),
    });
  }
}
ml.dispose();

const formed = (rows) => rows.filter((r) => r.form !== 'none');
const part = (split) => {
  const rs = split === 'all' ? attributed : attributed.filter((r) => r.split === split);
  return {
    attributed_below_50: rate(formed(rs), (r) => r.confidence < 50),
    attributed_reported: rate(formed(rs), (r) => r.match?.document !== null && r.match !== null),
    control_ge50: rate(
      rs.filter((r) => r.form === 'none'),
      (r) => r.confidence >= 50,
    ),
    by_form: Object.fromEntries(
      Object.keys(FORMS).map((f) => [
        f,
        rate(
          rs.filter((r) => r.form === f),
          (r) => r.confidence < 50,
        ),
      ]),
    ),
  };
};
const report = {
  bench: 'eval-attributions',
  date: new Date().toISOString().slice(0, 10),
  node: process.version,
  floors: CHECK_FLOORS,
  attributed: { dev: part('dev'), 'held-out': part('held-out'), all: part('all') },
  tags: {
    ge50_named: rate(
      tags.filter((t) => !t.attributed),
      (t) => t.confidence >= 50 && t.named,
    ),
    attributed_below_50: rate(
      tags.filter((t) => t.attributed),
      (t) => t.confidence < 50,
    ),
  },
  shares: Object.fromEntries(
    [...new Set(shares.map((s) => s.target))].map((target) => {
      const rs = shares.filter((s) => s.target === target);
      return [
        target,
        { ge50: rate(rs, (s) => s.confidence >= 50), stated: rate(rs, (s) => s.stated !== null), rows: rs },
      ];
    }),
  ),
  languages: {
    below_50: rate(formed(languages), (r) => r.confidence < 50),
    quotation_named: rate(formed(languages), (r) => r.match?.role === 'quotation' && r.match.document !== null),
    control_ge50: rate(
      languages.filter((r) => r.form === 'none' && !r.foreign),
      (r) => r.confidence >= 50,
    ),
    foreign_control_below_50: rate(
      languages.filter((r) => r.form === 'none' && r.foreign),
      (r) => r.confidence < 50,
    ),
  },
  rows: { attributed, tags, languages },
};
writeFileSync(OUT, `${JSON.stringify(report, null, 2)}\n`);
for (const s of ['dev', 'held-out']) {
  const p = report.attributed[s];
  console.log(
    `${s}: attributed < 50 ${p.attributed_below_50.k}/${p.attributed_below_50.n}; control ≥ 50 ${p.control_ge50.k}/${p.control_ge50.n};`,
    Object.entries(p.by_form)
      .map(([f, x]) => `${f} ${x.k}/${x.n}`)
      .join(', '),
  );
}
console.log(
  `tags: unmarked copies ≥ 50 naming the book ${report.tags.ge50_named.k}/${report.tags.ge50_named.n}; attributed < 50 ${report.tags.attributed_below_50.k}/${report.tags.attributed_below_50.n}`,
);
console.log(
  'shares:',
  Object.entries(report.shares)
    .map(([t, x]) => `${t}: ≥ 50 ${x.ge50.k}/${x.ge50.n}, stated ${x.stated.k}`)
    .join('; '),
);
const L = report.languages;
console.log(
  `languages: < 50 ${L.below_50.k}/${L.below_50.n} (quotation naming the work ${L.quotation_named.k}); control ≥ 50 ${L.control_ge50.k}/${L.control_ge50.n}; in another language than the text, no form: < 50 ${L.foreign_control_below_50.k}/${L.foreign_control_below_50.n}`,
);
console.log(`wrote ${OUT}`);

if (CHECK) {
  const fails = [];
  const ho = report.attributed['held-out'];
  if (ho.attributed_below_50.share < CHECK_FLOORS.attributed_below_50) fails.push('held-out attributed');
  if (report.attributed.all.control_ge50.share < CHECK_FLOORS.control_ge50) fails.push('control');
  if (report.tags.ge50_named.n && report.tags.ge50_named.share < CHECK_FLOORS.tags_ge50) fails.push('tags');
  if (L.below_50.share < CHECK_FLOORS.languages_below_50) fails.push('languages');
  if (L.control_ge50.share < CHECK_FLOORS.languages_control_ge50) fails.push('languages control');
  if (L.foreign_control_below_50.share !== null && L.foreign_control_below_50.share < 1) fails.push('other_language');
  if (fails.length) {
    console.error(`eval-attributions --check failed: ${fails.join(', ')}`);
    process.exit(1);
  }
}
