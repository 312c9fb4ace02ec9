/**
 * The works registry, on the engine's store. Records:
 *   `work/<work_id>`                    the work (no text)
 *   `work-text/<work_id>`               its text, when registered from content (score chunks it)
 *   `work-hash/<work_hash>/<owner>`     → work_id: idempotency per (hash, owner), and conflicts
 * Re-registering the same work_hash by the same owner returns the existing work and receipt;
 * another owner gets a work of their own, and both records list each other under
 * `conflicting_claims` — claims are recorded, never merged.
 */
import { resolveOptions, type FingerprintOptions } from '../../fingerprint/options.js';
import { extractOn, worthOffloading, type Offload } from '../../corpus/work.js';
import type { Fingerprint } from '../../types.js';
import { TrainprintError } from '../../errors.js';
import type { ContentType } from '../../text/index.js';
import { sha256HexOfBytesSliced, sha256HexOfTextSliced } from '../../fingerprint/sha256.js';
import type { Declarations, WorkType } from '../analyze/types.js';
import { extractDocumentOn, fileBytes, fileLimitOption, isFileType } from '../analyze/files.js';
import type { DocumentFormat } from '../../formats/types.js';
import type { Store } from '../../store/types.js';
import { readRequest, readThrough, readThroughFile } from '../../util/schema-check.js';
import { checkObject, checkString, fail, newId } from '../../util/validate.js';
import { nextMacrotask } from '../../util/steps.js';
import { signReceipt, type Receipt, type ReceiptKey } from './receipts.js';
import {
  LIST_WORKS_REQUEST,
  REGISTER_WORK_REQUEST,
  type ListWorksOptions,
  type RegisterWorkRequest,
} from './schema.js';

export type { ListWorksOptions, RegisterWorkRequest } from './schema.js';

/** A registered work. */
export interface Work {
  readonly work_id: string;
  readonly work_hash: string;
  /** Fingerprint id of the (extracted) text. */
  readonly fingerprint: string;
  readonly owner: string;
  readonly title: string | null;
  readonly author: string | null;
  readonly work_type: WorkType | null;
  readonly content_type: ContentType | DocumentFormat | null;
  readonly declarations: Declarations;
  /** Word tokens of the text (0 when registered by fingerprint). */
  readonly tokens: number;
  /** Whether the text is kept (registered from content): `score` needs it. */
  readonly has_text: boolean;
  readonly registered_at: string;
  readonly receipt: Receipt;
  /** Works of other owners registered with the same work_hash. */
  readonly conflicting_claims: string[];
}

/** Result of `registerWork`. */
export interface RegisterWorkResult extends Work {
  /** False when the same owner had already registered this work_hash (the stored work is returned). */
  readonly created: boolean;
}

/** Fingerprints a text (the engine's `fingerprint`). */
export type Fingerprinter = (text: string, options: FingerprintOptions) => Promise<Fingerprint>;

/** How `registerWork` runs (not what it gives). */
export interface RegisterOptions {
  /**
   * Where long content is extracted and fingerprinted (`serve`'s worker pool), so that the host's event loop
   * keeps serving meanwhile; the same work either way.
   */
  readonly offload?: Offload;
  /**
   * The largest file (`content_type` `epub`, `pdf`, `docx`) taken, in bytes: a larger one is PAYLOAD_TOO_LARGE before
   * it is extracted (the HTTP service passes the account's plan's `fileBytes`). @default ANALYZE_MAX_FILE_BYTES (64 MiB)
   */
  readonly maxFileBytes?: number;
}

/** The fingerprint a work is registered with: its id and token count, no sketches. */
const REGISTER_FINGERPRINT: FingerprintOptions = Object.freeze({ minhash: false, simhash: false, workHash: false });

