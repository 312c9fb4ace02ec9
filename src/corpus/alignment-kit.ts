/**
 * What the remote corpora's client (src/remote) uses of the alignment, handed to it by the engine when it loads
 * that code on demand. The client is a file of its own in the package (dist/remote.js); taking these from the
 * engine rather than importing them keeps one copy of the normaliser, its Unicode tables and the alignment in a
 * process, and keeps that file small.
 */
import { alignTokens } from '../align/compare.js';
import { TokenizedText } from '../align/tokens.js';
import { normalize } from '../text/normalize.js';
import {
  COMPARE_DEFAULTS,
  cutAfter,
  cutBefore,
  neighbourBackground,
  PAIR_BACKGROUND_FLOOR,
  pairSet,
  reuseKind,
  sharedPairs,
  sharedRuns,
} from './alignment.js';
import { pairsOfNormalized } from './content-pairs.js';
import { sha256HexNow } from '../fingerprint/sha256.js';

const utf8 = new TextEncoder();
/** SHA-256 of a string's UTF-8, lower-case hex, at once (the remote transcripts' digests: short strings). */
const sha256Text = (text: string): string => sha256HexNow(utf8.encode(text));

/**
 * The alignment functions and constants a remote search needs (see {@link ALIGNMENT_KIT}).
 * @example const spans = kit.alignTokens(core, new kit.TokenizedText(a).window(0, a.length), new kit.TokenizedText(b).window(0, b.length), kit.COMPARE_DEFAULTS)
 */
export interface AlignmentKit {
  readonly alignTokens: typeof alignTokens;
  readonly TokenizedText: typeof TokenizedText;
  readonly normalize: typeof normalize;
  readonly pairsOfNormalized: typeof pairsOfNormalized;
  readonly cutBefore: typeof cutBefore;
  readonly cutAfter: typeof cutAfter;
  readonly reuseKind: typeof reuseKind;
  readonly sharedPairs: typeof sharedPairs;
  readonly sharedRuns: typeof sharedRuns;
  readonly COMPARE_DEFAULTS: typeof COMPARE_DEFAULTS;
  readonly neighbourBackground: typeof neighbourBackground;
  readonly pairSet: typeof pairSet;
  readonly PAIR_BACKGROUND_FLOOR: typeof PAIR_BACKGROUND_FLOOR;
  /** SHA-256 of a string's UTF-8, lower-case hex (a remote search's transcript of requests and answers). */
  readonly sha256Text: (text: string) => string;
}

/**
 * The engine's alignment, as the remote client takes it.
 * @example openRemoteDataset(config, { core: () => engineCore, kit: ALIGNMENT_KIT })
 */
export const ALIGNMENT_KIT: AlignmentKit = Object.freeze({
  alignTokens,
  TokenizedText,
  normalize,
  pairsOfNormalized,
  cutBefore,
  cutAfter,
  reuseKind,
  sharedPairs,
  sharedRuns,
  COMPARE_DEFAULTS,
  neighbourBackground,
  pairSet,
  PAIR_BACKGROUND_FLOOR,
  sha256Text,
});
