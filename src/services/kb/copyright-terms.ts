/**
 * Whether a work is in the public domain in a jurisdiction, from its author's year of death, where the knowledge base
 * has a term that runs from it: life + 70 years, to the end of the calendar year, in the European Union (Directive
 * 2006/116/EC art. 1(1) and art. 8), in Iceland, Liechtenstein and Norway (the same directive, EEA Agreement Annex
 * XVII), in the United Kingdom (CDPA 1988 s.12(2)) and in Switzerland (URG art. 29(2)(b), art. 32). A work is then
 * public domain from 1 January of the 71st year after the death.
 *
 * Japan, Canada and Australia moved from life + 50 to life + 70 without reviving what had already fallen into the
 * public domain: Japan on 30 December 2018 (Copyright Act art. 51(2), art. 57, as amended by Act No. 108 of 2016), so
 * works of authors who died in 1967 or before stay public domain from the 51st year; Canada on 30 December 2022
 * (Copyright Act s. 6, as amended by the Budget Implementation Act, 2022, No. 1, S.C. 2022, c. 10): died in 1971 or
 * before; Australia on 1 January 2005 (Copyright Act 1968 s. 33(2), as amended by the US Free Trade Agreement
 * Implementation Act 2004): died in 1954 or before. Japan also adds wartime extensions to works of nationals of the
 * Allied Powers that existed before the peace treaty (Act No. 302 of 1952: 3,794 days for US and UK nationals, up to
 * 4,413 days for some countries); the knowledge base holds neither an author's nationality nor a work's date, so a
 * Japanese answer is "unknown" (in words) for the years an extension could still run.
 *
 * Everywhere else the status is "unknown": the Berne Convention (art. 7(1)) sets only a minimum of life + 50, and
 * terms differ — the United States counts most works published before 1978 from publication (17 U.S.C. §§ 303–304),
 * which the knowledge base does not hold; whether a dataset's texts are public domain in the US is its own documented
 * fact (`public_domain_in`).
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

/** A life + 70 rule: the law, and — where the term was life + 50 before — the last year of death whose works kept it. */
interface TermRule {
  readonly rule: string;
  /** Authors who died in this year or before had fallen into the public domain under life + 50 when the term grew. */
  readonly lastLife50Death?: number;
  /** Japan: the longest wartime extension in days, and the day the longer term began (Date.UTC). */
  readonly wartime?: { readonly days: number; readonly extendedOn: number };
}

const LIFE_PLUS_70 = 'life + 70 years from the end of the year of death';

/** The life + 70 rules the knowledge base holds, by country (ISO 3166-1), with the law that sets each. */
function lifePlus70(country: string): TermRule | null {
  if (country === 'EU' || EU_MEMBERS.has(country))
    return { rule: `${LIFE_PLUS_70} (Directive 2006/116/EC art. 1(1), art. 8)` };
  if (EEA_NON_EU.has(country)) return { rule: `${LIFE_PLUS_70} (Directive 2006/116/EC, EEA Agreement Annex XVII)` };
  if (country === 'GB') return { rule: `${LIFE_PLUS_70} (CDPA 1988 s.12(2))` };
  if (country === 'CH') return { rule: `${LIFE_PLUS_70} (URG art. 29(2)(b), art. 32)` };
  if (country === 'JP')
    return {
      rule:
        `${LIFE_PLUS_70} since 30 December 2018 (Copyright Act art. 51(2), art. 57; Act No. 108 of 2016), life + 50 ` +
        'for authors who died in 1967 or before (not revived); wartime extensions for works of Allied nationals ' +
        '(Act No. 302 of 1952, up to 4,413 days) not counted in the year',
      lastLife50Death: 1967,
      wartime: { days: 4413, extendedOn: Date.UTC(2018, 11, 30) },
    };
  if (country === 'CA')
    return {
      rule:
        `${LIFE_PLUS_70} since 30 December 2022 (Copyright Act s. 6; Budget Implementation Act, 2022, No. 1, ` +
        'S.C. 2022, c. 10), life + 50 for authors who died in 1971 or before (not revived)',
      lastLife50Death: 1971,
    };
  if (country === 'AU')
    return {
      rule:
        `${LIFE_PLUS_70} since 1 January 2005 (Copyright Act 1968 s. 33(2); US Free Trade Agreement Implementation ` +
        'Act 2004), life + 50 for authors who died before 1955 (not revived)',
      lastLife50Death: 1954,
    };
  return null;
}

const DAY_MS = 86_400_000;

/**
 * The first year in which a Japanese work is public domain whatever wartime extension it has: the term (life + 50 or
 * life + 70) ends on 31 December, the longest extension runs on from there, and a life + 50 term still running with
 * its extension on the day the longer term began became life + 70 with it.
 */
function certainAfterWartime(died: number, wartime: NonNullable<TermRule['wartime']>, life50: boolean): number {
  const endOf = (years: number) => Date.UTC(died + years, 11, 31) + wartime.days * DAY_MS;
  const end = life50 && endOf(50) < wartime.extendedOn ? endOf(50) : endOf(70);
  return new Date(end).getUTCFullYear() + 1;
}

/**
 * A work's public-domain status in `jurisdiction` in `year`, from its author's year of death (`died`; null when the
 * knowledge base has none).
 * @example
 * publicDomainByTerm(resolveJurisdiction('GB'), 1936, 2026) // { status: 'public_domain', public_domain_from: 2007, … }
 * publicDomainByTerm(resolveJurisdiction('CA'), 1960, 2026) // { status: 'public_domain', public_domain_from: 2011, … }
 * publicDomainByTerm(resolveJurisdiction('BR'), 1936, 2026).status // 'unknown'
 */
export function publicDomainByTerm(jurisdiction: Jurisdiction | null, died: number | null, year: number): TermAnswer {
  if (jurisdiction === null)
    return { status: 'unknown', public_domain_from: null, rule: 'no jurisdiction given: terms differ by country' };
  const country = jurisdiction.code.split('-')[0];
  const term = lifePlus70(country);
  if (term === null)
    return {
      status: 'unknown',
      public_domain_from: null,
      rule:
        country === 'US'
          ? 'unknown: US terms of works published before 1978 run from publication (17 U.S.C. §§ 303–304), which the knowledge base does not hold'
          : `unknown: the knowledge base holds no copyright term for ${country} (the Berne Convention art. 7(1) sets a minimum of life + 50 years; many countries protect longer)`,
    };
  const { rule } = term;
  if (died === null)
    return {
      status: 'unknown',
      public_domain_from: null,
      rule: `unknown: the knowledge base has no year of death for the author; the term is ${rule}`,
    };
  const life50 = term.lastLife50Death !== undefined && died <= term.lastLife50Death;
  const from = died + (life50 ? 51 : 71);
  if (year < from) return { status: 'in_copyright', public_domain_from: from, rule };
  if (term.wartime !== undefined) {
    const certain = certainAfterWartime(died, term.wartime, life50);
    if (year < certain)
      return {
        status: 'unknown',
        public_domain_from: null,
        rule:
          `unknown: public domain from ${from} by ${rule}; a wartime extension, if the work has one (its author a ` +
          `national of an Allied Power, the work older than the peace treaty), runs at most until ${certain - 1}`,
      };
  }
  return { status: 'public_domain', public_domain_from: from, rule };
}
