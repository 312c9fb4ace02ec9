/**
 * The jobs view (`#jobs`): a JSON-lines file of items submitted as one catalogue job to the served API
 * (`POST /api/v1/jobs?type=…`, `application/x-ndjson`), a progress bar that polls the job, and the table of its
 * results, page by page in item order (`GET /api/v1/jobs/{id}/results`, following `Link`): a scan item's hits each
 * with its passage (the item's text between the hit's offsets, from the file submitted) and its spans in the item
 * and the source document. The results can be downloaded as they came (JSON lines), and a scan's hits as the hit
 * lines `trainprint scan --out` writes; an extract item's result as the strip of what the model wrote out of the work
 * (./render-extraction.ts), each block's generated text on a click; an audit item's result as the catalogue's share
 * with its interval and a table of its works (verdict, nv-recall, probes and hits, calls, miss chance) — each drawn
 * by what the result holds, and its line written by its type (`summarize`, the library's job descriptions). Jobs run on a
 * served API only: in the in-browser mode the view says so. Below, the key's earlier jobs (`GET /api/v1/jobs`) and, on
 * request, the operator's (`?owner=operator`: the command line's scan queue), which a key with the admin scope reads;
 * another key is told it lacks the scope (asked only on request: a 403 on every page load would be noise).
 */
import { byId, fill, h } from './dom.js';
import type { Mode } from './http-backend.js';
import { extractionFigure, isExtraction } from './render-extraction.js';

/** A job's status as the API answers it. */
interface JobStatus {
  readonly job_id: string;
  readonly type: string;
  readonly created: string;
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

/** A scan hit as a result carries it (the fields of `trainprint scan`'s hit lines, in their order). */
interface ScanHitLine {
  readonly id: string;
  readonly dataset_id: string;
  readonly document_id: string;
  readonly query_start: number;
  readonly query_end: number;
  readonly source_start: number;
  readonly source_end: number;
  readonly words: number;
  readonly kind: string;
}

const POLL_MS = 500;
/** Characters of a passage shown whole; a longer one shows its start and end. */
const PASSAGE_CHARS = 600;
const FINISHED = new Set(['done', 'failed', 'cancelled']);

/** The fields that name what a result is about, in the order the table looks for them (its Id column). */
const SUBJECTS = ['id', 'analysis_id', 'work_id', 'work_hash', 'model'] as const;

/** What the Id column shows of a result: the first of its {@link SUBJECTS} it has, else nothing. */
function subject(line: ResultLine): string {
  if (!line.success) return '—';
  const r = line.result ?? {};
  const key = SUBJECTS.find((k) => typeof r[k] === 'string');
  return key === undefined ? '' : String(r[key]);
}

/**
 * The job types as the library describes them (each type's line for a result, the rows a result is downloaded as),
 * loaded with the first results: the page names no type itself, and a type it does not know gets the library's
 * neutral line. The descriptions are a small file of their own (./job-descriptions.js in the built page): over a
 * served API, showing results loads no engine.
 */
let jobTypes: Promise<typeof import('../src/services/jobs/descriptions.js')> | undefined;
const describedTypes = () => {
  jobTypes ??= import('../src/services/jobs/descriptions.js');
  return jobTypes;
};

/**
 * A job as its line in a list says it: type, state, items done and failed — a job whose item failed reads
 * "audit · done · 1 of 1, 1 failed", never as if it succeeded.
 * @example jobLine({ type: 'audit', state: 'done', done: 1, total: 1, failed: 1 }) // 'audit · done · 1 of 1, 1 failed'
 */
export function jobLine(j: Pick<JobStatus, 'type' | 'state' | 'done' | 'total' | 'failed'>): string {
  return `${j.type} · ${j.state} · ${j.done} of ${j.total}${j.failed > 0 ? `, ${j.failed} failed` : ''}`;
}

/** A work of an audit's result, as the table shows it. */
interface AuditedWorkLine {
  readonly id: string;
  readonly verdict: string;
  readonly words: number;
  readonly nv_recall: number;
  readonly probes: number;
  readonly hits: number;
  readonly calls: number;
  readonly miss_probability?: number;
  /** `unanswered`: the model's first failure for it. */
  readonly error?: { readonly code: string; readonly message: string };
}

/** An audit result's works: each one's verdict, nv-recall, probes and hits, calls, and the chance of a miss. */
function auditTable(line: ResultLine): HTMLElement | null {
  const works = line.success ? line.result?.works : undefined;
  if (!Array.isArray(works) || typeof line.result?.catalogue !== 'object') return null;
  const cell = (v: unknown) => h('td', null, String(v));
  return h(
    'table',
    { class: 'results job-audit', 'aria-label': 'Works of the audit' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['Work', 'Verdict', 'nv-recall', 'Probes (hits)', 'Calls', 'Miss chance'].map((t) =>
          h('th', { scope: 'col' }, t),
        ),
      ),
    ),
    h(
      'tbody',
      null,
      (works as AuditedWorkLine[]).map((w) =>
        h(
          'tr',
          { 'data-verdict': w.verdict },
          cell(w.id),
          cell(
            w.error
              ? `${w.verdict.replace('_', ' ')} (${w.error.code}: ${w.error.message})`
              : w.verdict.replace('_', ' '),
          ),
          cell(w.verdict === 'reproduced' ? `${Math.round(w.nv_recall * 1000) / 10} %` : '—'),
          cell(`${w.probes} (${w.hits})`),
          cell(w.calls),
          cell(w.miss_probability === undefined ? '—' : w.miss_probability),
        ),
      ),
    ),
  );
}

