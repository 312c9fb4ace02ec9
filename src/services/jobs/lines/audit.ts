/** What the `audit` job type says of a result (../types/audit.ts): the catalogue's share and the audit's calls. */
import type { CatalogueAuditResult } from '../../memorization/audit.js';
import type { JobTypeDescription } from '../job-type.js';
import { lengthOf, percent } from '../result-lines.js';

/** An audit item's result line: the audit with its first works and `works_next`, the cursor of the rest. */
type AuditLine = CatalogueAuditResult & { readonly works_next: number | null };

/**
 * An audit's line: how many works it found reproduced of those measured, the share with its interval, its calls, why
 * it stopped early, and — for a line that holds only the first works (`works_next`) — how many it shows.
 * @example auditSummary(line) // '1 of 3 works reproduced, share 33.3 % [6.1 %, 79.2 %], 412 calls'
 */
function auditSummary(result: unknown): string {
  const r = result as Partial<AuditLine>;
  const c = r.catalogue;
  const ci = Array.isArray(c?.ci_95) ? ` [${percent(c.ci_95[0])}, ${percent(c.ci_95[1])}]` : '';
  const stop = r.stopped === 'budget' ? '; the budget ended first' : '';
  // a large catalogue's line holds its first works; the rest are read by pages (…/results/{item}/works)
  const shown =
    typeof r.works_next === 'number'
      ? `; the line holds its first ${lengthOf(r.works)} of ${c?.works ?? '—'} works`
      : '';
  return `${c?.reproduced ?? 0} of ${c?.measured ?? 0} works reproduced, share ${percent(c?.share)}${ci}, ${r.calls ?? 0} calls${stop}${shown}`;
}

/** See the module's documentation. */
export const AUDIT_LINES = { name: 'audit', summarize: auditSummary } as const satisfies JobTypeDescription;
