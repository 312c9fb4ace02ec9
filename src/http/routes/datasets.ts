/**
 * Routes of the reference datasets under `/api/v1/datasets` (tag `datasets`, scopes
 * `datasets:read` and `datasets:write`): list, read, create, grow, export, import and drop them.
 *
 * Every account searches, lists and exports the shared datasets (shipped packs, the operator's)
 * and its own; another account's answer 404, as if absent. Only the account that created or
 * imported one may grow or drop it (403 for a shared one, which needs the `admin` scope). What an
 * account may keep is capped by its plan (`Plan.datasets`): the caps are checked, and reserved for
 * the requests still running, before a body is read ({@link datasetAllowance}).
 */
import {
  declaredDatasetId,
  REQUESTS,
  TrainprintError,
  type DatasetDocument,
  type DatasetLoadOptions,
  type DatasetProvenance,
  type DatasetStats,
  type Engine,
} from '../../library.js';
import { inGroup, Reply, type BodyAllowance, type Route, type RouteContext } from '../context.js';
import { DELETED_SCHEMA } from '../schemas/content.js';
import * as S from '../schemas/datasets.js';
import { account, who } from './caller.js';
import { invalidField, notFound } from './refusals.js';

/**
 * The reference-dataset rows of the route table (src/http/routes/index.ts spreads them into `ROUTES`).
 * @example DATASET_ROUTES.filter((r) => r.scope === 'datasets:write').map((r) => r.operationId)
 */
