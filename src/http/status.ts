/**
 * The status page: what this handler has observed since it was created, and nothing else. Each
 * status request runs a health check (a tiny fingerprint on the engine and a read of the store)
 * and records it; the handler records every 5xx response. Incidents are derived from those
 * records: failed checks and 5xx responses closer than {@link INCIDENT_GAP_MS} apart form one
 * incident, resolved by the first successful check after its last event (until then
 * `resolved_at` is null — the page never assumes a recovery it has not seen).
 *
 * Records live in memory (bounded rings), so the page covers this process since its start. The measured
 * availability (./availability.ts) is the exception: it is read from the heartbeats every instance writes to the
 * store, so it covers every process on the store, over 24 hours and 30 days.
 */
import {
  isTrainprintError,
  PUBLIC_ENDPOINTS,
  readAvailability,
  unmeasuredAvailability,
  type AvailabilityReport,
  type Engine,
  type Plan,
  type RemoteHealth,
} from '../library.js';

/** Failures closer than this belong to one incident. */
export const INCIDENT_GAP_MS = 10 * 60 * 1000;
/** A 5xx this recent marks the API component `degraded`. */
export const RECENT_ERROR_MS = 5 * 60 * 1000;
/** Longest a health check may take before it counts as failed. */
export const CHECK_TIMEOUT_MS = 5000;
const MAX_CHECKS = 1000;
const MAX_ERRORS = 10_000;

interface CheckRecord {
  at: number;
  ok: boolean;
  ms: number;
  error: string | null;
  engine: boolean;
  store: boolean;
}
interface ErrorRecord {
  at: number;
  status: number;
  code: string;
  operation: string;
}
type ComponentStatus = 'operational' | 'degraded' | 'major_outage';

/**
 * Health checks, 5xx records and the report built from them.
 *
 * @example
 * const status = new StatusMonitor(engine, Date.now)
 * status.recordServerError(500, 'INTERNAL', 'analyze')
 * const report = await status.report() // { status, components, incidents, … }
 */
export class StatusMonitor {
  private readonly started: number;
  private readonly checks: CheckRecord[] = [];
  private readonly errors: ErrorRecord[] = [];
  private checksTotal = 0;
  private checksFailed = 0;
  private requests = 0;
  private serverErrors = 0;

  /** `plans`: whose availability targets the report shows beside the measured availability. */
  constructor(
    private readonly engine: Engine,
    private readonly now: () => number,
    private readonly plans: Readonly<Record<string, Plan>> = {},
  ) {
    this.started = now();
  }

  /** Count a request (for the totals on the page). */
  recordRequest(): void {
    this.requests++;
  }

  /** Record a 5xx response. */
  recordServerError(status: number, code: string, operation: string): void {
    this.serverErrors++;
    push(this.errors, { at: this.now(), status, code, operation }, MAX_ERRORS);
  }

  /** Run a health check now and record it. */
  async check(): Promise<CheckRecord> {
    const at = this.now();
    const t0 = performanceNow();
    let engineOk = false,
      storeOk = false,
      error: string | null = null;
    try {
      await withTimeout(
        (async () => {
          const fp = await this.engine.fingerprint('trainprint health check', {
            minhash: false,
            simhash: false,
            winnow: false,
            workHash: false,
          });
          engineOk = fp.token_count === 3;
          if (!engineOk) error = 'engine: unexpected fingerprint';
          await this.engine.store.get('http/health');
          storeOk = true;
        })(),
        CHECK_TIMEOUT_MS,
      );
    } catch (e) {
      // a code, never a message: the page is public
      error = `${engineOk ? 'store' : 'engine'}: ${isTrainprintError(e) ? e.code : e instanceof TimeoutError ? 'TIMEOUT' : 'ERROR'}`;
    }
    const rec: CheckRecord = {
      at,
      ok: engineOk && storeOk,
      ms: Math.round((performanceNow() - t0) * 100) / 100,
      error,
      engine: engineOk,
      store: storeOk,
    };
    this.checksTotal++;
    if (!rec.ok) this.checksFailed++;
    push(this.checks, rec, MAX_CHECKS);
    return rec;
  }

