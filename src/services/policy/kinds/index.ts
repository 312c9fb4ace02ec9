/**
 * The kinds of evidence, registered: analyze, score and monitors look a dataset's kind up here (its chance, its
 * calibration fit, its codes) and a match's kind likewise, instead of switching on either. A new kind is a module
 * beside these and a line in each table.
 */
import type { DatasetSearchDetail } from '../../../corpus/types.js';
import type { SearchMatch } from '../../../datasets/types.js';
import { EXACT, EXACT_MATCH, NEAR_MATCH } from './exact.js';
import type { EvidenceKind, MatchKind } from './kind.js';
import { PORTRAIT, PORTRAIT_MATCH } from './portrait.js';
import { REMOTE, REMOTE_MATCH } from './remote.js';
import { SOURCE, SOURCE_MATCH } from './source.js';

export type { AlignedChance, ChanceEvidence, KindChance } from './chance.js';
export { BACKGROUND_FLOOR, MAX_STRENGTH } from './chance.js';
export type { EvidenceKind, KindCodes, KindFinding, MatchKind } from './kind.js';
export { reportLimitations, unmeasured } from './remote.js';

type Kind = DatasetSearchDetail['kind'];
type DetailOf<K extends Kind> = Extract<DatasetSearchDetail, { kind: K }>;

const EVIDENCE_KINDS: { readonly [K in Kind]: EvidenceKind<DetailOf<K>> } = {
  exact: EXACT,
  portrait: PORTRAIT,
  remote: REMOTE,
  source: SOURCE,
};

const MATCH_KINDS: { readonly [K in SearchMatch['kind']]: MatchKind<Extract<SearchMatch, { kind: K }>> } = {
  exact: EXACT_MATCH,
  near: NEAR_MATCH,
  portrait: PORTRAIT_MATCH,
  remote: REMOTE_MATCH,
  source: SOURCE_MATCH,
};

/**
 * What the services read of a dataset kind (a detail's, or a dataset's `kind` as `datasets()` lists it).
 * @example evidenceKind('portrait').positions // false: a portrait shows which passages, never where
 */
export function evidenceKind(kind: Kind): EvidenceKind {
  return EVIDENCE_KINDS[kind] as EvidenceKind;
}

/**
 * What the services read of a match's kind.
 * @example matchKind(match).run(match) // the verbatim run it shows, in words
 */
export function matchKind<M extends SearchMatch>(m: M): MatchKind<M> {
  return MATCH_KINDS[m.kind] as MatchKind as MatchKind<M>;
}