export const DATASET_ROUTES: readonly Route[] = inGroup('datasets', 'datasets:write', [
  {
    method: 'GET',
    path: '/api/v1/datasets',
    operationId: 'listDatasets',
    scope: 'datasets:read',
    summary: 'The reference datasets the account searches (shared and its own) with their stats',
    responseSchema: S.DATASET_LIST_SCHEMA,
    handler: async (ctx) => ({
      datasets: (who(ctx).scopes.includes('admin')
        ? ctx.engine.datasets()
        : ctx.engine.datasets({ account: account(ctx) })
      ).map((d) => shownDataset(ctx, d)),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/datasets/{dataset_id}',
    operationId: 'getDataset',
    scope: 'datasets:read',
    summary: "One reference dataset's stats",
    responseSchema: S.DATASET_RESPONSE_SCHEMA,
    handler: async (ctx) => shownDataset(ctx, datasetStats(ctx, ctx.params.dataset_id)),
  },
  {
    method: 'POST',
    path: '/api/v1/datasets',
    operationId: 'createDataset',
    creates: true,
    summary: 'Create a reference dataset (optionally with its first documents)',
    body: 'json',
    requestSchema: REQUESTS.createDataset.served,
    responseSchema: S.DATASET_RESPONSE_SCHEMA,
    status: [201],
    beforeBody: newDatasetAllowance,
    handler: async (ctx) => {
      const { documents, ...descriptor } = ctx.body as { id: string; documents?: DatasetDocument[] } & Record<
        string,
        unknown
      >;
      refuseRepeatedIds(documents ?? []);
      const load = () => ctx.engine.addDataset(descriptor as never, documents ?? [], suppliedBy(ctx));
      const stats = await createOwnDataset(ctx, descriptor.id, load);
      return new Reply({ ...shownDataset(ctx, stats) }, 201);
    },
  },
  {
    method: 'POST',
    path: '/api/v1/datasets/{dataset_id}/documents',
    operationId: 'addDocuments',
    creates: true,
    summary: 'Add documents to a reference dataset',
    body: 'json',
    requestSchema: S.ADD_DOCUMENTS_REQUEST_SCHEMA,
    responseSchema: S.DATASET_RESPONSE_SCHEMA,
    beforeBody: async (ctx) => {
      await datasetsWritable(ctx);
      await ownDataset(ctx, ctx.params.dataset_id);
      return datasetAllowance(ctx, false);
    },
    handler: async (ctx) => {
      await ownDataset(ctx, ctx.params.dataset_id); // again: it may have been dropped while the body was read
      const { documents } = ctx.body as { documents: DatasetDocument[] };
      refuseRepeatedIds(documents);
      const stats = await ctx.engine.addDataset({ id: ctx.params.dataset_id }, documents);
      return shownDataset(ctx, stats);
    },
  },
  {
    method: 'GET',
    path: '/api/v1/datasets/{dataset_id}/export',
    operationId: 'exportDataset',
    scope: 'datasets:read',
    summary: 'A reference dataset as a file (`POST /api/v1/datasets/import` or `engine.importDataset` loads it)',
    responseSchema: S.BINARY_SCHEMA,
    responseType: 'binary',
    handler: async (ctx) => {
      datasetStats(ctx, ctx.params.dataset_id); // another account's dataset is not there for this one
      const bytes = ctx.engine.exportDataset(ctx.params.dataset_id);
      return new Response(bytes as Uint8Array<ArrayBuffer>, {
        headers: {
          'content-type': 'application/octet-stream',
          'content-disposition': `attachment; filename="${ctx.params.dataset_id}.tpds"`,
          'cache-control': 'no-store',
        },
      });
    },
  },
  {
    method: 'POST',
    path: '/api/v1/datasets/import',
    operationId: 'importDataset',
    creates: true,
    summary: 'Load a dataset file (application/octet-stream)',
    body: 'binary',
    requestSchema: S.BINARY_SCHEMA,
    responseSchema: S.DATASET_RESPONSE_SCHEMA,
    status: [201],
    beforeBody: newDatasetAllowance,
    handler: async (ctx) => {
      const bytes = ctx.body as Uint8Array;
      // the id is inside the file: checked before anything is loaded under it
      const id = declaredDatasetId(bytes);
      const stats = await createOwnDataset(ctx, id, () => ctx.engine.importDataset(bytes, suppliedBy(ctx)));
      return new Reply({ ...shownDataset(ctx, stats) }, 201);
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/datasets/{dataset_id}',
    operationId: 'deleteDataset',
    summary: 'Drop a reference dataset of the account',
    responseSchema: DELETED_SCHEMA,
    handler: async (ctx) => {
      await datasetsWritable(ctx);
      await ownDataset(ctx, ctx.params.dataset_id);
      if (!ctx.engine.removeDataset(ctx.params.dataset_id)) notFound(`no dataset "${ctx.params.dataset_id}"`);
      loadedByApi(ctx.engine).delete(ctx.params.dataset_id);
      return { id: ctx.params.dataset_id, deleted: true };
    },
  },
]);

// ------------------------------------------------------------------ who may read and change a dataset

/** A dataset's stats when the caller may read it (shared, or its own); another account's is not there for it. */
function datasetStats(ctx: RouteContext, id: string) {
  const d = ctx.engine.datasets().find((x) => x.id === id);
  return d && mayRead(ctx, id) ? d : notFound(`no dataset "${id}"`);
}

/**
 * Whether the caller may read a loaded dataset: every account reads the shared ones (shipped, the operator's) and
 * its own; an admin reads all.
 */
function mayRead(ctx: RouteContext, id: string): boolean {
  const { account: owner } = ctx.engine.datasetProvenance(id);
  return owner === null || owner === account(ctx) || who(ctx).scopes.includes('admin');
}

/**
 * Who supplies a dataset loaded through the API: an admin key loads for every account (the operator's, as CLI
 * flags do); any other key for its own account alone.
 */
function suppliedBy(ctx: RouteContext): DatasetLoadOptions {
  return who(ctx).scopes.includes('admin')
    ? { supplied_by: 'operator' }
    : { supplied_by: 'account', account: account(ctx) };
}

/** 409 CONFLICT when the handler keeps the reference datasets as they are (`datasetsReadOnly`). */
async function datasetsWritable(ctx: RouteContext): Promise<void> {
  const why = ctx.services.datasetsReadOnly;
  if (why !== null) {
    throw new TrainprintError('CONFLICT', `reference datasets cannot be changed on this server: ${why}`);
  }
}

/**
 * The dataset when the caller may change it: the account's own, or any for an admin (the shared ones included).
 * 404 when it is not loaded or is another account's (whose datasets this one cannot see), 403 for a shared one.
 */
/** Whether the caller may change dataset `id`: its account's own, or any with the admin scope. */
function mayChange(ctx: RouteContext, id: string): boolean {
  return who(ctx).scopes.includes('admin') || ctx.engine.datasetProvenance(id).account === account(ctx);
}

async function ownDataset(ctx: RouteContext, id: string): Promise<void> {
  datasetStats(ctx, id);
  if (mayChange(ctx, id)) return;
  const p = ctx.engine.datasetProvenance(id);
  throw new TrainprintError(
    'FORBIDDEN',
    `dataset "${id}" is shared by every account (${p.supplied_by === 'shipped' ? 'a reference pack of the package' : 'loaded by the operator'}): changing it needs the admin scope`,
  );
}

// ------------------------------------------------------------------ what the plan lets an account keep

/**
 * What the account's plan lets it still keep of its own datasets (`Plan.datasets`): a new one only below the count
 * (403 otherwise), and a body no larger than the bytes of text left. An admin key loads the operator's: no cap.
 */
async function datasetAllowance(ctx: RouteContext, creating: boolean): Promise<BodyAllowance | undefined> {
  const principal = who(ctx);
  if (principal.scopes.includes('admin')) return undefined;
  const caps = ctx.services.plan(principal.plan)?.datasets;
  if (!caps) return undefined;
  const me = account(ctx);
  const own = ctx.engine.datasets().filter((d) => ctx.engine.datasetProvenance(d.id).account === me);
  // requests of this account still running count as if done: checked and reserved in one step (no await between),
  // so parallel uploads cannot each see the same room
  let byAccount = RESERVED.get(ctx.engine);
  if (!byAccount) RESERVED.set(ctx.engine, (byAccount = new Map()));
  const held = byAccount.get(me) ?? { count: 0, bytes: 0 };
  if (creating && caps.count !== null && own.length + held.count >= caps.count) {
    const running = held.count > 0 ? ` (${held.count} being created now)` : '';
    throw new TrainprintError(
      'FORBIDDEN',
      `plan "${principal.plan}" keeps at most ${caps.count} datasets per account ` +
        `and this account has ${own.length}${running}: drop one first (DELETE /api/v1/datasets/{dataset_id})`,
    );
  }
  const used = own.reduce((n, d) => n + d.bytes, 0);
  const left = caps.bytes === null ? Number.MAX_SAFE_INTEGER : Math.max(0, caps.bytes - used - held.bytes);
  // a body of declared length reserves that much (the text it holds is less); one without reserves all that is left
  const declared = Number(ctx.request.headers.get('content-length') ?? Number.NaN);
  const take =
    caps.bytes === null ? 0 : Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, left) : left;
  const mine = { count: creating ? 1 : 0, bytes: take };
  byAccount.set(me, { count: held.count + mine.count, bytes: held.bytes + mine.bytes });
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    const now = byAccount.get(me)!;
    const next = { count: now.count - mine.count, bytes: now.bytes - mine.bytes };
    if (next.count === 0 && next.bytes === 0) byAccount.delete(me);
    else byAccount.set(me, next);
  };
  const uploading = held.bytes > 0 ? ` (and ${held.bytes} held by uploads running now)` : '';
  return {
    maxBodyBytes: left,
    reason: `plan "${principal.plan}" keeps ${caps.bytes} bytes of dataset text per account and ${used} are used${uploading}`,
    release,
  };
}

/**
 * What running dataset writes of each account hold of its plan's caps, per engine: a dataset being created counts
 * toward the number, a body being read toward the bytes, until its request ends.
 */
const RESERVED = new WeakMap<Engine, Map<string, { count: number; bytes: number }>>();

// ------------------------------------------------------------------ datasets loaded through the API

/**
 * Datasets loaded through this API, per engine. They live in the server's memory: a restart drops them, while the
 * operator's (loaded at start from files or kept in PostgreSQL) and the packs come back.
 */
const LOADED_BY_API = new WeakMap<Engine, Set<string>>();

function loadedByApi(engine: Engine): Set<string> {
  let set = LOADED_BY_API.get(engine);
  if (!set) LOADED_BY_API.set(engine, (set = new Set()));
  return set;
}

/** A dataset as the API shows it: with `durable`, whether it outlasts a restart of the server. */
function shownDataset(
  ctx: RouteContext,
  d: DatasetStats,
): DatasetStats & { supplied_by: DatasetProvenance['supplied_by']; durable: boolean } {
  return {
    ...d,
    supplied_by: ctx.engine.datasetProvenance(d.id).supplied_by,
    durable: !loadedByApi(ctx.engine).has(d.id),
  };
}

/** Ids being created now, per engine: two requests for one id must not both load it. */
const CREATING = new WeakMap<Engine, Set<string>>();

/**
 * A request's documents with one id twice are refused before any is added (422 naming the second), where the dataset
 * would have taken the documents before it and then answered 409.
 */
function refuseRepeatedIds(documents: readonly DatasetDocument[]): void {
  const seen = new Map<string, number>();
  documents.forEach((d, i) => {
    const first = seen.get(d.id);
    if (first !== undefined) invalidField(`documents[${i}].id`, `"${d.id}" is documents[${first}].id too`);
    seen.set(d.id, i);
  });
}

/**
 * Load a dataset for the calling account under `id` (null: the file's id could not be read; the engine then says
 * why the file is refused); `load` records who supplied it ({@link suppliedBy}).
 */
async function createOwnDataset(
  ctx: RouteContext,
  id: string | null,
  load: () => Promise<DatasetStats>,
): Promise<DatasetStats> {
  const idPattern = new RegExp(S.DATASET_ID_PATTERN);
  if (id !== null && !idPattern.test(id)) invalidField('id', `the dataset id must match ${S.DATASET_ID_PATTERN}`);
  const kbName = id !== null && !who(ctx).scopes.includes('admin') ? ctx.engine.kb.resolveDatasetName(id) : null;
  if (kbName !== null) {
    // the knowledge base's names are the operator's: an account holding "the-pile" would keep the operator's sample
    // of The Pile from loading under its name, and read to others as if it were that corpus
    invalidField(
      'id',
      `"${id}" names a dataset of the knowledge base (${kbName}), kept for the operator's samples: choose another id, e.g. "${id!.toLowerCase().replace(/[^a-z0-9-]+/g, '-')}-mine", and declare what it samples with kb_dataset`,
    );
  }
  let creating = CREATING.get(ctx.engine);
  if (!creating) CREATING.set(ctx.engine, (creating = new Set()));
  if (id !== null) {
    const exists = ctx.engine.datasets().some((d) => d.id === id);
    if (exists || creating.has(id)) {
      // another account's dataset is not named: only that the id is taken; the way to add documents is named only
      // to a caller it is open to
      const how =
        exists && mayChange(ctx, id)
          ? `exists; add documents with POST /api/v1/datasets/${id}/documents`
          : exists && mayRead(ctx, id)
            ? 'exists and is shared by every account: choose another id'
            : 'is taken: choose another id';
      throw new TrainprintError('ALREADY_EXISTS', `dataset "${id}" ${how}`);
    }
    creating.add(id);
  }
  try {
    let stats: DatasetStats;
    try {
      stats = await load();
    } catch (e) {
      // a dataset this request made is not left behind, half loaded, by its refusal (the id was free: checked above)
      if (id !== null && ctx.engine.datasets().some((d) => d.id === id)) ctx.engine.removeDataset(id);
      throw e;
    }
    if (!idPattern.test(stats.id)) {
      // unreachable while the file's id is read as the engine reads it; never keep such an id loaded
      ctx.engine.removeDataset(stats.id);
      invalidField('id', `the dataset id must match ${S.DATASET_ID_PATTERN}`);
    }
    loadedByApi(ctx.engine).add(stats.id);
    return stats;
  } finally {
    if (id !== null) creating.delete(id);
  }
}

/** Before the body of a new dataset (created or imported): writable here, and room in the plan's count and bytes. */
async function newDatasetAllowance(ctx: RouteContext): Promise<BodyAllowance | undefined> {
  await datasetsWritable(ctx);
  return datasetAllowance(ctx, true);
}
