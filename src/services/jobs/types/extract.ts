/**
 * The `extract` job type: an item is an extraction of a whole work from a model service (`ExtractWorkRequest` with
 * its model named, not built), its result the `WorkExtractionResult` of `engine.memorization.extractWork`, kept with
 * the account's works. An item runs long (a whole book, across time slices) and only where its model is held: one
 * item a chunk, a unit per {@link EXTRACT_CALLS_PER_UNIT} calls of its budget. At submission, before the charge, an
 * item gets the checks its run makes before its first call (the work's words, its sections, the result's bound).
 */
import type { ExtractWorkRequest, WorkExtractionResult } from '../../memorization/extract-work.js';
import { checkModelRun } from '../../memorization/memorization.js';
import { EXTRACT_WORK_REQUEST } from '../../memorization/schemas.js';
import { storeWorkExtraction } from '../../memorization/stored-extractions.js';
import { defineJobType } from '../job-type.js';
import { itemChecked } from './item-checks.js';
import { budgetUnits, EXTRACT_CALLS_PER_UNIT, holdModels, type JournalWork, modelItemExecutor } from './model-items.js';

/** The item of an extract job: the request of `extractWork` with its model named (`base_url`, `model`), not built. */
export type ExtractJobItem = Omit<ExtractWorkRequest, 'model'> & { readonly model: Readonly<Record<string, unknown>> };

/** What an extract item's journal is kept by: its work's id, or its text. */
const extractedWork: JournalWork<ExtractJobItem> = (request) =>
  request.work_id === undefined ? { text: request.text } : { workId: request.work_id };

/** See the module's documentation. */
export const EXTRACT_JOB = defineJobType<ExtractJobItem>({
  name: 'extract',
  summary:
    '`extract` (a whole-work extraction from a model service: `{ text | work_id, model, budget_calls?, … }`; ' +
    `a unit per ${EXTRACT_CALLS_PER_UNIT} calls of its budget)`,
  itemSchema: EXTRACT_WORK_REQUEST.served,
  chunkItems: 1,
  units: budgetUnits,
  prepare: (items, context) =>
    holdModels(
      'extract',
      items,
      context,
      async (item, i, model) => {
        // the account's own work, before its text is read; the rest read through EXTRACT_WORK_REQUEST by the checks
        if (item.text === undefined && item.work_id !== undefined) await context.ownWork(item.work_id);
        await itemChecked(i, () => checkModelRun('extract', context.store, { ...item, model }));
      },
      extractedWork,
    ),
  executor: ({ engine, options }) =>
    modelItemExecutor<ExtractJobItem, WorkExtractionResult>(options, 'extraction', {
      reads: extractedWork,
      run: (request, model, controls) =>
        engine.memorization.extractWork({ ...request, model, ...controls }) as Promise<WorkExtractionResult>,
      // kept with the account's works: an analysis of the same text bundles it and draws it in its report
      keep: (store, account, result) => storeWorkExtraction(store, account, result),
    }),
});
