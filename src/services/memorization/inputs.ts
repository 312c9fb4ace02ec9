/**
 * Input checks shared by the memorization operations: every failure is INVALID_INPUT or
 * INVALID_OPTIONS naming the field (as src/util/validate.ts does for the rest of the library).
 */
import { TrainprintError } from '../../errors.js';
import type { TargetModel } from '../../models/types.js';
import type { ExtractionJournal } from './extraction-journal.js';
import { getWork, workText } from '../registry/works.js';
import type { Store } from '../../store/types.js';
import { fail } from '../../util/validate.js';

const ACCESS = ['logprobs', 'top_k', 'generations_only'];

/** A {@link TargetModel}: id, access, generate, and logprobs unless generations_only. */
export function checkModel(v: unknown, name = 'model'): TargetModel {
  const m = v as TargetModel;
  if (
    !m ||
    typeof m !== 'object' ||
    typeof m.id !== 'string' ||
    m.id.length === 0 ||
    typeof m.generate !== 'function' ||
    !ACCESS.includes(m.access)
  ) {
    fail(
      `${name} must be a TargetModel { id, access, generate, logprobs? } (createOpenAICompatibleModel, NgramLanguageModel.asTargetModel)`,
    );
  }
  if (m.access !== 'generations_only' && typeof m.logprobs !== 'function')
    fail(`${name} "${m.id}" has access '${m.access}' but no logprobs method`);
  return m;
}

/** The members of a run's request that are objects, not JSON: what its contract cannot check. */
export interface RunObjects {
  readonly model: unknown;
  readonly journal?: unknown;
  readonly signal?: unknown;
  readonly stop?: unknown;
  readonly prompt_variants?: number;
}

/**
 * A whole-work extraction's or a catalogue audit's objects — its model, journal and signals — and the one rule its
 * contract cannot say without the model (a completions model has one prompt, the prefix): checked once, before the
 * first call.
 * @throws INVALID_INPUT (the model), INVALID_OPTIONS (the journal, a signal, prompt_variants)
 * @example checkRunObjects({ model, journal: storeJournal(store, 'acct') })
 */
export function checkRunObjects(r: RunObjects): void {
  for (const name of ['signal', 'stop'] as const)
    if (r[name] !== undefined && !(r[name] instanceof AbortSignal))
      throw new TrainprintError('INVALID_OPTIONS', `${name} must be an AbortSignal`);
  const model = checkModel(r.model);
  const j = r.journal as ExtractionJournal | undefined;
  if (j !== undefined && (!j || typeof j !== 'object' || typeof j.get !== 'function' || typeof j.put !== 'function'))
    throw new TrainprintError('INVALID_OPTIONS', 'journal must be an ExtractionJournal { get(key), put(key, call) }');
  // the contract took 1..3
  if (model.chat !== true && (r.prompt_variants ?? 1) !== 1)
    throw new TrainprintError(
      'INVALID_OPTIONS',
      'prompt_variants (a completions model has one prompt) must be an integer in 1..1',
    );
}

/** The text of `work_id` (registered with its content) or `text`, of a request read through its contract. */
export async function resolveWork(
  store: Store,
  r: Record<string, unknown>,
): Promise<{ text: string; workId: string | null }> {
  // exactly one of work_id and text, a text of more than white space: the request's rules (./schemas.ts)
  if (r.text !== undefined) return { text: r.text as string, workId: null };
  const work = await getWork(store, r.work_id);
  const text = await workText(store, work.work_id);
  if (text === null)
    fail(`work "${work.work_id}" was registered by fingerprint only: its text is needed (pass text instead)`);
  return { text: text as string, workId: work.work_id };
}
