/**
 * A result or bundle read from a file is checked against the result's schema before a report is drawn from it: a
 * malformed one is refused naming its member (the attack report's `matches: null` and a `limitations` entry that is an
 * object crashed with a TypeError), and a real result, or one with members a later version added, passes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../../src/services/analyze/types.js';
import {
  analysisResultProblem,
  buildEvidenceBundle,
  evidenceBundleProblem,
  loadReportKey,
  type EvidenceBundle,
} from '../../src/services/report/index.js';
import { analyseWork, reportEngine } from '../fixtures/work-report.js';

let result: AnalysisResult;
let bundle: EvidenceBundle;

beforeAll(async () => {
  const engine = await reportEngine();
  result = JSON.parse(JSON.stringify(await analyseWork(engine)));
  const key = await loadReportKey(engine.store);
  bundle = JSON.parse(
    JSON.stringify(await buildEvidenceBundle({ result, text: result.extraction!.text! }, { key, variant: 'scalar' })),
  );
});

describe('analysisResultProblem', () => {
  it('passes a real result, and one with a member no schema names', () => {
    expect(result.matches.length).toBeGreaterThan(0);
    expect(analysisResultProblem(result)).toBeNull();
    expect(analysisResultProblem({ ...result, added_later: { x: 1 } })).toBeNull();
  });

  it('names the member that is wrong', () => {
    const m = result.matches[0];
    const cases: Array<[unknown, string]> = [
      [{ ...result, matches: null }, 'result.matches: is null, not an array'],
      [{ ...result, limitations: [{ code: 'x' }] }, 'result.limitations[0]: is an object, not a string'],
      [{ ...result, matches: [{ ...m, kind: 'telepathy' }] }, 'result.matches[0].kind: is "telepathy", not one of'],
      [{ ...result, matches: [{ ...m, query_start: '3' }] }, 'result.matches[0].query_start: is a string, not'],
      [{ ...result, coverage: undefined }, 'result.coverage: is missing'],
      [{ ...result, evidence: { ...result.evidence, datasets: 'all' } }, 'result.evidence.datasets: is a string'],
      [{ ...result, sections: [{ title: 1 }] }, 'result.sections[0]'],
      [null, 'result: is null, not an object'],
    ];
    for (const [value, named] of cases) expect(analysisResultProblem(value)).toContain(named);
  });

  it('stops at a depth, whatever a hostile file nests', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 10_000; i++) deep = { sections: deep };
    expect(analysisResultProblem({ ...result, extraction: deep })).toMatch(/^result\.extraction/);
  });
});

describe('evidenceBundleProblem', () => {
  it('passes a real bundle, and names what is wrong in one', () => {
    expect(evidenceBundleProblem(bundle)).toBeNull();
    const cases: Array<[unknown, string]> = [
      [{ ...bundle, result: { ...bundle.result, matches: null } }, 'bundle.result.matches: is null'],
      [{ ...bundle, transcripts: { web: null } }, 'bundle.transcripts.web: is null, not an object'],
      [
        { ...bundle, transcripts: { web: { calls: 1, sha256: 'x', entries: [7] } } },
        'bundle.transcripts.web.entries[0]',
      ],
      [{ ...bundle, signature: { ...bundle.signature, key_id: undefined } }, 'bundle.signature.key_id: is missing'],
      [{ ...bundle, engine: { name: 'trainprint', version: '1' } }, 'bundle.engine.core: is missing'],
    ];
    for (const [value, named] of cases)
      expect(evidenceBundleProblem(JSON.parse(JSON.stringify(value)))).toContain(named);
  });
});
