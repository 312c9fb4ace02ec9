/**
 * A copy whose lines break elsewhere. A token-level engine holds a hard-wrapped book (PG-19 and Books3 sources are
 * often wrapped at about 70 characters) as `…word<0x0A>Word…`, where a reflowed query has `…word▁Word…`: the
 * SentencePiece tokenizer spells a word after a line break without its leading `▁`, so a suffix match that runs back
 * from a sampled place stops at the first line break of one side that the other lacks — at most a line, about 15
 * tokens, too short to count. The same happens the other way round (a PDF's extracted lines against a reflowed copy).
 *
 * So a match that is long enough to be more than chance yet shorter than a hit, and that stops at a word, is asked
 * again with the white space before that word turned into the other form (a single space into a line break, a line
 * break into a space): the offsets of the text stay the same (one character for one), the server tokenizes the new
 * form, and where the corpus breaks its line there the match runs on to the line before. Each try is one call; a
 * try that does not lengthen the match ends the retries of that place.
 */
import { infgramProb, LIMITS } from './api.js';
import { mapTokens } from './token-map.js';
import type { CallAnswer } from './transport.js';

/** A match at least this long (tokens) that falls short of a hit is tried with its line breaks changed. */
export const SWAP_MIN_TOKENS = 6;
/** Calls at most per sampled place (each changes one white space). */
export const SWAP_TRIES = 3;
/** Characters of text before the sampled place sent with each try (the APIs take ≤ 1,000). */
const SWAP_REACH = 900;

/** A match found in another white-space form: token ids as the corpus holds them and its span in the text. */
export interface SwappedMatch {
  readonly ids: number[];
  readonly q0: number;
  readonly q1: number;
  readonly len: number;
  readonly count: number;
}

type Post = (body: Record<string, unknown>) => Promise<CallAnswer>;

const isSpace = (c: string | undefined): boolean => c !== undefined && /\s/.test(c);

/** A single space or line break between two words (the one kind of white space a wrap changes). */
const swappable = (text: string, i: number): boolean =>
  (text[i] === ' ' || text[i] === '\n') && !isSpace(text[i - 1]) && !isSpace(text[i + 1]);

/**
 * Where the line break that stopped a match beginning at `q0` can be, most likely first. The token of a line's first
 * word differs on the two sides (`▁Word` against `Word` after `<0x0A>`), so the match begins just after that word:
 * at the space of the next word when that word's `▁` matched (`text[q0]` is white space), else inside the word. So
 * the white space before the word before `q0` comes first in the one case, the one before the word holding `q0` in
 * the other; the other of the two is the second guess.
 */
function breakCandidates(text: string, q0: number, from: number): number[] {
  const before = (i: number): number => {
    while (i > from && !isSpace(text[i])) i--;
    return i > from ? i : -1;
  };
  const here = isSpace(text[q0]) ? q0 : before(q0);
  const previous = here > from ? before(here - 1) : -1;
  const order = isSpace(text[q0]) ? [previous, here] : [here, previous];
  return order.filter((i) => i > from);
}

/**
 * The retries of one sampled place, a call at a time (see the module comment): each {@link step} changes the white
 * space where the match most likely broke and keeps the longer match; {@link done} once a try fails twice, once one
 * fails after a success, or when there is nothing left to change. A caller can share its calls among many places in
 * rounds, the same way whatever order the answers come in.
 */
export class LineBreakRetry {
  /** The longest match found in another form, or null. */
  best: SwappedMatch | null = null;
  done = false;
  private readonly start: number;
  private readonly chars: string[];
  private readonly failed = new Set<number>();
  private readonly breaks: number[];
  private reflowed = false;

  /** The place: the text up to `end` (from `from` on, at most {@link SWAP_REACH} characters), a match from `q0`. */
  constructor(
    private readonly text: string,
    from: number,
    end: number,
    private q0: number,
  ) {
    let start = Math.max(from, end - Math.min(SWAP_REACH, LIMITS.queryChars));
    while (start < end && !isSpace(text[start - 1] ?? ' ')) start++; // begin at a word
    this.start = start;
    this.chars = text.slice(start, end).split('');
    // the text's own line breaks are known: the first try reflows them all (a hard-wrapped text, a reflowed corpus)
    this.breaks = this.chars.flatMap((c, k) => (c === '\n' && swappable(text, start + k) ? [start + k] : []));
  }

  /** One call: the next white-space form. */
  async step(post: Post, index: string): Promise<void> {
    if (this.done) return;
    const { text, start, chars } = this;
    const reflow = !this.reflowed && this.breaks.length > 0;
    this.reflowed = true;
    const candidates = breakCandidates(text, this.q0, start).filter(
      (i) => swappable(text, i) && chars[i - start] === text[i] && !this.failed.has(i),
    );
    const changed = reflow ? this.breaks : candidates.slice(0, 1);
    if (changed.length === 0) {
      this.done = true;
      return;
    }
    for (const i of changed) chars[i - start] = text[i] === '\n' ? ' ' : '\n';
    const piece = chars.join('');
    const a = await infgramProb(post, index, piece);
    const m = mapTokens(piece, start, a.tokenIds, a.tokens);
    const n = m.ids.length;
    const first = n - 1 - a.suffixLen;
    if (a.suffixLen === 0 || first < 0 || m.starts[first] >= this.q0) {
      // no longer in this form: undo; the other candidate is tried once
      for (const i of changed) chars[i - start] = text[i];
      if (reflow) return;
      this.failed.add(changed[0]);
      if (this.best || this.failed.size >= 2) this.done = true;
      return;
    }
    this.q0 = m.starts[first];
    const ids = Array.from(m.ids.subarray(first, n - 1));
    this.best = { ids, q0: this.q0, q1: m.ends[n - 2], len: a.suffixLen, count: a.promptCnt };
  }
}

/**
 * The longest match ending at `end` (the UTF-16 end of the sampled place) when the corpus may break its lines
 * elsewhere than `text` does, starting from a match that begins at `q0` (see the module comment). `from` bounds the
 * text sent; at most {@link SWAP_TRIES} calls, fewer when `calls` says no more. Returns null when no form gave a
 * longer match.
 */
export async function acrossLineBreaks(
  post: Post,
  index: string,
  text: string,
  from: number,
  end: number,
  q0: number,
  calls: () => boolean,
): Promise<SwappedMatch | null> {
  const retry = new LineBreakRetry(text, from, end, q0);
  for (let tries = 0; tries < SWAP_TRIES && !retry.done && calls(); tries++) await retry.step(post, index);
  return retry.best;
}