  /** Check, then report (the `GET /api/v1/status` body without `success`). */
  async report(): Promise<StatusReport> {
    const last = await this.check();
    const now = this.now();
    const availability = await this.availability(now);
    const recentErrors = this.errors.filter((e) => now - e.at <= RECENT_ERROR_MS).length;
    const components: StatusReport['components'] = [
      {
        name: 'api',
        status: recentErrors > 0 ? 'degraded' : 'operational',
        detail:
          recentErrors > 0
            ? `${recentErrors} server error(s) in the last 5 minutes`
            : 'no server errors in the last 5 minutes',
      },
      {
        name: 'engine',
        status: last.engine ? 'operational' : 'major_outage',
        detail: last.engine ? `fingerprint check ${last.ms} ms` : (last.error ?? 'check failed'),
      },
      {
        name: 'store',
        status: last.store ? 'operational' : 'major_outage',
        detail: last.store ? 'read check passed' : 'read check failed or not reached',
      },
    ];
    const rank: Record<ComponentStatus, number> = { operational: 0, degraded: 1, major_outage: 2 };
    const status = components.reduce<ComponentStatus>(
      (w, c) => (rank[c.status] > rank[w] ? c.status : w),
      'operational',
    );
    return {
      status,
      started_at: new Date(this.started).toISOString(),
      uptime_seconds: Math.max(0, Math.floor((now - this.started) / 1000)),
      components,
      checks: {
        total: this.checksTotal,
        failed: this.checksFailed,
        last: { at: new Date(last.at).toISOString(), ok: last.ok, ms: last.ms, error: last.error },
      },
      requests: { total: this.requests, server_errors: this.serverErrors },
      incidents: this.incidents(),
      availability,
      remote_corpora: this.engine.corpus.remoteDatasets().map((r) => publicHealth(r.health())),
    };
  }

  /** The measured availability; when the store cannot be read in time, unmeasured with the reason (a code). */
  private async availability(now: number): Promise<AvailabilityReport> {
    try {
      return await withTimeout(readAvailability(this.engine.store, { now, plans: this.plans }), CHECK_TIMEOUT_MS);
    } catch (e) {
      const code = isTrainprintError(e) ? e.code : e instanceof TimeoutError ? 'TIMEOUT' : 'ERROR';
      return unmeasuredAvailability(`store: ${code}`, this.plans);
    }
  }

  /** Failed checks and 5xx responses grouped by time, newest incident first. */
  private incidents(): StatusReport['incidents'] {
    const events = [
      ...this.checks
        .filter((c) => !c.ok)
        .map((c) => ({ at: c.at, check: true, status: 0, code: c.error ?? 'check failed', operation: 'health_check' })),
      ...this.errors.map((e) => ({ at: e.at, check: false, status: e.status, code: e.code, operation: e.operation })),
    ].sort((a, b) => a.at - b.at);
    const out: StatusReport['incidents'] = [];
    let group: typeof events = [];
    const flush = () => {
      if (group.length === 0) return;
      const first = group[0].at,
        lastAt = group[group.length - 1].at;
      const recovered = this.checks.find((c) => c.ok && c.at > lastAt);
      out.push({
        id: `inc_${first}`,
        started_at: new Date(first).toISOString(),
        last_event_at: new Date(lastAt).toISOString(),
        resolved_at: recovered ? new Date(recovered.at).toISOString() : null,
        failed_checks: group.filter((e) => e.check).length,
        server_errors: group.filter((e) => !e.check).length,
        statuses: [...new Set(group.filter((e) => !e.check).map((e) => e.status))].sort((a, b) => a - b),
        codes: [...new Set(group.map((e) => e.code))].sort(),
        operations: [...new Set(group.map((e) => e.operation))].sort(),
      });
      group = [];
    };
    for (const e of events) {
      if (group.length && e.at - group[group.length - 1].at > INCIDENT_GAP_MS) flush();
      group.push(e);
    }
    flush();
    return out.reverse();
  }
}

