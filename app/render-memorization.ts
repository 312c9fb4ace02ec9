/**
 * An assessment as DOM: the evidence tier and risk level, the assessment's own summary sentences, and its
 * self-contained HTML report in a sandboxed frame (no scripts run in it; the report has none) with a link to
 * save it.
 */
import type { MemorizationOutcome } from './backend.js';
import { fill, h } from './dom.js';

const TIER_MEANING: Record<string, string> = {
  confirmed: 'the model reproduced the work verbatim, or its canaries were detected',
  strong: 'a significant probe against a matched reference',
  moderate: 'a significant probe against a reference that may differ in kind from the work',
  inconclusive: 'no evidence either way: absence of memorization does not show absence of training',
};

/** Previous report links to release when the next result replaces them. */
let reportUrl: string | null = null;

export function renderMemorization(root: HTMLElement, outcome: MemorizationOutcome): void {
  const a = outcome.assessment;
  if (reportUrl) URL.revokeObjectURL(reportUrl);
  reportUrl = URL.createObjectURL(new Blob([outcome.html], { type: 'text/html' }));
  fill(
    root,
    h(
      'div',
      { class: 'card', id: 'memorization-verdict' },
      h(
        'p',
        null,
        'Evidence tier: ',
        h('span', { class: `badge tier-${a.evidence_tier}`, id: 'memorization-tier' }, a.evidence_tier),
        ` — ${TIER_MEANING[a.evidence_tier] ?? ''}. Risk level: `,
        h('strong', { id: 'memorization-level' }, a.level),
        '.',
      ),
      h('ul', { id: 'memorization-summary' }, ...a.summary.map((line) => h('li', null, line))),
      h(
        'p',
        null,
        h('a', { href: reportUrl, download: `memorization-${a.assessment_id}.html` }, 'Save the report'),
        ` · assessment ${a.assessment_id}`,
      ),
    ),
    h('iframe', {
      id: 'memorization-report',
      class: 'report',
      title: 'Memorization report',
      sandbox: '',
      srcdoc: outcome.html,
    }),
  );
  root.hidden = false;
}
