/**
 * Routes of the memorization operations (`engine.memorization`, src/services/memorization/) under
 * `/api/v1/memorization/`, scope `memorization`. A request names its target model as
 * `model: { base_url, api_key?, model, api?, top_logprobs? }`, an OpenAI-compatible service the
 * server calls (through `ctx.services.targetModel`, which applies the handler's model-host
 * policy: see src/net/egress.ts). The API key stays in memory for the request only.
 * A failing model service answers 502 `UPSTREAM_ERROR`, an unreachable one 502 `UPSTREAM_UNREACHABLE`, a silent one
 * 504 `UPSTREAM_TIMEOUT`;
 * their `details.upstream` says how the service answered (status, content type, length), never what.
 *
 * The six operations of the catalogue also answer at a short path, `/api/v1/<name>` (`assess`,
 * `extract`, `probe`, `report`, `compare`, `register-work`): {@link MEMORIZATION_ALIASES}, the
 * same rows under another path and operation id, marked `x-alias-of` in OpenAPI.
 *
 * Tenancy: works are the account's (`work_id` of another account is 404; `work` registers one
 * owned by the account); `compare` looks only at the account's works; assessments are reported
 * only to the owner of their work. Reference sets belong to the account: the id a client
 * chooses is stored as `<account>/<id>` and shown without the prefix, so two accounts may both
 * call a set `withheld`. Ownership is passed as data: before the engine is called, the route
 * looks up the account's own set (`<account>/<id>`) and answers 404 or 409 itself, naming the id
 * as the client knows it, so the engine's errors are never rewritten.
 */
import {
  isTrainprintError,
  readThrough,
  REQUESTS,
  TrainprintError,
  type Assessment,
  type AssessRequest,
  type ExtractRequest,
  type ProbeReference,
  type ProbeRequest,
  type ProbeResult,
  type ReferenceSetInfo,
  type TargetModel,
} from '../../library.js';
import { type GroupRow, inGroup, Reply, type ModelSpec, type Route, type RouteContext } from '../context.js';
import * as M from '../schemas/memorization.js';
import { htmlReport } from '../respond.js';
import { account, ownWork } from './caller.js';
import { notFound } from './refusals.js';

const BASE = '/api/v1/memorization';

/** A row taking a JSON body at `${BASE}/<name>`. */
const post = (name: string, row: Omit<GroupRow, 'method' | 'path' | 'body'>): GroupRow => ({
  method: 'POST',
  path: `${BASE}/${name}`,
  body: 'json',
  ...row,
});

/**
 * The memorization rows of the route table (src/http/routes/index.ts spreads them into `ROUTES`).
 * @example MEMORIZATION_ROUTES.map((r) => r.operationId)
 */
