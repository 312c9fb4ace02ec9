/**
 * The natural negatives of bench/eval-languages.mjs on cases with known answers: the text check that tells a
 * negative quoting a packed work (a true match, counted apart) from a false positive, and the reading of Universal
 * Dependencies treebanks into passages of consecutive sentences.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JS module shared with bench/eval-languages.mjs
import { rng } from '../../bench/memorization-measures.mjs';
// @ts-expect-error plain JS module shared with bench/eval-languages.mjs
import { foldedUnits, sharedRuns } from '../../bench/shared-runs.mjs';
// @ts-expect-error plain JS module shared with bench/eval-languages.mjs
import { conlluSentences, treebankPassages } from '../../bench/ud-treebanks.mjs';

/** `n` pseudo-words from a seeded generator: no two windows of 24 repeat by chance. */
function words(n: number, seed: number): string[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => `w${Math.floor(r() * 1e6).toString(36)}`);
}

describe('sharedRuns: a negative holding K consecutive units of a packed work', () => {
  const work = words(5000, 1);
  const works = [{ document: 'book', text: work.join(' ') }];

  it('finds a planted run of K words anywhere, through case and punctuation, and names the work', () => {
    const r = rng(7);
    for (let t = 0; t < 30; t++) {
      const at = Math.floor(r() * (work.length - 30));
      const quote = work.slice(at, at + 24).map((w, i) => (i === 3 ? `«${w.toUpperCase()},` : w));
      const text = [...words(40, 100 + t), ...quote, ...words(40, 200 + t)].join(' ');
      const [hit] = sharedRuns([text], works, 'words', 24);
      expect(hit?.document).toBe('book');
      expect(hit?.at).toBe(40);
    }
  });

  it('does not call a run of K − 1 words, or K words with one replaced, a match', () => {
    const short = [...words(30, 3), ...work.slice(100, 123), ...words(30, 4)].join(' ');
    const edited = work.slice(500, 548).map((w, i) => (i % 10 === 5 ? 'x' : w));
    expect(sharedRuns([short, edited.join(' ')], works, 'words', 24)).toEqual([null, null]);
  });

  it('reads characters for scripts without spaces, punctuation and white space dropped', () => {
    const text =
      '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。';
    const quote = `彼は言った「${[...text].slice(10, 60).join('')}」と。`;
    const [hit] = sharedRuns([quote, '今日は晴れです。'.repeat(8)], [{ document: 'wagahai', text }], 'chars', 40);
    expect(hit?.document).toBe('wagahai');
    expect(foldedUnits('「猫、です」', 'chars')).toEqual(['猫', 'で', 'す']);
  });
});

describe('treebanks: sentences and passages', () => {
  const conllu = [
    '# newdoc id = n01',
    '# sent_id = n01-1',
    '# text = Erster Satz des ersten Dokuments.',
    '1\tErster\t_',
    '',
    '# sent_id = n01-2',
    '# text = Zweiter Satz.',
    '',
    '# newdoc_id = n02',
    '# sent_id = n02-1',
    '# text = Ein anderes Dokument beginnt hier mit mehr Wörtern als sonst.',
    '',
  ].join('\n');

  it('reads `# text` with its document (`# newdoc id`, `# newdoc_id`, Dutch sentence ids)', () => {
    expect(conlluSentences(conllu)).toEqual([
      { text: 'Erster Satz des ersten Dokuments.', document: 'n01' },
      { text: 'Zweiter Satz.', document: 'n01' },
      { text: 'Ein anderes Dokument beginnt hier mit mehr Wörtern als sonst.', document: 'n02' },
    ]);
    const dutch = '# sent_id = WR-P-P-H-0000000005\\WR-P-P-H-0000000005.p.2.s.1\n# text = Een zin.\n';
    expect(conlluSentences(dutch)).toEqual([{ text: 'Een zin.', document: 'WR-P-P-H-0000000005' }]);
    expect(conlluSentences('# sent_id = test-s1\n# text = Ohne Dokument.\n')).toEqual([
      { text: 'Ohne Dokument.', document: null },
    ]);
  });

  it('cuts passages at sentence starts, inside a document first, over several only where too few fit', () => {
    const files = [{ treebank: 'UD_X', file: 'x.conllu', sentences: conlluSentences(conllu) }];
    const seven = treebankPassages(files, 7, 'words', 10, rng(1));
    // 7 words fit inside n02 (10 words) from its start only; n01 (7 words) from its start only
    expect(seven.map((p: { kind: string }) => p.kind).sort()).toEqual(['document', 'document', 'documents']);
    expect(seven.every((p: { units: string[] }) => p.units.length === 7)).toBe(true);
    const long = treebankPassages(files, 12, 'words', 10, rng(1));
    expect(long.map((p: { kind: string }) => p.kind)).toEqual(['documents', 'documents']);
    const chars = treebankPassages(files, 20, 'chars', 1, rng(1));
    expect(chars[0].units).toHaveLength(20);
  });
});