/** Register (see `engine.registerWork`). */
export async function registerWork(
  fingerprintText: Fingerprinter,
  store: Store,
  key: ReceiptKey,
  request: RegisterWorkRequest,
  options: RegisterOptions = {},
): Promise<RegisterWorkResult> {
  const { metadata, ...top } = readThroughFile(REGISTER_WORK_REQUEST, request, options);
  const r = { ...top, ...metadata };
  const { owner } = r;
  const maxFileBytes = fileLimitOption(options.maxFileBytes);
  let workHash: string,
    fingerprint: string,
    text: string | null = null,
    tokens = 0,
    contentType: ContentType | DocumentFormat | null = null;
  if (r.content !== undefined) {
    // a file (epub, pdf, docx): its bytes are the work, its extracted text what a score searches
    const file = isFileType(r.content_type) ? fileBytes(r.content) : null;
    const content = file ?? (r.content as string);
    contentType = r.content_type ?? 'text';
    const { offload } = options;
    text = file
      ? (await extractDocumentOn(offload, file, contentType as DocumentFormat, { maxBytes: maxFileBytes })).text
      : (await extractOn(offload, content as string, contentType as ContentType)).text;
    // the content id and the token count are read: no per-shingle column (a worker's thread sends none)
    const work = { kind: 'fingerprint', text, options: resolveOptions(REGISTER_FINGERPRINT), columns: {} } as const;
    // on the offload the same work, whose fingerprint finds a lone surrogate itself (INVALID_INPUT, the message
    // engine.fingerprint gives): not searched for here first, on the request's thread (10 MB of text: 11 ms)
    const fp =
      offload && worthOffloading(work) ? await offload.run(work) : await fingerprintText(text, REGISTER_FINGERPRINT);
    fingerprint = fp.fingerprint;
    tokens = fp.token_count;
    // a long text or file hashed a piece at a time, with turns of the event loop between
    const digest =
      typeof content === 'string'
        ? sha256HexOfTextSliced(content, nextMacrotask)
        : sha256HexOfBytesSliced(content, nextMacrotask);
    workHash = `sha256:${await digest}`;
  } else {
    ({ fingerprint, work_hash: workHash } = r.fingerprint!);
  }

  // a long text checked and encoded for the store now, a piece at a time, not in one step inside the transaction
  const textValue = text !== null && store.prepare ? await store.prepare(text) : text;
  return store.transaction(async (tx) => {
    const mine = await tx.get(`work-hash/${workHash}/${owner}`);
    if (typeof mine === 'string') {
      const existing = (await tx.get(`work/${mine}`)) as Work | undefined;
      if (existing) return { ...existing, created: false };
    }
    const others = (await tx.scan(`work-hash/${workHash}/`)).map(([, id]) => id as string);
    const registered_at = new Date().toISOString();
    const work: Work = {
      work_id: newId('wk_'),
      work_hash: workHash,
      fingerprint,
      owner,
      title: r.title ?? null,
      author: r.author ?? null,
      work_type: r.work_type ?? null,
      content_type: contentType,
      declarations: r.declarations ?? {},
      tokens,
      has_text: text !== null,
      registered_at,
      receipt: await signReceipt(key, { work_hash: workHash, owner, registered_at }),
      conflicting_claims: others,
    };
    tx.put(`work/${work.work_id}`, work);
    tx.put(`work-hash/${workHash}/${owner}`, work.work_id);
    if (text !== null) tx.put(`work-text/${work.work_id}`, textValue);
    for (const id of others) {
      const other = (await tx.get(`work/${id}`)) as Work | undefined;
      if (other) tx.put(`work/${id}`, { ...other, conflicting_claims: [...other.conflicting_claims, work.work_id] });
    }
    return { ...work, created: true };
  });
}

/** A work by id. @throws NOT_FOUND */
export async function getWork(store: Store, workId: unknown, scope: { readonly owner?: string } = {}): Promise<Work> {
  if (typeof workId !== 'string' || !workId.startsWith('wk_')) fail('work_id must be a "wk_…" id');
  const w = (await store.get(`work/${workId}`)) as Work | undefined;
  if (!w || (scope.owner !== undefined && w.owner !== scope.owner)) {
    throw new TrainprintError('NOT_FOUND', `no work "${workId}"`);
  }
  return w;
}