/**
 * The status report (`GET /api/v1/status` without `success`).
 * @example
 * const r: StatusReport = await (await fetch(`${url}/api/v1/status`)).json()
 * r.incidents.filter((i) => i.resolved_at === null)
 */
export interface StatusReport {
  status: ComponentStatus;
  started_at: string;
  uptime_seconds: number;
  components: Array<{ name: string; status: ComponentStatus; detail: string }>;
  checks: { total: number; failed: number; last: { at: string; ok: boolean; ms: number; error: string | null } };
  requests: { total: number; server_errors: number };
  incidents: Array<{
    id: string;
    started_at: string;
    last_event_at: string;
    resolved_at: string | null;
    failed_checks: number;
    server_errors: number;
    statuses: number[];
    codes: string[];
    operations: string[];
  }>;
  /** Measured from the heartbeats of every instance on the store (not from this process's records). */
  availability: AvailabilityReport;
  /**
   * The remote training corpora analyses search, as this process's calls found them. Not in `status`: a corpus
   * that is down leaves its part of the evidence missing (a limitation code in each result), not the service.
   */
  remote_corpora: RemoteHealth[];
}

/**
 * A remote corpus's health for the public page: a self-hosted engine's URL may name an internal host, so only the
 * public services are named.
 */
function publicHealth(h: RemoteHealth): RemoteHealth {
  const known = Object.values(PUBLIC_ENDPOINTS).includes(h.endpoint);
  return { ...h, endpoint: known ? h.endpoint : 'self-hosted' };
}

/**
 * The report as a small self-contained HTML page (every value escaped; no scripts).
 * @example
 * new Response(statusHtml(await status.report()), { headers: { 'content-type': 'text/html; charset=utf-8' } })
 */
export function statusHtml(r: StatusReport): string {
  const label: Record<ComponentStatus, string> = {
    operational: 'Operational',
    degraded: 'Degraded',
    major_outage: 'Major outage',
  };
  const rows = r.components
    .map(
      (c) =>
        `<tr><td>${esc(c.name)}</td><td class="${esc(c.status)}">${esc(label[c.status])}</td><td>${esc(c.detail)}</td></tr>`,
    )
    .join('');
  const incidents =
    r.incidents.length === 0
      ? '<p>No incidents recorded since start.</p>'
      : `<ul>${r.incidents.map((i) => `<li><strong>${esc(i.started_at)}</strong> – ${esc(i.resolved_at ? `resolved ${i.resolved_at}` : `last event ${i.last_event_at}, not yet resolved`)}: ${i.server_errors} server error(s)${i.statuses.length ? ` (${esc(i.statuses.join(', '))})` : ''}, ${i.failed_checks} failed health check(s); codes ${esc(i.codes.join(', '))}; operations ${esc(i.operations.join(', '))}</li>`).join('')}</ul>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>trainprint status: ${esc(label[r.status])}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left}.operational{color:#106b21}.degraded{color:#8a5a00}.major_outage{color:#b00020}</style>
</head><body>
<h1>trainprint status: <span class="${esc(r.status)}">${esc(label[r.status])}</span></h1>
<p>Up since ${esc(r.started_at)} (${esc(formatUptime(r.uptime_seconds))}). Health checks: ${r.checks.total} run, ${r.checks.failed} failed; last ${esc(r.checks.last.at)} (${r.checks.last.ok ? 'passed' : 'failed'}, ${r.checks.last.ms} ms). Requests: ${r.requests.total}, server errors: ${r.requests.server_errors}.</p>
<table><thead><tr><th>Component</th><th>Status</th><th>Detail</th></tr></thead><tbody>${rows}</tbody></table>
<h2>Availability</h2>
${availabilityHtml(r.availability)}
${remoteHtml(r.remote_corpora)}<h2>Incidents</h2>
${incidents}
<p><small>Status and incidents are derived only from health checks and 5xx responses recorded by this process since
it started; availability from the heartbeats of every instance. JSON: <a href="api/v1/status">api/v1/status</a>.
</small></p>
</body></html>
`;
}

