/**
 * Portraits: runs of consecutive hits only, against the portrait's measured background — how often unrelated
 * natural text starts and continues runs of hits in it (src/datasets/background.ts): with π(r) = a · c₁ · cₜ^(r−2)
 * the chance that a run of r fingerprints starts at a place, chance = min(1, K · minⱼ P(Poisson(m · π₍ⱼ₎) ≥ j)) over
 * the K runs of at least two fresh fingerprints. The query's scattered hit count is shown (coverage.membership) but
 * is not evidence: unrelated text of any length shares common phrases with a large corpus. A portrait keeps no
 * positions; a portrait that locates (the reference packs) resolves each run of hits to the document and 4,096-word
 * section they agree on (src/datasets/locator.ts), and its chance is then that of those chains.
 */
import type { DatasetSearchDetail } from '../../../corpus/types.js';
import type { PortraitMatch } from '../../../datasets/types.js';
import { countedChance } from './chance.js';
import { type EvidenceKind, type MatchKind, runFactors } from './kind.js';

export const PORTRAIT: EvidenceKind<Extract<DatasetSearchDetail, { kind: 'portrait' }>> = {
  fit: 'portrait',
  positions: false,
  wholeText: false,
  synchronous: true,
  // runs only (the search computed their chance): scattered hits never enter it
  chance: ({ search: s }) => countedChance(s.tested, s.hits, s.run_start, s.evidence_runs, s.chance),
  always: (detail) => (detail.search.background_measured ? {} : { limitations: ['portrait_background_not_measured'] }),
  counted: (detail, f) => ({
    factors: [...runFactors(f), 'portrait_membership'],
    // a portrait that locates names the document and section of every match (src/datasets/locator.ts)
    limitations: detail.search.located ? ['alignment_unavailable'] : ['portrait_no_positions', 'alignment_unavailable'],
  }),
  flaggedChunk: ['portrait_membership'],
  flaggedDataset: [],
};

export const PORTRAIT_MATCH: MatchKind<PortraitMatch> = {
  headlineWords: (m) => m.tokens,
  // a chain's winnowed hits reach past the copy by up to a window of fingerprints either side
  edgeSlack: 160,
  passage: true,
  sharedDocuments: false,
  run: () => 0,
  describe: (m, where) => {
    // a chain whose document is uncertain is phrasing the pack holds, not a text it names
    if (m.document_id === null)
      return `${m.tokens} consecutive words of the content (${where}) are ${m.agreeing ? 'phrasing found in the pack, its document uncertain' : 'in the portrait'}`;
    const also = (m.also_in ?? []).map((a) => documentName({ ...m, ...a, article: undefined, also_in: undefined }));
    return (
      `${m.agreeing ?? m.tokens} hits over ${m.tokens} words of the content (${where}) are in ${documentName(m)}` +
      (also.length > 0 ? `; the same text is also in ${also.join('; ')}` : '')
    );
  },
  // who reproduced the text: a book's author (the editions and collections of one author's work are one), an
  // article's title (the same article in two packs is one text), else the document
  document: (m) => m.article?.title ?? reproducer(m.document) ?? `${m.dataset_id}\u0000${m.document_id}`,
  reprinted: (m) => (m.also_in ?? []).some((a) => reproducer(a.document) !== reproducer(m.document)),
};

/** Who a document of a pack is by: its author, else its title (a work told apart from another author's). */
function reproducer(d: PortraitMatch['document']): string | undefined {
  return d?.author ?? d?.title;
}

/**
 * A portrait match's document in words: "Moby Dick; or The Whale by Herman Melville (Project Gutenberg #2701),
 * words 0–4,096"; for a document of many articles, the article: 'the article "Jarred Shaw"
 * (https://en.wikipedia.org/wiki?curid=56564559), words 0–412, in "384 articles, …" (enwiki-extract:AA/wiki_00)'.
 * @example documentName({ document_id: 'pg2701', document: { id: 'pg2701', title: 'Moby Dick' }, source_words: [0, 4096] } as PortraitMatch)
 */
export function documentName(m: PortraitMatch): string {
  const a = m.article;
  if (a !== undefined) {
    // a file of many articles: the article is what a reader opens
    const words = `words ${a.words[0].toLocaleString('en-US')}–${a.words[1].toLocaleString('en-US')}`;
    return `the article "${a.title}"${a.url ? ` (${a.url})` : ''}, ${words}, in ${m.document?.title ? `"${m.document.title}" ` : ''}(${m.document_id})`;
  }
  const d = m.document;
  let name = d?.title ? `"${d.title}"` : `document ${m.document_id}`;
  if (d?.author) name += ` by ${d.author}`;
  if (d?.ebook !== undefined) name += ` (Project Gutenberg #${d.ebook})`;
  else if (d?.title) name += ` (${m.document_id})`;
  if (m.source_words)
    name += `, words ${m.source_words[0].toLocaleString('en-US')}–${m.source_words[1].toLocaleString('en-US')}`;
  return name;
}
