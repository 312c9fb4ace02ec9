/**
 * The served mode: {@link Backend} over the trainprint HTTP API (`trainprint serve`, or any
 * `createHandler` deployment) through the TS client (src/client, bundled into app.js — it is
 * fetch only and imports no engine code, so the page loads neither the engine nor the starter
 * in this mode). What the user analyses is sent to that API with their key.
 *
 * The mode, base URL and key live in sessionStorage only: they last as long as the tab, are
 * never written to localStorage, a cookie or the URL, and another tab starts in-browser.
 */
import { createClient, isTrainprintApiError, type Ok, type TrainprintClient } from '../src/client/index.js';
import {
  BackendError,
  type AnalysisResult,
  type AnalyzeCallOptions,
  type AnalyzeRequest,
  type Backend,
  type BackendInfo,
  type DatasetInfo,
  type DatasetStats,
  type MemorizationRequest,
} from './backend.js';
import { MEMORIZATION_EXTRACT, referenceSetId } from './memorization-plan.js';
import type { StarterTexts } from './engine-backend.js';
import { PLAN_FILE_BYTES } from './files.js';

/** Which backend the page uses. */
export type Mode =
  | { readonly kind: 'browser' }
  | { readonly kind: 'http'; readonly baseUrl: string; readonly apiKey: string };

const KEYS = { mode: 'trainprint.mode', baseUrl: 'trainprint.base_url', apiKey: 'trainprint.api_key' } as const;

/**
 * The analyze limit of the API (10 MiB of content, `ANALYZE_MAX_BYTES`). Written out rather than
 * imported: importing the library here would load the engine bundle into the page.
 */
const ANALYZE_BYTES = 10 * 1024 * 1024;

/** A background analysis's job (`GET /api/v1/jobs/{job_id}`): a one-item `analyze` job in the server's store. */
interface AnalysisJob {
  readonly state: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  readonly status_url: string;
  readonly results_url: string;
  readonly error?: { readonly code: string; readonly message: string };
}

/** The one result line of such a job: the analysis, or the error the request would have answered. */
type AnalysisLine =
  | { readonly success: true; readonly result: AnalysisResult }
  | { readonly success: false; readonly error: { readonly code: string; readonly message: string } };

/** The first wait between two polls of a background analysis (ms); it grows to {@link POLL_MAX_MS}. */
const POLL_FIRST_MS = 250;
const POLL_MAX_MS = 1000;

/** The starter dataset's id (`STARTER_DATASET.id`), for source texts from starter-texts.json. */
const STARTER_ID = 'spdx-licenses';

/** The mode of this tab (in-browser unless served mode was chosen in it). */
export function readMode(storage: Storage | null = sessionStorageOrNull()): Mode {
  if (storage?.getItem(KEYS.mode) !== 'http') return { kind: 'browser' };
  const baseUrl = storage.getItem(KEYS.baseUrl);
  const apiKey = storage.getItem(KEYS.apiKey);
  if (!baseUrl || !apiKey) return { kind: 'browser' };
  return { kind: 'http', baseUrl, apiKey };
}

/**
 * Keeps the mode for this tab. Choosing in-browser forgets the key.
 * @throws BackendError `INVALID_SETTINGS` when the URL is not http(s) or the key is empty
 */
export function saveMode(mode: Mode, storage: Storage | null = sessionStorageOrNull()): void {
  if (!storage)
    throw new BackendError(
      'UNSUPPORTED',
      'This browser keeps no session storage, so the served mode cannot remember the key.',
    );
  if (mode.kind === 'browser') {
    for (const k of Object.values(KEYS)) storage.removeItem(k);
    return;
  }
  const baseUrl = checkBaseUrl(mode.baseUrl);
  const apiKey = mode.apiKey.trim();
  if (!/^[\x21-\x7e]+$/.test(apiKey))
    throw new BackendError(
      'INVALID_SETTINGS',
      'Enter the API key (printed by `trainprint serve`, or made with POST /api/v1/keys).',
    );
  storage.setItem(KEYS.mode, 'http');
  storage.setItem(KEYS.baseUrl, baseUrl);
  storage.setItem(KEYS.apiKey, apiKey);
}

