/**
 * The interval of an analysis's confidence (src/services/policy/search-scope.ts): a remote corpus that was asked and
 * did not answer raises its upper end to what a source named through it could have reached — the calibration's
 * highest confidence × its most certain model link — and one linked to no model adds nothing; corpora that answered
 * (even in part) add nothing; with nothing searched it stays [0, 100].
 */
import { describe, expect, it } from 'vitest';
import { highestConfidence } from '../../src/services/analyze/calibration.js';
import { corpusEvidence } from '../../src/services/policy/evidence-policy.js';
import {
  confidenceInterval,
  type SearchScope,
  type UnansweredCorpus,
  unansweredIds,
} from '../../src/services/policy/search-scope.js';

const down = (dataset_id: string, outcome = 'unreachable') => ({ dataset_id, outcome });
const pile: UnansweredCorpus = { dataset_id: 'pile', model: 'eleutherai/gpt-j-6b', link_certainty: 0.95 };
const plain: UnansweredCorpus = { dataset_id: 'plain', model: null, link_certainty: 0 };

describe('confidenceInterval', () => {
  it('a linked corpus that did not answer beside a searched dataset: [0, 100 × highest × certainty]', () => {
    const scope: SearchScope = { local: 1, remote: [down('pile')] };
    expect(confidenceInterval(null, scope, [pile], 1)).toEqual([0, 95]);
    // rounded as a source's interval is: round1(100 × round4(highest × c))
    expect(confidenceInterval(null, scope, [pile], 0.9)).toEqual([0, 85.5]);
    expect(confidenceInterval(null, scope, [pile], highestConfidence('remote', 0.5, 400))).toEqual([0, 95]);
    // a low prior lowers what full evidence can show, and the bound with it
    expect(confidenceInterval(null, scope, [pile], highestConfidence('remote', 1e-4, 400))).toEqual([0, 90.4]);
  });

  it('with a top source: [lo, max(hi, bound)]', () => {
    const scope: SearchScope = { local: 1, remote: [down('pile', 'rate_limited')] };
    expect(confidenceInterval([40, 60], scope, [pile], 1)).toEqual([40, 95]);
    expect(confidenceInterval([94, 99], scope, [pile], 1)).toEqual([94, 99]);
    // the most certain of several corpora sets it
    const declared = { dataset_id: 'mine', model: 'eleutherai/pythia-6.9b', link_certainty: 1 };
    const two: SearchScope = { local: 1, remote: [down('pile'), down('mine', 'rejected')] };
    expect(confidenceInterval([40, 60], two, [pile, declared], 1)).toEqual([40, 100]);
  });

  it('a corpus linked to no model can name no source: the interval stays [0, 0] or the source’s', () => {
    const scope: SearchScope = { local: 1, remote: [down('plain')] };
    expect(confidenceInterval(null, scope, [plain], 1)).toEqual([0, 0]);
    expect(confidenceInterval([40, 60], scope, [plain], 1)).toEqual([40, 60]);
  });

  it('corpora that answered, fully or in part, add nothing, whatever a list says of them', () => {
    for (const outcome of ['searched', 'budget_exhausted', 'deadline_reached']) {
      const scope: SearchScope = { local: 1, remote: [down('pile', outcome)] };
      expect(unansweredIds(scope)).toEqual([]);
      expect(confidenceInterval(null, scope, [pile], 1)).toEqual([0, 0]);
      expect(confidenceInterval([40, 60], scope, [pile], 1)).toEqual([40, 60]);
    }
  });

  it('nothing searched: [0, 100] without a source, as before', () => {
    expect(confidenceInterval(null, { local: 0, remote: [] }, [], 1)).toEqual([0, 100]);
    expect(confidenceInterval(null, { local: 0, remote: [down('plain')] }, [plain], 1)).toEqual([0, 100]);
    expect(confidenceInterval(null, { local: 0, remote: [down('pile')] }, [pile], 1)).toEqual([0, 100]);
  });
});

describe('the headline of no evidence beside a corpus that did not answer', () => {
  const scope: SearchScope = { local: 1, remote: [down('pile')] };
  it('says the upper end comes from the linked corpus that did not answer', () => {
    const { summary } = corpusEvidence([], false, scope, undefined, [pile]);
    expect(summary).toMatch(/^No corpus evidence: nothing a person could check/);
    expect(summary).toContain('not searched: "pile" (unreachable).');
    expect(summary).toMatch(
      /The upper end of confidence_ci_95 comes from a linked corpus that did not answer: "pile" \(eleutherai\/gpt-j-6b trained on it\)\.$/,
    );
  });
  it('says nothing of an unlinked one, nor where nothing was searched', () => {
    expect(corpusEvidence([], false, { local: 1, remote: [down('plain')] }, undefined, [plain]).summary).not.toContain(
      'upper end',
    );
    expect(corpusEvidence([], false, { local: 0, remote: [down('pile')] }, undefined, [pile]).summary).not.toContain(
      'upper end',
    );
  });
});