export const MEMORIZATION_ROUTES: readonly Route[] = inGroup('memorization', 'memorization', [
  post('register-work', {
    operationId: 'trackWork',
    creates: true,
    summary: 'Track a work of the account for memorization, optionally with canaries to embed before publishing',
    requestSchema: REQUESTS.trackWork.served,
    responseSchema: M.TRACKED_WORK_RESPONSE_SCHEMA,
    handler: async (ctx) => {
      // its rules before the account's work is looked up: one bad request, one 422, whatever the work
      const b = readThrough(REQUESTS.trackWork, ctx.body, undefined);
      if (b.work_id !== undefined) await ownWork(ctx, b.work_id);
      // the account is the owner; the library reads the registration through its own contract
      const req = b.work === undefined ? b : { ...b, work: { ...b.work, owner: account(ctx) } };
      return { ...(await mem(ctx).registerWork(req)) };
    },
  }),
  post('reference-sets', {
    operationId: 'createReferenceSet',
    creates: true,
    summary: 'Keep a non-member reference set for probes, with how it was made (`basis`)',
    requestSchema: REQUESTS.referenceSet.served,
    responseSchema: M.REFERENCE_SET_RESPONSE_SCHEMA,
    status: [201],
    handler: async (ctx) => {
      const b = readThrough(REQUESTS.referenceSet, ctx.body, undefined);
      // only the account's own sets can hold the id it chose: another account's `withheld` is another set
      if (await findOwnSet(ctx, b.id)) throw new TrainprintError('ALREADY_EXISTS', `reference set "${b.id}" exists`);
      const info = await mem(ctx).addReferenceSet({ ...b, id: refSetKey(ctx, b.id) });
      return new Reply({ ...shownSet(ctx, info) }, 201);
    },
  }),
  {
    method: 'GET',
    path: `${BASE}/reference-sets`,
    operationId: 'listReferenceSets',
    summary: "The account's reference sets (without their texts)",
    responseSchema: M.REFERENCE_SET_LIST_SCHEMA,
    handler: async (ctx) => {
      const prefix = refSetKey(ctx, '');
      return {
        reference_sets: (await mem(ctx).listReferenceSets())
          .filter((s) => s.id.startsWith(prefix))
          .map((s) => shownSet(ctx, s)),
      };
    },
  },
  post('extract', {
    operationId: 'extractMemorized',
    summary: 'Prefixes of the work → greedy continuation by the model → verbatim match against the work',
    requestSchema: REQUESTS.extract.served,
    responseSchema: M.EXTRACTION_RESPONSE_SCHEMA,
    handler: async (ctx) => {
      const b = ctx.body as Record<string, unknown> & { model: ModelSpec; work_id?: string };
      REQUESTS.extract.rules(b as never, undefined); // its schema checked: its rule before the work is looked up
      if (b.work_id !== undefined) await ownWork(ctx, b.work_id);
      const model = await ctx.services.targetModel(b.model);
      return { ...(await mem(ctx).extract({ ...b, model } as ExtractRequest)) };
    },
  }),
  post('probe', {
    operationId: 'probeMemorization',
    summary: 'Likelihood statistics of the work against a non-member reference set, with a set-level test',
    requestSchema: REQUESTS.probe.served,
    responseSchema: M.PROBE_RESPONSE_SCHEMA,
    handler: async (ctx) => {
      const b = ctx.body as Record<string, unknown> & {
        model: ModelSpec;
        reference_model?: ModelSpec;
        work_id?: string;
        reference: ProbeReference;
      };
      REQUESTS.probe.rules(b as never, undefined); // its schema checked: its rules before the work is looked up
      if (b.work_id !== undefined) await ownWork(ctx, b.work_id);
      const model = await ctx.services.targetModel(b.model);
      const calibration = await referenceModel(ctx, b.reference_model, 'reference_model');
      await assertOwnReference(ctx, b.reference);
      const request = { ...b, reference: ownReference(ctx, b.reference), model, ...calibration } as ProbeRequest;
      return { ...shownProbe(ctx, await mem(ctx).probe(request)) };
    },
  }),
  post('compare', {
    operationId: 'compareOutput',
    summary: "A model output against the account's works: verbatim runs and near passages",
    requestSchema: REQUESTS.compareOutput.served,
    responseSchema: M.COMPARE_OUTPUT_RESPONSE_SCHEMA,
    handler: async (ctx) => {
      const b = readThrough(REQUESTS.compareOutput, ctx.body, undefined);
      for (const id of b.work_ids ?? []) await ownWork(ctx, id);
      // without work_ids, the account's works with their text
      return { ...(await mem(ctx).compare(b, { owner: account(ctx) })) };
    },
  }),
  post('assess', {
    operationId: 'assessMemorization',
    creates: true,
    summary: 'Memorization risk of a work of the account × a model: corpus evidence, extraction, probe and canaries',
    requestSchema: REQUESTS.assess.served,
    responseSchema: M.ASSESSMENT_RESPONSE_SCHEMA,
    handler: async (ctx) => {
      const b = ctx.body as Record<string, unknown> & {
        model: ModelSpec;
        work_id: string;
        probe?: false | { reference: ProbeReference; reference_model?: ModelSpec };
      };
      REQUESTS.assess.rules(b as never, undefined); // its schema checked: its rules before the work is looked up
      await ownWork(ctx, b.work_id);
      const probe =
        b.probe === undefined || b.probe === false
          ? b.probe
          : {
              ...b.probe,
              reference: ownReference(ctx, b.probe.reference),
              ...(await referenceModel(ctx, b.probe.reference_model, 'probe.reference_model')),
            };
      const model = await ctx.services.targetModel(b.model);
      // the engine reads the reference set only when it runs the probe, which it never does for a model without
      // log-probabilities: only then is a set the account does not have a 404
      if (b.probe !== undefined && b.probe !== false && model.access !== 'generations_only')
        await assertOwnReference(ctx, b.probe.reference);
      const request = { ...b, ...(probe === undefined ? {} : { probe }), model } as AssessRequest;
      return { ...shownAssessment(ctx, await mem(ctx).assess(request)) };
    },
  }),
  post('report', {
    operationId: 'memorizationReport',
    summary: 'An assessment of the account as one self-contained HTML page (text/html)',
    requestSchema: REQUESTS.report.served,
    responseSchema: M.REPORT_SCHEMA,
    responseType: 'html',
    handler: async (ctx) => {
      const b = readThrough(REQUESTS.report, ctx.body, undefined);
      const a = await mem(ctx).getAssessment(b.assessment_id);
      if (a.work.owner !== account(ctx)) notFound(`no assessment "${b.assessment_id}"`);
      const html = await mem(ctx).report(
        shownAssessment(ctx, a),
        b.max_spans === undefined ? {} : { maxSpans: b.max_spans },
      );
      return htmlReport(html);
    },
  }),
]);

