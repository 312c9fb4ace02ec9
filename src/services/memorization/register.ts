/**
 * register-work and reference sets, on the engine's store:
 *   `mem/work/<work_id>`   a tracked work: its canaries and their controls
 *   `mem/refset/<id>`      a non-member reference set: its declared basis and its texts
 *
 * Canaries are sequences of words drawn uniformly (WebCrypto) from a list of 256 common English
 * words: common words so that any tokeniser splits them naturally, uniform draws so that a
 * sequence of 24 words carries 192 bits and occurs nowhere else. Controls are drawn the same way
 * and never published, so canaries and controls are exchangeable before publication — the
 * randomized design that makes the trap test's p-value exact (Meeus et al. 2024).
 */
import type { MemorizationDeps } from './deps.js';
import { TrainprintError } from '../../errors.js';
import { getWork } from '../registry/works.js';
import type { Store } from '../../store/types.js';
import { checkString, fail } from '../../util/validate.js';
import { fieldsWithin } from '../../util/schema-check.js';
import type { ReferenceSetInfo, ReferenceSetRequest, TrackedWork, TrackWorkRequest } from './types.js';
import { wordSpans } from './text.js';
import { CANARY_WORDS } from './constants.js';

/** register-work (see `Memorization.registerWork`). */
export async function trackWork(deps: MemorizationDeps, store: Store, request: TrackWorkRequest): Promise<TrackedWork> {
  // read through TRACK_WORK_REQUEST by the caller (Memorization.registerWork)
  const { canaries } = request;
  const count = canaries?.count ?? 0;
  const words = canaries?.words ?? CANARY_WORDS;
  const controls = canaries?.controls ?? Math.min(4 * count, 400);
  // the registration's refusals name its fields within the request (`work.content`), as the served schema does
  const work = request.work
    ? await fieldsWithin('work', () => deps.registerWork(request.work!))
    : await getWork(store, request.work_id);
  return store.transaction(async (tx) => {
    const key = `mem/work/${work.work_id}`;
    const existing = (await tx.get(key)) as TrackedWork | undefined;
    if (existing) {
      if (count > 0 && existing.canaries.length > 0)
        throw new TrainprintError(
          'CONFLICT',
          `work "${work.work_id}" already has ${existing.canaries.length} canaries; they stay as generated (published copies may carry them)`,
        );
      if (count === 0) return existing;
    }
    const tracked: TrackedWork = {
      work_id: work.work_id,
      work_hash: work.work_hash,
      title: work.title,
      tracked_at: existing?.tracked_at ?? new Date().toISOString(),
      canaries: Array.from({ length: count }, (_, i) => ({ id: `cn_${i + 1}`, text: randomSequence(words) })),
      controls: Array.from({ length: count > 0 ? controls : 0 }, (_, i) => ({
        id: `ct_${i + 1}`,
        text: randomSequence(words),
      })),
      canary_words: count > 0 ? words : 0,
    };
    tx.put(key, tracked);
    return tracked;
  });
}

/** A tracked work. @throws NOT_FOUND */
export async function getTracked(store: Store, workId: unknown): Promise<TrackedWork> {
  if (typeof workId !== 'string' || !workId.startsWith('wk_')) fail('work_id must be a "wk_…" id');
  const t = (await store.get(`mem/work/${workId}`)) as TrackedWork | undefined;
  if (!t)
    throw new TrainprintError('NOT_FOUND', `work "${workId}" is not tracked for memorization (registerWork first)`);
  return t;
}

/** The tracked record or null. */
export async function findTracked(store: Store, workId: string): Promise<TrackedWork | null> {
  return ((await store.get(`mem/work/${workId}`)) as TrackedWork | undefined) ?? null;
}

interface StoredReferenceSet {
  readonly info: ReferenceSetInfo;
  readonly texts: string[];
}

/** Add a non-member reference set. @throws INVALID_INPUT, ALREADY_EXISTS, PAYLOAD_TOO_LARGE */
export async function addReferenceSet(store: Store, request: ReferenceSetRequest): Promise<ReferenceSetInfo> {
  // read through REFERENCE_SET_REQUEST by the caller (Memorization.addReferenceSet)
  const { id, basis, texts } = request;
  const description = request.description ?? null;
  const publishedAfter = request.published_after ?? null;
  const info: ReferenceSetInfo = {
    id,
    basis,
    description,
    published_after: publishedAfter,
    documents: texts.length,
    tokens: texts.reduce((t, x) => t + wordSpans(x).tokens.length, 0),
    created_at: new Date().toISOString(),
  };
  return store.transaction(async (tx) => {
    if (await tx.get(`mem/refset/${id}`)) throw new TrainprintError('ALREADY_EXISTS', `reference set "${id}" exists`);
    tx.put(`mem/refset/${id}`, { info, texts: [...texts] } satisfies StoredReferenceSet);
    return info;
  });
}

/** A reference set's description. @throws NOT_FOUND */
export async function getReferenceSet(store: Store, id: unknown): Promise<ReferenceSetInfo> {
  return (await loadReferenceSet(store, id)).info;
}

/** A reference set with its texts. @throws NOT_FOUND */
export async function loadReferenceSet(store: Store, id: unknown): Promise<StoredReferenceSet> {
  const key = checkString(id, 'reference_set', 200);
  const s = (await store.get(`mem/refset/${key}`)) as StoredReferenceSet | undefined;
  if (!s) throw new TrainprintError('NOT_FOUND', `no reference set "${key}"`);
  return s;
}

/** Every reference set's description, in id order. */
export async function listReferenceSets(store: Store): Promise<ReferenceSetInfo[]> {
  return (await store.scan('mem/refset/')).map(([, v]) => (v as StoredReferenceSet).info);
}

/** Delete a reference set; false when there was none. */
export async function deleteReferenceSet(store: Store, id: unknown): Promise<boolean> {
  const key = checkString(id, 'reference_set', 200);
  return store.delete(`mem/refset/${key}`);
}

/** `n` words drawn uniformly from {@link CANARY_LEXICON} with WebCrypto. */
function randomSequence(n: number): string {
  const b = globalThis.crypto.getRandomValues(new Uint8Array(n));
  return Array.from(b, (x) => CANARY_LEXICON[x]).join(' ');
}

/** 256 common English words (one byte each). */
export const CANARY_LEXICON: readonly string[] = (
  'able acid aged also area army away baby back ball band bank base bath bear beat bell belt best bird ' +
  'blow blue boat body bone book boot born both bowl burn busy cake call calm camp card care cart case ' +
  'cash cast cell chin city clay club coal coat code cold cook cool copy corn cost crew crop dark data ' +
  'dawn deal dear deep desk dirt dish door dose down draw drum dust duty earn east easy edge face fact ' +
  'fair farm fast fear feed feel file fill film fine fire firm fish flag flat flow folk food foot fork ' +
  'form fort free fuel full fund gain game gate gift girl glad goal gold golf good gray grow hair half ' +
  'hall hand hard harm harp head heat held hint help herb hero high hill hole holy home hope horn host ' +
  'hour huge hunt idea iron item jazz join joke jump jury keen keep kick kind king kiss knee knot lack ' +
  'lady lake lamp land lane last late lawn lead leaf lean left lend lens life lift like lime line link ' +
  'lion list live load loan lock long loop lord loud love luck mail main make male mall many mark mask ' +
  'meal meat menu mild milk mill mind mine mint miss mode mood moon moss most move much nail name navy ' +
  'neck need nest news nice node noon nose note oath open oven pace pack page pain pair palm park path ' +
  'peak pear pine pink pipe plan play plot poem pole pond pool port post rain rice'
).split(' ');
