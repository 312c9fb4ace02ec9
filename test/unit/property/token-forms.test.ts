/**
 * One token's normalised form from the stretch of text around it (src/align/token-forms.ts tokenForm) against the
 * whole text normalised: on random text of every script and edge the normaliser meets, and on the cases that could
 * set the two apart — a mark or a slash overlay after a separator, one character that folds to several tokens (¼, ㎏),
 * white space the normaliser maps (no-break and ideographic spaces), U+FEFF inside a word, and stretches past the
 * limit (text without white space) — in each build of the core: the form given is the whole text's, or none is.
 */
import { describe, expect, it } from 'vitest';
import { tokenForm } from '../../../src/align/token-forms.js';
import { withTokenHashes } from '../../../src/fingerprint/words.js';
import { normalize } from '../../../src/text/normalize.js';
import { BUILDS, coreOf } from '../abi/helpers.js';
import { randomText } from './gen.js';

const EDGES = [
  'a =\u0338b c',
  'x \u0338y z ¼ ㎏ ½x',
  'Ｃafé\u00a0au\u3000lait caf\ufeffé é\u0301',
  'ΣΊΣΥΦΟΣ l’été Straße ﬁx Ⅻ ① ǅemal',
  `${'日本語の文章です'.repeat(40)} é ${'あ'.repeat(300)}é`,
  `${'é'.repeat(300)} ${'x'.repeat(250)}é`,
  '\u0301 \u0301a a\u0301 \u1100\u1161 \u11a8',
];

describe.each(BUILDS)("tokenForm = normalize(text)'s form (%s)", (build) => {
  it('on random text and on the edges, for every token it gives a form for', async () => {
    const core = await coreOf(build);
    let given = 0;
    let declined = 0;
    const texts = [...EDGES, ...Array.from({ length: 60 }, (_, i) => randomText(7000 + i, 600, i % 2 ? 0.3 : 0.7))];
    for (const text of texts) {
      let whole: string[];
      try {
        const norm = normalize(text).text;
        whole = norm.length === 0 ? [] : norm.split(' ');
      } catch {
        continue; // a lone surrogate: the core refuses the text too
      }
      withTokenHashes(core, text, (t) => {
        expect(t.count, text).toBe(whole.length);
        for (let i = 0; i < t.count; i++) {
          const form = tokenForm(text, t.starts, t.ends, t.count, i);
          if (form === undefined) declined++;
          else {
            given++;
            expect(form, `${JSON.stringify(text)} token ${i}`).toBe(whole[i]);
          }
        }
      });
    }
    // most tokens have a stretch of their own; the long runs without white space are left to the whole text
    expect(given).toBeGreaterThan(10 * declined);
    expect(declined).toBeGreaterThan(0);
  });
});