/** Short path of each catalogued operation → its operation id under `/api/v1/memorization/`. */
const SHORT_PATHS: ReadonlyArray<readonly [name: string, operationId: string, aliasId: string]> = [
  ['register-work', 'trackWork', 'registerWorkAlias'],
  ['extract', 'extractMemorized', 'extractAlias'],
  ['probe', 'probeMemorization', 'probeAlias'],
  ['compare', 'compareOutput', 'compareAlias'],
  ['assess', 'assessMemorization', 'assessAlias'],
  ['report', 'memorizationReport', 'reportAlias'],
];

/**
 * The catalogued operations at their short paths (`POST /api/v1/assess` …): the same rows
 * (schemas, scope, handler) under another path and operation id. `/api/v1/compare` is the
 * memorization comparison of a model output with the account's works; the alignment of two texts
 * stays at `/api/v1/attribution/compare`.
 * @example MEMORIZATION_ALIASES.map((r) => `${r.path} → ${r.aliasOf}`)
 */
export const MEMORIZATION_ALIASES: readonly Route[] = SHORT_PATHS.map(([name, id, aliasId]) => {
  const row = MEMORIZATION_ROUTES.find((r) => r.operationId === id);
  if (!row) throw new Error(`no memorization route ${id}`); // a renamed row: caught by every test at import
  return { ...row, path: `/api/v1/${name}`, operationId: aliasId, aliasOf: id };
});

// ------------------------------------------------------------------ helpers

function mem(ctx: RouteContext) {
  return ctx.engine.memorization;
}

/** The probe's `reference_model`, called through the same model-host policy as `model`. */
async function referenceModel(
  ctx: RouteContext,
  spec: ModelSpec | undefined,
  field: string,
): Promise<{ reference_model?: TargetModel }> {
  return spec === undefined ? {} : { reference_model: await ctx.services.targetModel(spec, field) };
}

// ------------------------------------------------------------------ reference sets: the account's own

/** Store id of the account's reference set `id` (accounts never contain `/`). */
function refSetKey(ctx: RouteContext, id: string): string {
  return `${account(ctx)}/${id}`;
}

/**
 * The account's reference set `id`, or null when the account has none by that id (another account's set of the
 * same id is another store id, never looked at). Absence is the engine's NOT_FOUND, read here as null.
 */
async function findOwnSet(ctx: RouteContext, id: string): Promise<ReferenceSetInfo | null> {
  try {
    return await mem(ctx).getReferenceSet(refSetKey(ctx, id));
  } catch (e) {
    if (isTrainprintError(e, 'NOT_FOUND')) return null;
    throw e;
  }
}

/** 404 naming the id as the account knows it when a probe's `reference` names a set the account does not have. */
async function assertOwnReference(ctx: RouteContext, ref: ProbeReference): Promise<void> {
  if ('reference_set' in ref && !(await findOwnSet(ctx, ref.reference_set)))
    notFound(`no reference set "${ref.reference_set}"`);
}

/** A stored reference-set id as the account knows it. */
function shownId(ctx: RouteContext, id: string | null): string | null {
  const prefix = refSetKey(ctx, '');
  return id?.startsWith(prefix) ? id.slice(prefix.length) : id;
}

function shownSet(ctx: RouteContext, s: ReferenceSetInfo): ReferenceSetInfo {
  return { ...s, id: shownId(ctx, s.id)! };
}

/** A probe's `reference` as the engine reads it: a reference-set id becomes the account's store id. */
function ownReference(ctx: RouteContext, ref: ProbeReference): ProbeReference {
  return 'reference_set' in ref ? { ...ref, reference_set: refSetKey(ctx, ref.reference_set) } : ref;
}

function shownProbe(ctx: RouteContext, p: ProbeResult): ProbeResult {
  return { ...p, reference: { ...p.reference, id: shownId(ctx, p.reference.id) } };
}

function shownAssessment(ctx: RouteContext, a: Assessment): Assessment {
  return a.probe === null ? a : { ...a, probe: shownProbe(ctx, a.probe) };
}