/**
 * The work `owner` registered with `workHash`: one read of the registry's index, never another owner's work with the
 * same bytes.
 * @throws NOT_FOUND when the owner registered none
 */
export async function findWork(store: Store, workHash: unknown, owner: unknown): Promise<Work> {
  if (typeof workHash !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(workHash))
    fail('work_hash must be "sha256:" followed by 64 lowercase hex digits');
  if (typeof owner !== 'string' || owner.length === 0) fail('owner must be a non-empty string');
  const id = await store.get(`work-hash/${workHash}/${owner}`);
  if (typeof id !== 'string')
    throw new TrainprintError('NOT_FOUND', `no registered work of the account with work_hash ${workHash}`);
  return getWork(store, id, { owner: owner as string });
}

/** The works registered with `workHash` (oldest first). */
export async function worksByHash(store: Store, workHash: string): Promise<Work[]> {
  const ids = (await store.scan(`work-hash/${workHash}/`)).map(([, id]) => id as string);
  const works = (await Promise.all(ids.map((id) => store.get(`work/${id}`)))) as Array<Work | undefined>;
  return works
    .filter((w): w is Work => w !== undefined)
    .sort((a, b) => (a.registered_at < b.registered_at ? -1 : a.registered_at > b.registered_at ? 1 : 0));
}

/** The kept text of a work, or null. */
export async function workText(store: Store, workId: string): Promise<string | null> {
  const t = await store.get(`work-text/${workId}`);
  return typeof t === 'string' ? t : null;
}

/** One page of works; pass `next` as `after` for the next one (null on the last page). */
export interface WorkPage {
  readonly works: Work[];
  readonly next: string | null;
}

/** Works, optionally of one owner, in id order, with cursor pagination. */
export async function listWorks(store: Store, options: ListWorksOptions = {}): Promise<WorkPage> {
  const { owner, ...page } = checkObject(readRequest(options, 'options'), 'options');
  if (owner !== undefined) checkString(owner, 'owner', 200);
  const o = { ...readThrough(LIST_WORKS_REQUEST, page, undefined), owner };
  const limit = o.limit ?? 100;
  const works: Work[] = [];
  let after = o.after === undefined ? undefined : `work/${o.after}`;
  // filter by owner while paging through the ordered keys, so a page is full when it can be
  for (;;) {
    const page = await store.scan('work/', { after, limit: limit + 1 });
    for (const [, w] of page) {
      if (o.owner === undefined || (w as Work).owner === o.owner) works.push(w as Work);
      if (works.length > limit) break;
    }
    if (works.length > limit || page.length < limit + 1) break;
    after = page[page.length - 1][0];
  }
  const more = works.length > limit;
  if (more) works.length = limit;
  return { works, next: more ? works[works.length - 1].work_id : null };
}

/** Delete a work (and its text and hash index); other owners' claims drop it. `owner`, when given, must match. */
export async function deleteWork(store: Store, workId: unknown, owner?: string): Promise<boolean> {
  if (typeof workId !== 'string' || !workId.startsWith('wk_')) fail('work_id must be a "wk_…" id');
  return store.transaction(async (tx) => {
    const w = (await tx.get(`work/${workId}`)) as Work | undefined;
    if (!w) return false;
    if (owner !== undefined && w.owner !== owner)
      throw new TrainprintError('FORBIDDEN', `work "${workId}" belongs to another owner`);
    tx.delete(`work/${workId}`);
    tx.delete(`work-text/${workId}`);
    tx.delete(`work-hash/${w.work_hash}/${w.owner}`);
    for (const id of w.conflicting_claims) {
      const other = (await tx.get(`work/${id}`)) as Work | undefined;
      if (other)
        tx.put(`work/${id}`, { ...other, conflicting_claims: other.conflicting_claims.filter((x) => x !== workId) });
    }
    return true;
  });
}
