/**
 * Public domain by the author's year of death (src/services/kb/authors.ts, src/services/kb/copyright-terms.ts) and what
 * it does to the risk: a 1908 novel whose author died in 1936, analysed under GB, is public domain there (since 2007)
 * and its risk is never "high"; a term the knowledge base does not hold, or an author it does not know, is "unknown"
 * in words, never assumed.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/create-engine.js';
import { assessRisk } from '../../src/services/analyze/risk.js';
import { authorKey, kbAuthor, kbAuthors } from '../../src/services/kb/authors.js';
import { publicDomainByTerm } from '../../src/services/kb/copyright-terms.js';
import { resolveJurisdiction } from '../../src/services/kb/jurisdictions.js';
import { book } from '../fixtures/texts/index.js';

const j = (code: string) => resolveJurisdiction(code);

describe('authors and terms', () => {
  it('finds an author under the names the pack uses', () => {
    for (const name of [
      'G. K. Chesterton',
      'G.K. Chesterton',
      'G. K. (Gilbert Keith) Chesterton',
      'Gilbert K. Chesterton',
    ])
      expect(kbAuthor(name), name).toMatchObject({ name: 'G. K. Chesterton', died: 1936 });
    expect(kbAuthor('Émile Zola')).toBe(kbAuthor('Emile Zola'));
    expect(kbAuthor('The Brothers Grimm')?.died).toBe(1863); // the later death of joint authors
    expect(kbAuthor('Nobody In Particular')).toBeNull();
    expect(authorKey('  Alexandre Dumas, Pere ')).toBe('alexandre dumas pere');
    for (const a of kbAuthors()) {
      expect(a.source).toMatch(/^https:\/\/en\.wikipedia\.org\/wiki\//);
      expect(a.died).toBeLessThanOrEqual(2025);
    }
  });

  it('life + 70 to the end of the year in the EU, EEA, GB and CH; unknown elsewhere and without a year', () => {
    for (const code of ['GB', 'GB-SCT', 'DE', 'FR', 'EU', 'NO', 'CH']) {
      expect(publicDomainByTerm(j(code), 1936, 2026), code).toMatchObject({
        status: 'public_domain',
        public_domain_from: 2007,
      });
      // the last year of protection, and the first of the public domain
      expect(publicDomainByTerm(j(code), 1955, 2025).status, code).toBe('in_copyright');
      expect(publicDomainByTerm(j(code), 1955, 2026).status, code).toBe('public_domain');
    }
    expect(publicDomainByTerm(j('GB'), 1936, 2026).rule).toContain('CDPA 1988 s.12(2)');
    expect(publicDomainByTerm(j('DE'), 1936, 2026).rule).toContain('Directive 2006/116/EC art. 1(1)');
    for (const code of ['US', 'US-CA', 'CN', 'IN']) {
      const t = publicDomainByTerm(j(code), 1936, 2026);
      expect(t, code).toMatchObject({ status: 'unknown', public_domain_from: null });
      expect(t.rule).toMatch(/^unknown: /);
    }
    expect(publicDomainByTerm(j('GB'), null, 2026).rule).toMatch(/no year of death/);
    expect(publicDomainByTerm(j('JP'), null, 2026).rule).toMatch(/no year of death.*Act No\. 108 of 2016/);
    expect(publicDomainByTerm(null, 1936, 2026).status).toBe('unknown');
  });
});

describe('terms that grew from life + 50 to life + 70 without reviving the public domain', () => {
  const answer = (code: string, died: number, year: number) => publicDomainByTerm(j(code), died, year);

  it('Canada: life + 70 from 30 December 2022; authors who died in 1971 or before keep life + 50', () => {
    expect(answer('CA', 1960, 2026)).toMatchObject({ status: 'public_domain', public_domain_from: 2011 });
    // the last life + 50 year of death: public domain since 1 January 2022, before the longer term began
    expect(answer('CA', 1971, 2021).status).toBe('in_copyright');
    expect(answer('CA', 1971, 2022)).toMatchObject({ status: 'public_domain', public_domain_from: 2022 });
    // still protected on 30 December 2022: life + 70, public domain in 2043
    expect(answer('CA', 1972, 2026)).toMatchObject({ status: 'in_copyright', public_domain_from: 2043 });
    expect(answer('CA', 1972, 2043).status).toBe('public_domain');
    expect(answer('CA', 1960, 2026).rule).toContain('S.C. 2022, c. 10');
  });

  it('Australia: life + 70 from 1 January 2005; authors who died before 1955 keep life + 50', () => {
    expect(answer('AU', 1954, 2026)).toMatchObject({ status: 'public_domain', public_domain_from: 2005 });
    expect(answer('AU', 1954, 2004).status).toBe('in_copyright');
    expect(answer('AU', 1955, 2025)).toMatchObject({ status: 'in_copyright', public_domain_from: 2026 });
    expect(answer('AU', 1955, 2026).status).toBe('public_domain');
    expect(answer('AU', 1936, 2026).rule).toContain('Copyright Act 1968 s. 33(2)');
  });

  it('Japan: life + 70 from 30 December 2018, life + 50 for deaths to 1967; unknown while a wartime extension could run', () => {
    // long enough ago that even the longest wartime extension (4,413 days) ran out before 2018
    expect(answer('JP', 1936, 2026)).toMatchObject({ status: 'public_domain', public_domain_from: 1987 });
    expect(answer('JP', 1936, 1986).status).toBe('in_copyright');
    // life + 50 ended in 2017 (public domain from 2018), but an extension would have run into the longer term
    const late = answer('JP', 1967, 2026);
    expect(late).toMatchObject({ status: 'unknown', public_domain_from: null });
    expect(late.rule).toMatch(/^unknown: public domain from 2018 .*wartime extension.* at most until 2050/);
    // still protected on 30 December 2018 without any extension: life + 70
    expect(answer('JP', 1968, 2026)).toMatchObject({ status: 'in_copyright', public_domain_from: 2039 });
    // the extension's window closes: 31 December 2005 + 4,413 days is 30 January 2018, before the longer term began
    expect(answer('JP', 1955, 2018).status).toBe('unknown');
    expect(answer('JP', 1955, 2019)).toMatchObject({ status: 'public_domain', public_domain_from: 2006 });
    // 31 December 2006 + 4,413 days is in 2019: the extended term could have become life + 70 with it
    expect(answer('JP', 1956, 2026).status).toBe('unknown');
    expect(answer('JP', 1956, 2040).status).toBe('public_domain');
  });
});

describe('the risk', () => {
  const base = {
    anyMatch: true,
    attributionLow: 0.9,
    optOut: 'none' as const,
    pirated: false,
    workType: 'book' as const,
  };

  it('goes to 0 where the work is public domain by its term, even when the sources are documented elsewhere only', () => {
    const gb = assessRisk({ ...base, jurisdiction: j('GB'), publicDomainIn: ['US'], term: 'public_domain' });
    expect(gb).toMatchObject({ level: 'low', score: 0 });
    expect(gb.factors).toContain('public_domain_by_term');
    expect(gb.modifiers).toContainEqual({ code: 'public_domain_by_term', delta: -1 });
    // before: the same evidence under GB without the term was high
    const before = assessRisk({ ...base, jurisdiction: j('GB'), publicDomainIn: ['US'] });
    expect(before.level).toBe('high');
    expect(before.factors).toContain('public_domain_status_unknown');
  });

  it('says unknown or in copyright in words, and keeps the US rule of documented sources', () => {
    const unknown = assessRisk({ ...base, jurisdiction: j('JP'), term: 'unknown' });
    expect(unknown.factors).toContain('public_domain_status_unknown');
    const kept = assessRisk({ ...base, jurisdiction: j('DE'), term: 'in_copyright' });
    expect(kept.factors).toContain('in_copyright_by_term');
    expect(kept.factors).not.toContain('public_domain_status_unknown');
    const us = assessRisk({ ...base, jurisdiction: j('US'), publicDomainIn: ['US'], term: 'unknown' });
    expect(us).toMatchObject({ score: 0 });
    expect(us.factors).not.toContain('public_domain_status_unknown');
    // no author named, no public-domain sources: nothing said (as before)
    expect(assessRisk({ ...base, jurisdiction: j('GB') }).factors).not.toContain('public_domain_status_unknown');
  });
});

describe('analyze', () => {
  it('a 1908 novel whose author died in 1936, under GB: public domain there since 2007, never "high"', async () => {
    const engine = await createEngine({ packs: 'default' });
    const text = book('chesterton-thursday').slice(20_000, 60_000);
    const asked = (jurisdiction: string, author?: string) =>
      engine.analyze({
        content: text,
        content_type: 'text',
        metadata: { title: 'The Man Who Was Thursday', ...(author ? { author } : {}), jurisdiction, work_type: 'book' },
      });
    const gb = await asked('GB', 'G.K. Chesterton');
    expect(gb.attribution_sources.length).toBeGreaterThan(0);
    expect(gb.risk_assessment.public_domain).toMatchObject({
      status: 'public_domain',
      author: 'G. K. Chesterton',
      author_died: 1936,
      public_domain_from: 2007,
    });
    expect(gb.risk_assessment.level).toBe('low');
    expect(gb.risk_assessment.factors).toContain('public_domain_by_term');
    // without the author: unknown, said so, not silently high-as-if-protected
    const anonymous = await asked('GB');
    expect(anonymous.risk_assessment.public_domain).toBeUndefined();
    expect(anonymous.risk_assessment.factors).toContain('public_domain_status_unknown');
    // an author the knowledge base does not know: unknown, with the reason
    const stranger = await asked('GB', 'A. Stranger');
    expect(stranger.risk_assessment.public_domain).toMatchObject({
      status: 'unknown',
      author: null,
      author_died: null,
    });
    expect(stranger.risk_assessment.public_domain?.rule).toMatch(/no year of death/);
    engine.dispose();
  }, 120_000);
});
