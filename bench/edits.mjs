// The edits a copy of a packed text goes through on its way to a user, as word-list transforms over a seeded
// generator (the same edits on every run): bench/eval-pack-documents.mjs and bench/eval-packs.mjs read passages
// through them and report each kind apart.
//
//   verbatim      the passage as the pack's text has it
//   replaced      1 word in 10 replaced (the 5th of every 10) by a common word it is not
//   repunctuated  as a modern editor or a transcription punctuates
//   modernised    period spellings made modern (American)
//   ocr           about 1 word in 8 misread as OCR misreads print
import './help.mjs';

const REPLACEMENTS = [
  'quite',
  'indeed',
  'perhaps',
  'certain',
  'rather',
  'little',
  'often',
  'simply',
  'surely',
  'again',
];

/** Period spellings and their modern (American) forms: what a modernised edition changes. */
const MODERN = new Map(
  Object.entries({
    'to-day': 'today',
    'to-morrow': 'tomorrow',
    'to-night': 'tonight',
    shew: 'show',
    shewed: 'showed',
    shewn: 'shown',
    shewing: 'showing',
    connexion: 'connection',
    gaol: 'jail',
    chuse: 'choose',
    publick: 'public',
    musick: 'music',
    compleat: 'complete',
    centre: 'center',
    theatre: 'theater',
    grey: 'gray',
    waggon: 'wagon',
    whilst: 'while',
    amongst: 'among',
    'any one': 'anyone',
    'every one': 'everyone',
    'some one': 'someone',
    recognised: 'recognized',
    realised: 'realized',
    civilised: 'civilized',
    surprize: 'surprise',
    ancle: 'ankle',
    cloaths: 'clothes',
    honour: 'honor',
    colour: 'color',
    favour: 'favor',
    labour: 'labor',
    neighbour: 'neighbor',
    behaviour: 'behavior',
    humour: 'humor',
    harbour: 'harbor',
    parlour: 'parlor',
    vigour: 'vigor',
    rumour: 'rumor',
    odour: 'odor',
    endeavour: 'endeavor',
    splendour: 'splendor',
  }),
);

/** The edit kinds over `rnd` (a function returning [0, 1)): `{ kind: (words) => words }`. */
export function editKinds(rnd) {
  /** 1 word in 10 replaced (the 5th of every 10), by a word it is not. */
  const replaced = (words) =>
    words.map((w, i) => {
      if (i % 10 !== 5) return w;
      let r = REPLACEMENTS[Math.floor(rnd() * REPLACEMENTS.length)];
      if (r === w.toLowerCase()) r = 'very';
      return r;
    });

  /**
   * Re-punctuated, as a modern editor or a transcription does: semicolons and colons become full stops or commas, dashes
   * commas, every third comma dropped, quotation marks straightened and exclamation marks made full stops.
   */
  const repunctuated = (words) => {
    let commas = 0;
    return words.map((w) =>
      w
        .replace(/;/g, () => (rnd() < 0.5 ? '.' : ','))
        .replace(/:/g, ',')
        .replace(/--+|—/g, ', ')
        .replace(/,/g, (c) => (++commas % 3 === 0 ? '' : c))
        .replace(/[‘’]/g, "'")
        .replace(/[“”]/g, '"')
        .replace(/!/g, '.'),
    );
  };
  /** Modernised spelling: the period forms of MODERN (with their -s, -ed, -ing, -able and -ite forms) made modern. */
  const modernised = (words) => {
    const text = words.join(' ').replace(/\b(any|every|some) one\b/gi, (x) => MODERN.get(x.toLowerCase()) ?? x);
    return text.split(' ').map((w) =>
      w.replace(/[A-Za-z][A-Za-z-]*/g, (x) => {
        const lower = x.toLowerCase();
        for (const [old, modern] of MODERN) {
          if (old.includes(' ')) continue;
          const m = lower.match(new RegExp(`^${old}(s|ed|ing|able|ite|ites|ful|ably|ers?)?$`));
          if (!m) continue;
          const out = modern + (m[1] ?? '');
          return x[0] === x[0].toUpperCase() ? out[0].toUpperCase() + out.slice(1) : out;
        }
        return x;
      }),
    );
  };
  /** OCR-like noise: about 1 word in 8 misread (rn/m, l/1, e/c, li/h, cl/d, a letter dropped, a word split or joined). */
  const ocr = (words) => {
    const out = [];
    for (let i = 0; i < words.length; i++) {
      let w = words[i];
      if (rnd() < 1 / 8 && w.length > 2) {
        const k = Math.floor(rnd() * 6);
        if (k === 0) w = w.includes('m') ? w.replace('m', 'rn') : w.replace(/rn/, 'm').replace(/e/, 'c');
        else if (k === 1) w = /l/.test(w) ? w.replace('l', '1') : w.replace(/i/, 'l');
        else if (k === 2) w = w.replace(/e/, 'c').replace(/li/, 'h').replace(/cl/, 'd');
        else if (k === 3) {
          const j = 1 + Math.floor(rnd() * (w.length - 2));
          w = w.slice(0, j) + w.slice(j + 1);
        } else if (k === 4) {
          const j = 1 + Math.floor(rnd() * (w.length - 2));
          w = `${w.slice(0, j)} ${w.slice(j)}`;
        } else if (i + 1 < words.length) {
          w += words[++i];
        }
      }
      out.push(w);
    }
    return out.join(' ').split(' ');
  };

  return { verbatim: (w) => w, replaced, repunctuated, modernised, ocr };
}

/** Words of `b` that differ from `a` at the same place (a rough count of the edits; OCR joins and splits shift it). */
export const changedWords = (a, b) => {
  let n = 0;
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) n++;
  return n;
};