/** The hits of a scan result (none when it has none or is not a scan's). */
function hitsOf(line: ResultLine): ScanHitLine[] {
  const hits = line.success ? line.result?.hits : undefined;
  return Array.isArray(hits) ? (hits as ScanHitLine[]) : [];
}

/** A passage of `text` for the page: whole up to PASSAGE_CHARS, else its start … its end. */
function passageText(text: string, start: number, end: number): string {
  const passage = text.slice(start, end);
  if (passage.length <= PASSAGE_CHARS) return passage;
  const half = PASSAGE_CHARS / 2;
  return `${passage.slice(0, half)} … ${passage.slice(passage.length - half)}`;
}

/** One hit: where it is in the item and in its source document, how it copies, and its passage when known. */
function hitView(hit: ScanHitLine, text: string | undefined): HTMLElement {
  const spans =
    `characters ${hit.query_start}–${hit.query_end} of the item · ${hit.document_id} (dataset ${hit.dataset_id}), ` +
    `characters ${hit.source_start}–${hit.source_end} · ${hit.words} words, ${hit.kind}`;
  return h(
    'div',
    { class: 'job-hit' },
    h('p', { class: 'job-hit-spans' }, spans),
    text === undefined
      ? null
      : h('blockquote', { class: 'doc passage' }, passageText(text, hit.query_start, hit.query_end)),
  );
}

/** The texts of a JSON-lines file's items by their index (the lines that are not blank, in order). */
function itemTexts(file: string): Array<string | undefined> {
  return file
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        const text = (JSON.parse(l) as { text?: unknown }).text;
        return typeof text === 'string' ? text : undefined;
      } catch {
        return undefined; // the server refuses the file; nothing to show
      }
    });
}

