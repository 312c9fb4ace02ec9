/**
 * Whether a work is in the public domain in a jurisdiction, from its author's year of death, where the knowledge base
 * has a term that runs from it: life + 70 years, to the end of the calendar year, in the European Union (Directive
 * 2006/116/EC art. 1(1) and art. 8), in Iceland, Liechtenstein and Norway (the same directive, EEA Agreement Annex
 * XVII), in the United Kingdom (CDPA 1988 s.12(2)) and in Switzerland (URG art. 29(2)(b), art. 32). A work is then
 * public domain from 1 January of the 71st year after the death. Everywhere else the status is "unknown": the Berne
 * Convention (art. 7(1)) sets only a minimum of life + 50, and terms differ — the United States counts most works
 * published before 1978 from publication (17 U.S.C. §§ 303–304), which the knowledge base does not hold; whether a
 * dataset's texts are public domain in the US is its own documented fact (`public_domain_in`).
 */
import type { Jurisdiction } from './jurisdictions.js';
import { EU_MEMBERS } from './jurisdictions.js';

/** A work's status in one jurisdiction. */
export type PublicDomainStatus = 'public_domain' | 'in_copyright' | 'unknown';

/** The status, from when, and the rule that gave it (or why there is none), in words. */
export interface TermAnswer {
  readonly status: PublicDomainStatus;
  /** The first year of the public domain (1 January), where a term rule applies; else null. */
  readonly public_domain_from: number | null;
  readonly rule: string;
}

const EEA_NON_EU = new Set(['IS', 'LI', 'NO']);

/** The life + 70 rules the knowledge base holds, by country (ISO 3166-1), with the law that sets each. */
function lifePlus70(country: string): string | null {
  if (country === 'EU' || EU_MEMBERS.has(country))
    return 'life + 70 years from the end of the year of death (Directive 2006/116/EC art. 1(1), art. 8)';
  if (EEA_NON_EU.has(country))
    return 'life + 70 years from the end of the year of death (Directive 2006/116/EC, EEA Agreement Annex XVII)';
  if (country === 'GB') return 'life + 70 years from the end of the year of death (CDPA 1988 s.12(2))';
  if (country === 'CH') return 'life + 70 years from the end of the year of death (URG art. 29(2)(b), art. 32)';
  return null;
}

/**
 * A work's public-domain status in `jurisdiction` in `year`, from its author's year of death (`died`; null when the
 * knowledge base has none).
 * @example
 * publicDomainByTerm(resolveJurisdiction('GB'), 1936, 2026) // { status: 'public_domain', public_domain_from: 2007, … }
 * publicDomainByTerm(resolveJurisdiction('JP'), 1936, 2026).status // 'unknown'
 */
export function publicDomainByTerm(jurisdiction: Jurisdiction | null, died: number | null, year: number): TermAnswer {
  if (jurisdiction === null)
    return { status: 'unknown', public_domain_from: null, rule: 'no jurisdiction given: terms differ by country' };
  const country = jurisdiction.code.split('-')[0];
  const rule = lifePlus70(country);
  if (rule === null)
    return {
      status: 'unknown',
      public_domain_from: null,
      rule:
        country === 'US'
          ? 'unknown: US terms of works published before 1978 run from publication (17 U.S.C. §§ 303–304), which the knowledge base does not hold'
          : `unknown: the knowledge base holds no copyright term for ${country} (the Berne Convention art. 7(1) sets a minimum of life + 50 years; many countries protect longer)`,
    };
  if (died === null)
    return {
      status: 'unknown',
      public_domain_from: null,
      rule: `unknown: the knowledge base has no year of death for the author; the term is ${rule}`,
    };
  const from = died + 71;
  return { status: year >= from ? 'public_domain' : 'in_copyright', public_domain_from: from, rule };
}
