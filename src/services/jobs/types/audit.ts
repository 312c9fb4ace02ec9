/**
 * The `audit` job type: an item is a catalogue audit under one call budget (`CatalogueAuditRequest` with its model
 * named, not built), its result the `CatalogueAuditResult` of `engine.memorization.auditCatalogue`, kept with the
 * account's works. Its model is held and its calls journaled as an extract item's (one journal for the catalogue); a
 * unit per {@link EXTRACT_CALLS_PER_UNIT} calls of its budget; a catalogue holds at most the plan's `jobItems` works.
 * At submission, before the charge, an item gets the checks its run makes before its first call (`checkAuditRun`:
 * its request read through `AUDIT_REQUEST`, each work's result within its bound).
 */
import { type ErrorCode, TrainprintError } from '../../../errors.js';
import { sha256Hex } from '../../../fingerprint/sha256.js';
import type { CatalogueAuditRequest, CatalogueAuditResult } from '../../memorization/audit.js';
import { checkAuditRun } from '../../memorization/memorization.js';
import { AUDIT_REQUEST } from '../../memorization/schemas.js';
import { AUDIT_WORKS_PER_PAGE, storeCatalogueAudit } from '../../memorization/stored-audits.js';
import { nextMacrotask } from '../../../util/steps.js';
import { defineJobType } from '../job-type.js';
import { AUDIT_LINES } from '../lines/audit.js';
import { itemChecked } from './item-checks.js';
import { budgetUnits, EXTRACT_CALLS_PER_UNIT, holdModels, type JournalWork, modelItemExecutor } from './model-items.js';

/** The item of an audit job: the request of `auditCatalogue` (a catalogue of works) with its model named, not built. */
export type AuditJobItem = Omit<CatalogueAuditRequest, 'model' | 'journal' | 'signal' | 'stop'> & {
  readonly model: Readonly<Record<string, unknown>>;
};

/**
 * The audit, or the item's error when its model never answered (`stopped: 'upstream_errors'`): a result that measured
 * nothing would read as a finished audit with a share of 0.
 * @throws the upstream failure's code (UPSTREAM_UNREACHABLE, UPSTREAM_ERROR, UPSTREAM_TIMEOUT …) with its reason
 */
function reached(result: CatalogueAuditResult): CatalogueAuditResult {
  if (result.stopped !== 'upstream_errors') return result;
  const e = result.error;
  const code = (e?.code.startsWith('UPSTREAM_') ? e.code : 'UPSTREAM_ERROR') as ErrorCode;
  throw new TrainprintError(
    code,
    `the model answered none of the audit's ${result.calls} calls (no work measured): ${e?.message ?? 'no answer'}`,
  );
}

/** What an audit item's journal is kept by: one journal for the catalogue, its works' ids, texts and sections. */
const auditedWorks: JournalWork<AuditJobItem> = (request) => ({ textParts: auditedText(request.works) });

/**
 * The text an audit's journal is kept by, in parts (a work each): `audit\n` and its works' `[id, text, sections]` as
 * one JSON array — `JSON.stringify` of the array, written element by element (the same characters), so that the
 * journal's prefix is hashed between turns of the event loop rather than made as one string of tens of MB.
 * @example [...auditedText(works)].join('') === `audit\n${JSON.stringify(works.map((w) => [w.id, w.text, w.sections ?? null]))}`
 */
export function* auditedText(works: AuditJobItem['works']): Generator<string> {
  yield 'audit\n[';
  for (let i = 0; i < works.length; i++) {
    const w = works[i];
    yield `${i === 0 ? '' : ','}${JSON.stringify([w.id, w.text, w.sections ?? null])}`;
  }
  yield ']';
}

/**
 * The result line of an audit item: the audit with its first {@link AUDIT_WORKS_PER_PAGE} works, and `works_next`,
 * the cursor (`after`) of the rest — null when the line holds every work. A catalogue of 100,000 works is a record of
 * about 12 MB: encoded whole into the job's result and into one response, it held the event loop for seconds; its
 * works are kept by pages with the account's audits (`storeCatalogueAudit`) and read from there by pages
 * (`catalogueAuditWorks`; over HTTP `GET /api/v1/jobs/{job_id}/results/{item}/works`).
 * @example auditLine(result).works_next // 500 for a catalogue of 501 works or more, else null
 */
export function auditLine(result: CatalogueAuditResult): CatalogueAuditResult & { works_next: number | null } {
  const n = AUDIT_WORKS_PER_PAGE;
  return { ...result, works: result.works.slice(0, n), works_next: result.works.length > n ? n : null };
}

/** See the module's documentation. */
export const AUDIT_JOB = defineJobType<AuditJobItem>({
  ...AUDIT_LINES,
  description:
    'An `audit` item is a catalogue audit under one call budget ' +
    "(`{ works: [{ id, text, sections? }], model, budget_calls?, first_probes?, level?, … }`, at most the plan's " +
    "`jobItems` works, ids distinct): its model is held and charged as an extract item's, its calls journaled and " +
    'replayed and its slices run the same way; the result is the audit record (per work `reproduced` with nv_recall and blocks, ' +
    '`not_found` with its miss probability, `too_short`, `untried` or `unanswered` (every call failed: no verdict); ' +
    'the catalogue share with its 95 % interval, ' +
    'calls, `audit_sha256`), the same at every concurrency. An audit whose model answers none of its calls (it ' +
    'cannot be reached, or answers only errors) is a failed item: the upstream error (`UPSTREAM_UNREACHABLE` …) ' +
    'with its reason.',
  summary:
    '`audit` (a catalogue audit under one call budget: `{ works: [{ id, text }], model, budget_calls?, … }`; ' +
    `a unit per ${EXTRACT_CALLS_PER_UNIT} calls of its budget)`,
  itemSchema: AUDIT_REQUEST.served,
  units: budgetUnits,
  // the audit's checks before its first call, read through AUDIT_REQUEST: its schema, its rules within the plan (at
  // most `jobItems` works, ids distinct) and each work's plan
  prepare: (items, context) =>
    holdModels(
      'audit',
      items,
      context,
      (item, i, model) => itemChecked(i, () => checkAuditRun({ ...item, model }, context)),
      auditedWorks,
    ),
  executor: ({ engine, options }) => {
    const audit = engine.memorization.auditCatalogue?.bind(engine.memorization);
    const run = modelItemExecutor<AuditJobItem, CatalogueAuditResult>(options, 'audit', {
      reads: auditedWorks,
      // the plan kept between the item's slices under its journal's name (never one the item names)
      run: async (request, model, controls, journalPrefix) =>
        reached((await audit!({ ...request, model, ...controls, plan_key: journalPrefix })) as CatalogueAuditResult),
      // kept with the account's works, under each text's SHA-256: an analysis of any of their texts bundles it
      keep: async (store, account, result, request) => {
        // hashed in the thread (small texts): a turn of the event loop every 2,048 (a few ms), not 100,000 in one go
        const texts: string[] = [];
        for (const w of request.works) {
          texts.push(await sha256Hex(w.text));
          if ((texts.length & 2047) === 0) await nextMacrotask();
        }
        await storeCatalogueAudit(store, account, result, texts);
      },
      line: auditLine,
    });
    return audit || typeof run === 'string' ? run : "this engine's memorization has no catalogue audit";
  },
});
