/**
 * The jobs view (`#jobs`): a JSON-lines file of items submitted as one catalogue job to the served API
 * (`POST /api/v1/jobs?type=…`, `application/x-ndjson`), a progress bar that polls the job, and the table of its
 * results, page by page in item order (`GET /api/v1/jobs/{id}/results`, following `Link`). Jobs run on a served
 * API only: in the in-browser mode the view says so.
 */
import { byId, fill, h } from './dom.js';
import type { Mode } from './http-backend.js';

/** A job's status as the API answers it. */
interface JobStatus {
  readonly job_id: string;
  readonly state: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  readonly total: number;
  readonly done: number;
  readonly failed: number;
  readonly eta_seconds: number | null;
  readonly status_url: string;
  readonly results_url: string;
  readonly error?: { readonly code: string; readonly message: string };
}

/** One line of the results. */
interface ResultLine {
  readonly index: number;
  readonly success: boolean;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code: string; readonly message: string };
}

const POLL_MS = 500;
const FINISHED = new Set(['done', 'failed', 'cancelled']);

/** What the table shows of a result: the item's id or analysis, and what was found. */
function summary(type: string, line: ResultLine): [string, string] {
  if (!line.success) return ['—', `${line.error?.code}: ${line.error?.message}`];
  const r = line.result ?? {};
  if (type === 'scan') {
    const hits = Array.isArray(r.hits) ? r.hits.length : 0;
    return [String(r.id ?? ''), `${hits} hit${hits === 1 ? '' : 's'}`];
  }
  if (type === 'analyze') {
    const matches = Array.isArray(r.matches) ? r.matches.length : 0;
    return [
      String(r.analysis_id ?? ''),
      `${matches} match${matches === 1 ? '' : 'es'}, confidence ${r.confidence ?? '—'}`,
    ];
  }
  return [String(r.work_hash ?? ''), `score ${typeof r.score === 'number' ? r.score : '—'}`];
}

/**
 * Wires the jobs view for the page's mode.
 * @example initJobs(readMode())
 */
export function initJobs(mode: Mode): void {
  const form = byId<HTMLFormElement>('jobs-form');
  const file = byId<HTMLInputElement>('jobs-file');
  const type = byId<HTMLSelectElement>('jobs-type');
  const status = byId('jobs-status');
  const bar = byId<HTMLProgressElement>('jobs-progress');
  const cancel = byId<HTMLButtonElement>('jobs-cancel');
  const rows = byId('jobs-results');
  const error = byId('jobs-error');
  if (mode.kind !== 'http') {
    form.hidden = true;
    fill(
      status,
      'Jobs run on a served trainprint API: choose "A served trainprint API" under Mode, with an API key, to submit one.',
    );
    return;
  }
  const base = mode.baseUrl.replace(/\/+$/, '');
  const auth = { authorization: `Bearer ${mode.apiKey}` };
  let current: JobStatus | null = null;

  const api = async (method: string, path: string, init: RequestInit = {}): Promise<Response> => {
    const res = await fetch(`${base}${path}`, { ...init, method, headers: { ...auth, ...(init.headers ?? {}) } });
    if (!res.ok) {
      const body = (await res.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
      throw new Error(body?.error ? `${body.error.code}: ${body.error.message}` : `HTTP ${res.status}`);
    }
    return res;
  };

  const show = (j: JobStatus) => {
    bar.max = Math.max(1, j.total);
    bar.value = j.done;
    bar.hidden = false;
    const eta = j.eta_seconds === null ? '' : `, about ${Math.ceil(j.eta_seconds)} s left`;
    fill(status, `Job ${j.job_id}: ${j.state}, ${j.done} of ${j.total} items done (${j.failed} failed)${eta}.`);
    cancel.hidden = FINISHED.has(j.state);
    if (j.error) fill(error, `${j.error.code}: ${j.error.message}`);
  };

  /** Reads the results from `next` on, appending rows, until the job is finished and the last page read. */
  const follow = async (job: JobStatus, kind: string) => {
    let next: string | null = `${job.results_url}?limit=100`;
    while (next && current?.job_id === job.job_id) {
      const s = (await (await api('GET', job.status_url)).json()) as JobStatus;
      show(s);
      const res = await api('GET', next, { headers: { accept: 'application/x-ndjson' } });
      const lines = (await res.text()).split('\n').filter((l) => l.trim() !== '');
      for (const l of lines) {
        const line = JSON.parse(l) as ResultLine;
        const [what, found] = summary(kind, line);
        rows.append(
          h(
            'tr',
            { 'data-success': String(line.success) },
            h('td', null, String(line.index)),
            h('td', null, line.success ? 'done' : 'failed'),
            h('td', null, what),
            h('td', null, found),
          ),
        );
      }
      const link = res.headers.get('link');
      next = link ? (/<([^>]+)>;\s*rel="next"/.exec(link)?.[1] ?? null) : null;
      if (next && lines.length === 0) await new Promise((r) => setTimeout(r, POLL_MS));
    }
    if (current?.job_id === job.job_id) show((await (await api('GET', job.status_url)).json()) as JobStatus);
  };

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const chosen = file.files?.[0];
    fill(error);
    if (!chosen) {
      fill(error, 'Choose a JSON-lines file: one item per line.');
      return;
    }
    const kind = type.value;
    void (async () => {
      try {
        rows.replaceChildren();
        const res = await api('POST', `/api/v1/jobs?type=${encodeURIComponent(kind)}`, {
          headers: { 'content-type': 'application/x-ndjson' },
          body: await chosen.text(),
        });
        current = (await res.json()) as JobStatus;
        show(current);
        await follow(current, kind);
      } catch (err) {
        fill(error, err instanceof Error ? err.message : String(err));
      }
    })();
  });

  cancel.addEventListener('click', () => {
    if (!current) return;
    void api('DELETE', current.status_url).catch((err: unknown) =>
      fill(error, err instanceof Error ? err.message : String(err)),
    );
  });
}
