/**
 * A portrait's part of a search: the query winnowed with the portrait's window (once per window), its runs of hits
 * read against the portrait's measured background, the hit count shown against chance (src/datasets/portrait.ts).
 */
import type { PortraitDataset } from '../datasets/portrait.js';
import type { Fingerprint } from '../types.js';
import { PAUSE, type Pause } from '../util/steps.js';
import { membership, tokenCoverage } from './coverage.js';
import type { LocalSearch } from './local-search.js';
import type { PureWork } from './work.js';

/** Search portrait `d` for the query of `s`, adding its matches, coverage and detail to `s`. */
export function* searchPortraitSteps(d: PortraitDataset, s: LocalSearch): Generator<Pause | PureWork, void, unknown> {
  const id = d.descriptor.id;
  let qw = s.winnowed.get(d.window);
  if (!qw) {
    // a portrait's search reads the winnowed postings and the token count: no per-shingle column (a thread sends none)
    qw = (yield { kind: 'fingerprint', text: s.query, options: d.options, columns: {} }) as Fingerprint;
    s.winnowed.set(d.window, qw);
  }
  const r = yield* d.searchSteps(qw, s.options.alpha, s.query);
  if (s.options.portraitHits) for (const run of r.runs) s.portraitRuns.push(run); // not spreads: unbounded lists
  if (s.options.coverage) s.coverage[id] = { ...tokenCoverage(r.matches, s.fp), membership: membership(r) };
  for (const m of r.matches) s.matches.push(m);
  s.details.set(id, { kind: 'portrait', search: r, near: [] });
  yield PAUSE;
}