/** An absolute http(s) URL without a trailing slash. */
function checkBaseUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new BackendError(
      'INVALID_SETTINGS',
      `The API base URL must be an absolute URL such as ${location.origin}, not ${JSON.stringify(raw)}.`,
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new BackendError('INVALID_SETTINGS', 'The API base URL must start with http:// or https://.');
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

function sessionStorageOrNull(): Storage | null {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null; // storage disabled (some privacy settings throw on access)
  }
}

export interface HttpBackendOptions {
  /** Where the starter's texts are (shown as source passages when the API serves the same starter). @default './starter-texts.json' next to app.js */
  readonly starterTextsUrl?: string | URL;
  /** For tests: the client to use. */
  readonly client?: TrainprintClient;
}

/** The served starter has the texts of starter-texts.json when its name carries the same list version. */
function info(stats: DatasetStats): DatasetInfo {
  return { ...stats, has_text: stats.id === STARTER_ID && /spdx-license-list [0-9]/.test(stats.name ?? '') };
}

export function createHttpBackend(
  settings: { readonly baseUrl: string; readonly apiKey: string },
  options: HttpBackendOptions = {},
): Backend {
  const tp =
    options.client ??
    createClient({ api_key: settings.apiKey, base_url: settings.baseUrl, maxRetries: 2, timeoutMs: 120_000 });
  const where = tp.baseUrl === location.origin ? 'this site' : new URL(tp.baseUrl).host;
  const textsUrl = options.starterTextsUrl ?? new URL('./starter-texts.json', import.meta.url);
  let texts: Promise<StarterTexts | null> | null = null;

  /** The API's errors as the page's: code kept; a lead sentence for what the user can fix. */
  async function call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      if (!isTrainprintApiError(e)) throw e;
      // a model service's own words, where the API passes them on (502 UPSTREAM_ERROR: "the model … does not exist")
      const upstream = typeof e.details?.upstream === 'string' ? `: ${e.details.upstream}` : '';
      const detail = `${e.message}${upstream}${e.request_id ? ` (request ${e.request_id})` : ''}`;
      const lead: Record<string, string> = {
        UNAUTHORIZED: `The API at ${where} refused the key: ${detail}`,
        FORBIDDEN: `The key may not do this: ${detail}`,
        // the plan's daily calls, or (a file) the analyses the account may run in the background at once
        RATE_LIMITED: `The API takes no more of this key's calls for now: ${detail}`,
        NETWORK_ERROR: `The API at ${where} could not be reached (is it running, and does it allow this page's origin?): ${e.message}`,
        TIMEOUT: `The API at ${where} did not answer in time: ${e.message}`,
      };
      throw new BackendError(e.code, lead[e.code] ?? detail, detail);
    }
  }

  /** {@link call}, with what to do when the API refuses to call a model on this machine or network. */
  async function refusedModelHost<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await call(run);
    } catch (e) {
      if (
        e instanceof BackendError &&
        e.code === 'INVALID_INPUT' &&
        /base_url: this server does not call/.test(e.message)
      )
        throw new BackendError(
          e.code,
          `${e.message} — for models on this machine, start the API with \`trainprint serve --allow-private-model-hosts\` (npm start -- --allow-private-model-hosts).`,
          e.detail,
        );
      throw e;
    }
  }

  /**
   * A file analysed in the background (`Prefer: respond-async`): a one-item job in the server's store, polled until
   * it has finished, then its one result line read. A long book searched in remote corpora takes minutes: no request
   * waits that long, and the job survives a restart of the server. A server that answers at once (no background
   * analyses) gives the result at once.
   */
  async function analyzeInBackground(request: AnalyzeRequest, options: AnalyzeCallOptions): Promise<AnalysisResult> {
    const { onProgress } = options;
    // a request whose content is bytes goes as a multipart upload (the client's): no base64, so a file a third larger
    // than JSON could carry goes, up to the plan's limit
    const accepted = await tp.request<Ok<Partial<AnalysisJob> & { job_id?: string }>>(
      'POST',
      '/api/v1/attribution/analyze',
      { body: request, headers: { prefer: 'respond-async' } },
    );
    if (typeof accepted.job_id !== 'string' || typeof accepted.status_url !== 'string')
      return accepted as unknown as AnalysisResult;
    // a job reports no phase: the bar runs without a measure until the analysis is read
    onProgress?.(null);
    for (let wait = POLL_FIRST_MS; ; wait = Math.min(POLL_MAX_MS, wait * 2)) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      const job = await tp.request<Ok<AnalysisJob>>('GET', accepted.status_url);
      if (job.state === 'done') {
        const text = await tp.request<string>('GET', job.results_url, {
          responseType: 'text',
          headers: { accept: 'application/x-ndjson' },
        });
        const line = JSON.parse(text.split('\n')[0]) as AnalysisLine;
        if (line.success) return line.result;
        throw new BackendError(line.error.code, line.error.message);
      }
      if (job.state === 'failed' || job.state === 'cancelled')
        throw new BackendError(job.error?.code ?? 'INTERNAL', job.error?.message ?? `The analysis was ${job.state}.`);
    }
  }

  return {
    async ready(): Promise<BackendInfo> {
      const { datasets } = await call(() => tp.datasets.list());
      return {
        kind: 'http',
        label: `Served API at ${where} (${settings.apiKey.slice(0, 8)}…${settings.apiKey.slice(-4)})`,
        analyzeBytes: ANALYZE_BYTES,
        // the key's plan sets the API's limit, which the API does not tell: the most any plan may take is checked here,
        // and the API's 413 names the plan's own
        fileBytes: PLAN_FILE_BYTES,
        canDeclare: false,
        datasets: datasets.map(info),
      };
    },
    // a file goes to the background: its analysis may outlast any request, and its progress is polled
    analyze: (request, options) =>
      call(() =>
        request.content instanceof Uint8Array
          ? analyzeInBackground(request, options ?? {})
          : tp.analyze(request as Parameters<typeof tp.analyze>[0]),
      ),
    // the server reads every format (its readers load there)
    fileRefusal: async () => null,
    compare: (a, b) => call(() => tp.compare(a, b)),
    loadIndex: (bytes) => call(async () => info(await tp.datasets.import(bytes))),
    async declare() {
      throw new BackendError(
        'UNSUPPORTED',
        'The served API takes declarations when a dataset is created (POST /api/v1/datasets with kb_dataset), not for a loaded one. Switch to the in-browser mode to declare here.',
      );
    },
    datasets: () => call(async () => (await tp.datasets.list()).datasets.map(info)),
    kbDatasets: () => call(async () => (await tp.kb.datasets()).datasets),
    factors: () => call(async () => (await tp.kb.factors()).factors),

    // the API calls the models (its operator allows their hosts: `serve --allow-private-model-hosts` for 127.0.0.1)
    assessMemorization: (request: MemorizationRequest) =>
      refusedModelHost(async () => {
        const { work_id } = await tp.memorization.trackWork({
          work: { content: request.work, ...(request.title ? { title: request.title } : {}) },
        });
        const set = await tp.memorization.createReferenceSet({
          id: referenceSetId(),
          texts: [...request.reference_texts],
          basis: request.randomized_split ? 'randomized_split' : 'unverified',
        });
        const assessment = await tp.memorization.assess({
          work_id,
          model: request.model,
          extract: MEMORIZATION_EXTRACT,
          probe: {
            reference: { reference_set: set.id },
            chunk_tokens: request.chunk_tokens,
            min_chunks: request.min_chunks,
            ...(request.reference_model ? { reference_model: request.reference_model } : {}),
          },
        });
        const html = await tp.memorization.report({ assessment_id: assessment.assessment_id });
        return { assessment, html };
      }),

    async modelExtractions(analysisId: string) {
      // the account's extractions of the analysed text, read as they are kept: no bundle built or signed for a view
      const { extractions } = await call(() => tp.getAnalysisExtractions(analysisId));
      return Array.isArray(extractions) ? [...extractions] : [];
    },

    async sourceText(datasetId: string, documentId: string) {
      if (datasetId !== STARTER_ID) return null;
      const stats = await call(() => tp.datasets.get(datasetId)).catch(() => null);
      const version = /spdx-license-list ([0-9][0-9A-Za-z.+-]*)/.exec(stats?.name ?? '')?.[1];
      if (!stats || !version) return null;
      texts ??= fetch(textsUrl)
        .then((r) => (r.ok ? (r.json() as Promise<StarterTexts>) : null))
        .catch(() => null);
      const t = await texts;
      // offsets are only meaningful into the very texts the server indexed
      if (!t || t.source !== `npm spdx-license-list@${version}` || Object.keys(t.texts).length !== stats.documents)
        return null;
      const text = t.texts[documentId];
      return typeof text === 'string' ? text : null;
    },
  };
}