/** A link that downloads `lines` (JSON lines) as `name`, replacing the last one's object URL. */
function downloadLink(id: string, label: string, name: string, lines: readonly string[]): HTMLAnchorElement {
  const old = document.getElementById(id) as HTMLAnchorElement | null;
  if (old?.href.startsWith('blob:')) URL.revokeObjectURL(old.href);
  const blob = new Blob([lines.map((l) => `${l}\n`).join('')], { type: 'application/x-ndjson' });
  return h('a', { id, href: URL.createObjectURL(blob), download: name }, label);
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
  const submit = byId<HTMLButtonElement>('jobs-submit');
  const rows = byId('jobs-results');
  const error = byId('jobs-error');
  const downloads = byId('jobs-downloads');
  const earlier = byId('jobs-earlier');
  const operatorShow = byId<HTMLButtonElement>('jobs-operator-show');
  const operatorNote = byId('jobs-operator-note');
  const operatorList = byId('jobs-operator-list');
  if (mode.kind !== 'http') {
    // the results, the key's jobs and the operator's are the served API's: nothing of them to show here
    form.hidden = true;
    byId('jobs-served').hidden = true;
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

  /** The results so far as downloads: every line as it came, and the rows of a type that has them (a scan's hits). */
  const offerDownloads = (
    job: JobStatus,
    noun: string | undefined,
    lines: readonly string[],
    rows: readonly string[],
  ) => {
    const stem = `job-${job.job_id}`;
    fill(
      downloads,
      downloadLink('jobs-download', `Download the results (${lines.length} lines)`, `${stem}-results.jsonl`, lines),
      noun === undefined
        ? null
        : [
            ' ',
            downloadLink(
              `jobs-download-${noun}`,
              `Download the ${noun} (${rows.length})`,
              `${stem}-${noun}.jsonl`,
              rows,
            ),
          ],
    );
  };

  /** Reads the results from `next` on, appending rows, until the job is finished and the last page read. */
  const follow = async (job: JobStatus, kind: string, texts: ReadonlyArray<string | undefined>) => {
    const { BUILT_IN_JOB_DESCRIPTIONS, jobResultSummary } = await describedTypes();
    const rowsOf = BUILT_IN_JOB_DESCRIPTIONS.get(kind)?.rows;
    const received: string[] = [];
    const rowLines: string[] = [];
    let next: string | null = `${job.results_url}?limit=100`;
    while (next && current?.job_id === job.job_id) {
      const s = (await (await api('GET', job.status_url)).json()) as JobStatus;
      show(s);
      const res = await api('GET', next, { headers: { accept: 'application/x-ndjson' } });
      const lines = (await res.text()).split('\n').filter((l) => l.trim() !== '');
      for (const l of lines) {
        const line = JSON.parse(l) as ResultLine;
        const found = jobResultSummary(kind, line as Parameters<typeof jobResultSummary>[1]);
        const hits = hitsOf(line);
        rows.append(
          h(
            'tr',
            { 'data-success': String(line.success) },
            h('td', null, String(line.index)),
            h('td', null, line.success ? 'done' : 'failed'),
            h('td', null, subject(line)),
            h(
              'td',
              null,
              h('span', { class: 'job-found' }, found),
              hits.map((hit) => hitView(hit, texts[line.index])),
              line.success && isExtraction(line.result) ? extractionFigure(line.result, texts[line.index]) : null,
              auditTable(line),
            ),
          ),
        );
        received.push(l);
        if (rowsOf && line.success) for (const row of rowsOf.of(line.result)) rowLines.push(JSON.stringify(row));
      }
      if (lines.length > 0) offerDownloads(job, rowsOf?.noun, received, rowLines);
      const link = res.headers.get('link');
      next = link ? (/<([^>]+)>;\s*rel="next"/.exec(link)?.[1] ?? null) : null;
      if (next && lines.length === 0) await new Promise((r) => setTimeout(r, POLL_MS));
    }
    if (current?.job_id === job.job_id) show((await (await api('GET', job.status_url)).json()) as JobStatus);
    // the list of the key's jobs shows this one as it ended, not as it was when the list was read
    await listEarlier();
  };

  /** Reads a job of the list: its status, then its results from the first (the texts are not kept after a reload). */
  const open = (job: JobStatus) => {
    fill(error);
    rows.replaceChildren();
    fill(downloads);
    current = job;
    show(job);
    void follow(job, job.type, []).catch((err: unknown) =>
      fill(error, err instanceof Error ? err.message : String(err)),
    );
  };

  /** A list of jobs, newest first: a line each whose button opens it. */
  const listJobs = (list: HTMLElement, jobs: readonly JobStatus[]) => {
    list.replaceChildren(
      ...jobs.map((j) =>
        h(
          'li',
          { 'data-job': j.job_id },
          h('button', { type: 'button', class: 'link' }, jobLine(j)),
          ` ${j.job_id}, ${j.created}`,
        ),
      ),
    );
    const buttons = list.querySelectorAll('button');
    for (let i = 0; i < buttons.length; i++) buttons[i].addEventListener('click', () => open(jobs[i]));
  };

  /** The key's jobs (`GET /api/v1/jobs`, newest first): what a reload of the page still shows. */
  const listEarlier = async () => {
    const { jobs } = (await (await api('GET', '/api/v1/jobs?limit=20')).json()) as { jobs: JobStatus[] };
    listJobs(earlier, jobs);
  };

  /** The operator's jobs, for a key with the admin scope; another key's 403 is said, the list stays hidden. */
  const listOperator = async () => {
    const res = await fetch(`${base}/api/v1/jobs?owner=operator&limit=20`, { headers: auth });
    if (res.status === 403) {
      fill(operatorNote, "This key has no admin scope: the operator's jobs are read with a key that has it.");
      return;
    }
    if (!res.ok) throw new Error(`the operator's jobs: HTTP ${res.status}`);
    const { jobs } = (await res.json()) as { jobs: JobStatus[] };
    listJobs(operatorList, jobs);
    fill(operatorNote, jobs.length === 0 ? 'The operator has no jobs in the store.' : '');
    operatorList.hidden = false;
  };
  const failed = (err: unknown) => fill(error, err instanceof Error ? err.message : String(err));
  operatorShow.addEventListener('click', () => void listOperator().catch(failed));
  void listEarlier().catch(failed);

  // one submission at a time: a second click while the first is sent would submit (and charge) the job twice
  let submitting = false;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (submitting) return;
    const chosen = file.files?.[0];
    fill(error);
    if (!chosen) {
      fill(error, 'Choose a JSON-lines file: one item per line.');
      return;
    }
    const kind = type.value;
    submitting = true;
    submit.disabled = true;
    // the job shown before is not this one: its status, progress and cancel go with it
    current = null;
    fill(status);
    bar.hidden = true;
    cancel.hidden = true;
    void (async () => {
      try {
        rows.replaceChildren();
        fill(downloads);
        const body = await chosen.text();
        const res = await api('POST', `/api/v1/jobs?type=${encodeURIComponent(kind)}`, {
          headers: { 'content-type': 'application/x-ndjson' },
          body,
        }).finally(() => {
          submitting = false;
          submit.disabled = false;
        });
        current = (await res.json()) as JobStatus;
        show(current);
        void listEarlier().catch(() => undefined);
        await follow(current, kind, itemTexts(body));
      } catch (err) {
        submitting = false;
        submit.disabled = false;
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
