/**
 * The check an evidence bundle's verifier makes of a catalogue audit it carries (`catalogue_audits`): the signature
 * covers the record as signed; this checks that the record holds together — its `audit_sha256` is the digest of the
 * works it lists (their transcript digests in order), its catalogue figures (works, measured, reproduced, share, 95 %
 * interval, calls) are those of its works, and each verdict agrees with the work's numbers. An audit edited and
 * signed again by another key thus still fails unless every figure was forged consistently with its digests.
 */
import type { AuditedWork, CatalogueAuditResult } from '../memorization/audit.js';
import { auditDigest } from '../memorization/digests.js';
import { wilsonInterval } from '../../stats/binomial.js';
import { round4 } from '../../util/round.js';

const VERDICTS = new Set(['reproduced', 'not_found', 'too_short', 'untried', 'unanswered']);

/**
 * What is wrong with a bundled catalogue audit, or null when it holds together.
 * @example catalogueAuditProblem(bundle.catalogue_audits[0]) // null
 */
export function catalogueAuditProblem(x: unknown): string | null {
  const a = x as CatalogueAuditResult;
  if (!a || typeof a !== 'object' || !Array.isArray(a.works) || !a.catalogue || typeof a.catalogue !== 'object')
    return 'not a catalogue audit with its works';
  if (!a.works.every(wellFormed)) return 'a work is not { id, verdict, probes, hits, calls, … }';
  const problems: string[] = [];
  const again = auditDigest(a.works);
  if (again !== a.audit_sha256)
    problems.push(`the works' transcript digests hash to ${again}, the audit carries ${String(a.audit_sha256)}`);
  const measured = a.works.filter((w) => w.verdict === 'reproduced' || w.verdict === 'not_found');
  const reproduced = measured.filter((w) => w.verdict === 'reproduced').length;
  const [lo, hi] = wilsonInterval(reproduced, measured.length);
  const expected = {
    works: a.works.length,
    measured: measured.length,
    reproduced,
    share: measured.length ? round4(reproduced / measured.length) : 0,
  };
  for (const [k, v] of Object.entries(expected))
    if (a.catalogue[k as keyof typeof expected] !== v)
      problems.push(`catalogue.${k} is ${String(a.catalogue[k as keyof typeof expected])}, its works give ${v}`);
  const ci = a.catalogue.ci_95;
  if (!Array.isArray(ci) || ci[0] !== round4(lo) || ci[1] !== round4(hi))
    problems.push(`catalogue.ci_95 is not the 95 % Wilson interval of ${reproduced} of ${measured.length}`);
  const calls = a.works.reduce((t, w) => t + w.calls, 0);
  if (calls !== a.calls) problems.push(`its works cost ${calls} calls, the audit counts ${String(a.calls)}`);
  for (const w of a.works) {
    const p = verdictProblem(w, a.catalogue.level);
    if (p !== null) problems.push(`${JSON.stringify(w.id)}: ${p}`);
  }
  return problems.length ? problems.join('; ') : null;
}

function wellFormed(w: AuditedWork): boolean {
  return (
    !!w &&
    typeof w === 'object' &&
    typeof w.id === 'string' &&
    VERDICTS.has(w.verdict) &&
    Number.isInteger(w.probes) &&
    Number.isInteger(w.hits) &&
    Number.isInteger(w.calls) &&
    typeof w.nv_recall_50 === 'number' &&
    Array.isArray(w.blocks)
  );
}

/**
 * A work's verdict against its numbers: reproduced ⇔ a block (of ≥ 50 words, or a short work's rest written out);
 * not_found states (1 − level)^probes.
 */
function verdictProblem(w: AuditedWork, level: number): string | null {
  if (w.verdict === 'reproduced')
    return w.nv_recall_50 > 0 && w.blocks.length > 0 ? null : 'reproduced without a block';
  if (w.verdict === 'not_found') {
    if (w.nv_recall_50 > 0 || w.blocks.length > 0) return 'not_found with a block';
    if (w.miss_probability !== round4((1 - level) ** w.probes))
      return `miss_probability ${String(w.miss_probability)} is not (1 − ${level})^${w.probes}`;
    return null;
  }
  // an unanswered work had a run of failed calls only: no probe answered, nothing found
  if (w.verdict === 'unanswered')
    return w.probes === 0 && w.hits === 0 && w.blocks.length === 0 && w.nv_recall_50 === 0
      ? null
      : 'unanswered with answers';
  // too_short and untried works had no run: no probes, no transcript
  return w.probes === 0 && w.hits === 0 && w.transcript_sha256 === undefined ? null : `${w.verdict} with a run`;
}