/** The remote corpora section (none without remote corpora). */
function remoteHtml(list: readonly RemoteHealth[]): string {
  if (list.length === 0) return '';
  const label = {
    ok: 'Answering',
    degraded: 'Some calls fail',
    down: 'Not answering',
    unknown: 'Not called yet',
  } as const;
  const cls = { ok: 'operational', degraded: 'degraded', down: 'major_outage', unknown: '' } as const;
  const rows = list
    .map(
      (h) =>
        `<tr><td>${esc(h.dataset_id)} (${esc(h.engine)} ${esc(h.index)}, ${esc(h.endpoint)})</td>` +
        `<td class="${cls[h.state]}">${esc(label[h.state])}</td><td>${h.calls} calls, ${h.failures} failed` +
        `${h.p50_ms === null ? '' : `; median ${h.p50_ms} ms`}${h.last_failure ? `; last failure ${esc(h.last_failure)} at ${esc(h.last_failure_at ?? '')}` : ''}</td></tr>`,
    )
    .join('');
  return (
    `<h2>Remote corpora</h2>\n<table><thead><tr><th>Corpus</th><th>Status</th><th>Calls since start</th></tr></thead><tbody>${rows}</tbody></table>\n` +
    '<p><small>Analyses send text to these engines. A corpus that does not answer leaves its part of the evidence ' +
    'missing, named in each result, and does not change the service status.</small></p>\n'
  );
}

/** The availability section: both windows, the plans' targets, the instances, and what is measured. */
function availabilityHtml(a: AvailabilityReport): string {
  const pct = (p: number | null) => (p === null ? 'not measured yet' : `${p} %`);
  const met = (m: boolean | null) => (m === null ? '–' : m ? 'met' : 'missed');
  const windows = (
    [
      ['Last 24 hours', a.last_24h],
      ['Last 30 days', a.last_30d],
    ] as const
  )
    .map(
      ([name, w]) =>
        `<tr><td>${name}</td><td>${esc(pct(w.percent))}</td><td>${w.minutes_up} of ${w.minutes} minutes up` +
        `${w.since ? ` since ${esc(w.since)}` : ''}</td></tr>`,
    )
    .join('');
  const targets = a.targets
    .map(
      (t) =>
        `<tr><td>Plan ${esc(t.plan)}</td><td>target ${esc(String(t.percent))} %</td>` +
        `<td>24 hours: ${met(t.met_24h)}; 30 days: ${met(t.met_30d)}</td></tr>`,
    )
    .join('');
  const live = a.instances.filter((i) => i.live).length;
  const instances =
    a.instances.length === 0
      ? 'No instance has written a heartbeat in the last 24 hours.'
      : `${live} instance(s) heartbeating now; seen in the last 24 hours: ${a.instances
          .map((i) => `${esc(i.instance_id)} (up since ${esc(i.started_at)}, last seen ${esc(i.last_seen)})`)
          .join(', ')}.`;
  return (
    `${a.error ? `<p class="major_outage">Heartbeats could not be read (${esc(a.error)}).</p>\n` : ''}` +
    `<table><tbody>${windows}${targets}</tbody></table>\n<p>${instances}</p>\n` +
    `<p><small>${esc(a.measures)}</small></p>`
  );
}

/**
 * HTML-escape text for element content and quoted attributes.
 * @example esc('<a href="x">') // '&lt;a href=&quot;x&quot;&gt;'
 */
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function formatUptime(s: number): string {
  const d = Math.floor(s / 86400),
    h = Math.floor((s % 86400) / 3600),
    m = Math.floor((s % 3600) / 60);
  return d > 0 ? `${d} d ${h} h` : h > 0 ? `${h} h ${m} min` : `${m} min ${s % 60} s`;
}

function push<T>(ring: T[], item: T, max: number): void {
  ring.push(item);
  if (ring.length > max) ring.splice(0, ring.length - max);
}

class TimeoutError extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError()), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

function performanceNow(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
