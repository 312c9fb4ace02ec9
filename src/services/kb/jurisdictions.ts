/**
 * Jurisdictions: ISO 3166 codes, EU membership, and the risk-weight table. The weights are this
 * project's heuristic, documented in docs/jurisdictions-and-revenue.md (not legal advice); the
 * factor codes stand for legal facts as of March 2026, each cited to its statute or decision in
 * the factor table (src/services/kb/factors.ts): e.g. Directive (EU) 2019/790 Art. 4 and
 * Regulation (EU) 2024/1689 Art. 53 for `EU`, 17 U.S.C. §§ 107, 504(c) and Bartz v. Anthropic
 * (N.D. Cal. 2025) for `US`, CDPA 1988 s29A and Getty Images v. Stability AI [2025] EWHC 2863 (Ch)
 * for `GB`. Used by `analyze` (risk assessment) and `score`.
 *
 * Codes: ISO 3166-1 alpha-2 (`US`, `DE`), the reserved `EU`, or ISO 3166-2 subdivisions
 * (`US-CA`, `GB-SCT`): `^[A-Z]{2}(-[A-Z0-9]{1,3})?$`. Input is case-insensitive; `UK` and `EL`
 * are accepted as aliases of `GB` and `GR` (the codes EU institutions use; ISO 3166-1 assigns
 * `GB` and `GR`). `EU-DE` is refused: ISO 3166-2 has no `EU-` subdivisions; so is a country part
 * that ISO 3166-1 does not assign (`XX-99`, `ZZ`) and a subdivision outside {@link SUBDIVISIONS} (`US-ZZ`). The
 * effective law is
 * layered: EU (for its members), then the country, then the subdivision; the most specific layer
 * with a base weight gives the base, every layer contributes its factor codes.
 */
import { TrainprintError } from '../../errors.js';
import { invalidField } from '../../util/schema-check.js';
import type { FactorCode } from './factors.js';

/** One row of the risk table. */
export interface JurisdictionFacts {
  readonly code: string;
  readonly name: string;
  /** Prior weight in [0, 1] that unlicensed commercial training is actionable there (project heuristic). */
  readonly base: number;
  readonly factors: readonly FactorCode[];
  /** Key reasons: the legal facts behind the weight (sources in the factor table). */
  readonly reasons: string;
}

/** A resolved jurisdiction. */
export interface Jurisdiction {
  /** Normalised code (`GB` for `uk`). */
  readonly code: string;
  /** Layers with facts, least specific first (e.g. `['EU', 'DE']`, `['US', 'US-CA']`). */
  readonly layers: readonly string[];
  /** Base weight of the most specific layer with facts; 0.5 when no layer has facts. */
  readonly base: number;
  /** Factor codes of every layer, in layer order, without repeats. */
  readonly factors: readonly FactorCode[];
  /** False when no layer of the code is in the table (the neutral 0.5 is used). */
  readonly known: boolean;
  /** Member of the European Union (or the EU itself). */
  readonly eu: boolean;
}

/** Neutral base weight when the jurisdiction is unknown or not given. */
export const NEUTRAL_BASE = 0.5;

const TABLE: readonly JurisdictionFacts[] = [
  {
    code: 'EU',
    name: 'European Union',
    base: 0.5,
    factors: ['tdm_exception_with_opt_out', 'training_summary_required'],
    reasons:
      'Commercial TDM allowed unless machine-readable opt-out (DSM Art. 4); AI Act copyright policy and public training summary (Art. 53).',
  },
  {
    code: 'DE',
    name: 'Germany',
    base: 0.55,
    factors: ['memorization_is_reproduction'],
    reasons: 'EU layer + GEMA v OpenAI (memorization = reproduction) + LAION line on machine-readable reservations.',
  },
  {
    code: 'GB',
    name: 'United Kingdom',
    base: 0.6,
    factors: ['no_commercial_tdm_exception', 'territorial_training_location'],
    reasons:
      'No commercial TDM exception (s29A non-commercial only); Getty v Stability: foreign training outside reach.',
  },
  {
    code: 'US',
    name: 'United States',
    base: 0.45,
    factors: ['fair_use_case_by_case', 'statutory_damages_available', 'pending_litigation'],
    reasons: 'Fair use split (Bartz/Kadrey vs Ross); piracy acquisition not fair use; NYT pending; statutory damages.',
  },
  {
    code: 'US-CA',
    name: 'California',
    base: 0.5,
    factors: ['training_data_disclosure_required'],
    reasons: 'US layer + AB 2013 training-data disclosure (in force 1 Jan 2026).',
  },
  {
    code: 'JP',
    name: 'Japan',
    base: 0.15,
    factors: ['tdm_exception_commercial', 'enjoyment_purpose_exception'],
    reasons:
      'Art. 30-4 permits non-enjoyment use incl. commercial; exceptions for imitation/RAG and analysis databases.',
  },
  {
    code: 'SG',
    name: 'Singapore',
    base: 0.15,
    factors: ['tdm_exception_commercial', 'lawful_access_required', 'contract_override_prohibited'],
    reasons: 's244 computational data analysis, lawful access, no contract override.',
  },
  {
    code: 'IL',
    name: 'Israel',
    base: 0.2,
    factors: ['fair_use_guidance_permissive'],
    reasons: 'MoJ opinion: training generally fair use (non-binding).',
  },
  {
    code: 'KR',
    name: 'Republic of Korea',
    base: 0.35,
    factors: ['fair_use_case_by_case', 'government_guidelines'],
    reasons: 'General fair use + 2026 government guidelines for AI training; TDM amendment pending.',
  },
  {
    code: 'CN',
    name: 'China',
    base: 0.5,
    factors: ['lawful_source_required', 'no_tdm_exception'],
    reasons: 'Interim Measures: lawful-source training data, respect IP; no TDM exception.',
  },
  {
    code: 'CA',
    name: 'Canada',
    base: 0.5,
    factors: ['no_tdm_exception', 'pending_litigation'],
    reasons: "No TDM exception; publishers' suit against OpenAI proceeding in Ontario.",
  },
  {
    code: 'AU',
    name: 'Australia',
    base: 0.6,
    factors: ['no_tdm_exception', 'collective_licensing_proposed'],
    reasons: 'Government ruled out a TDM exception (Oct 2025); licensing model under study.',
  },
  {
    code: 'IN',
    name: 'India',
    base: 0.55,
    factors: ['no_tdm_exception', 'pending_litigation', 'statutory_licence_proposed'],
    reasons: 'No TDM exception; ANI v OpenAI judgment reserved; DPIIT proposal for mandatory licence + royalties.',
  },
];
const FACTS = new Map(TABLE.map((j) => [j.code, j]));

/** The 27 member states of the European Union (ISO 3166-1 alpha-2). */
export const EU_MEMBERS: ReadonlySet<string> = new Set([
  'AT',
  'BE',
  'BG',
  'HR',
  'CY',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'HU',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SK',
  'SI',
  'ES',
  'SE',
]);

const CODE = /^[A-Z]{2}(-[A-Z0-9]{1,3})?$/;
const ALIASES: Readonly<Record<string, string>> = { UK: 'GB', EL: 'GR' };

/**
 * The 249 officially assigned ISO 3166-1 alpha-2 codes: a code of the right shape that is not one of
 * them (`XX`, `ZZ`, a typo) is refused rather than silently scored with the neutral weight.
 */
const ISO_3166_1: ReadonlySet<string> = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET ' +
    'FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ' +
    'ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY ' +
    'MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM ' +
    'PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
    'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ ' +
    'UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

/**
 * ISO 3166-2 subdivisions accepted, by country: those of the countries whose law the risk table layers or that users
 * name most (United States: the 50 states, DC and the outlying areas; United Kingdom: its four countries; Canada's
 * provinces and territories; Australia's states and territories; Germany's Länder; Japan's prefectures). A
 * subdivision elsewhere, or one not in the list (`US-ZZ`), is refused: the risk table holds no facts below the country
 * level there, so the country code says the same.
 */
export const SUBDIVISIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  US: new Set(
    (
      'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK ' +
      'OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC AS GU MP PR UM VI'
    ).split(' '),
  ),
  GB: new Set(['ENG', 'NIR', 'SCT', 'WLS']),
  CA: new Set('AB BC MB NB NL NS NT NU ON PE QC SK YT'.split(' ')),
  AU: new Set('ACT NSW NT QLD SA TAS VIC WA'.split(' ')),
  DE: new Set('BW BY BE BB HB HH HE MV NI NW RP SL SN ST SH TH'.split(' ')),
  JP: new Set(Array.from({ length: 47 }, (_, i) => String(i + 1).padStart(2, '0'))),
};

/** What a jurisdiction may be, for the INVALID_INPUT details. */
const ACCEPTED =
  'use an ISO 3166-1 alpha-2 country code (e.g. "US", "DE", "GB"; "UK" means GB), "EU", or an ISO 3166-2 ' +
  'subdivision of a country (e.g. "US-CA", "GB-SCT"); the risk table has facts for ' +
  TABLE.map((j) => j.code).join(', ');

/**
 * Resolve a jurisdiction code into its layers, base weight and factor codes.
 * @throws INVALID_INPUT when the code is not ISO 3166 shaped (`EU-DE` is refused: not ISO 3166-2), its
 *   country part is not an assigned ISO 3166-1 code (`XX-99`), or its subdivision is not in {@link SUBDIVISIONS}
 *   (`US-ZZ`); the detail lists what is accepted
 * @example
 * resolveJurisdiction('de')    // { code: 'DE', layers: ['EU', 'DE'], base: 0.55, eu: true, … }
 * resolveJurisdiction('US-NY') // { code: 'US-NY', layers: ['US'], base: 0.45, … }
 */
export function resolveJurisdiction(input: unknown): Jurisdiction {
  if (typeof input !== 'string')
    throw new TrainprintError(
      'INVALID_INPUT',
      'jurisdiction must be an ISO 3166 code string such as "US", "DE" or "US-CA"',
    );
  let code = input.trim().toUpperCase();
  if (!CODE.test(code)) {
    throw new TrainprintError('INVALID_INPUT', `jurisdiction "${input}" is not accepted: ${ACCEPTED}`);
  }
  const [country0, sub] = code.split('-');
  const country = ALIASES[country0] ?? country0;
  if (country === 'EU' && sub !== undefined)
    throw new TrainprintError(
      'INVALID_INPUT',
      `"${input}": EU has no ISO 3166-2 subdivisions; use the country code (e.g. "DE")`,
    );
  if (country !== 'EU' && !ISO_3166_1.has(country)) {
    const why = `"${country0}" is not an assigned ISO 3166-1 country code`;
    throw new TrainprintError('INVALID_INPUT', `jurisdiction "${input}" is not accepted: ${why}; ${ACCEPTED}`);
  }
  if (sub !== undefined && !SUBDIVISIONS[country]?.has(sub)) {
    const known = SUBDIVISIONS[country];
    const why = known
      ? `"${sub}" is not an ISO 3166-2 subdivision of ${country} (e.g. ${[...known]
          .slice(0, 4)
          .map((x) => `"${country}-${x}"`)
          .join(', ')})`
      : `subdivisions are accepted for ${Object.keys(SUBDIVISIONS).join(', ')}; for ${country} give the country code "${country}" (the risk table has no facts below it)`;
    throw new TrainprintError('INVALID_INPUT', `jurisdiction "${input}" is not accepted: ${why}`);
  }
  code = sub === undefined ? country : `${country}-${sub}`;
  const eu = country === 'EU' || EU_MEMBERS.has(country);
  const candidates = [eu && country !== 'EU' ? 'EU' : null, country, sub === undefined ? null : code].filter(
    (c): c is string => c !== null,
  );
  const layers = candidates.filter((c) => FACTS.has(c));
  const factors: FactorCode[] = [];
  for (const l of layers) for (const f of FACTS.get(l)!.factors) if (!factors.includes(f)) factors.push(f);
  const last = layers.length ? FACTS.get(layers[layers.length - 1])! : null;
  return { code, layers, base: last ? last.base : NEUTRAL_BASE, factors, known: layers.length > 0, eu };
}

/**
 * The rows of the risk table (weights: this project's heuristic, docs/jurisdictions-and-revenue.md).
 * @example
 * jurisdictionTable().find((j) => j.code === 'JP')?.base // 0.15
 */
export function jurisdictionTable(): readonly JurisdictionFacts[] {
  return TABLE;
}

/**
 * A jurisdiction the risk table resolves ({@link resolveJurisdiction}), refused as INVALID_INPUT naming `field`.
 * @example knownJurisdiction('ZZ', 'jurisdiction') // throws "jurisdiction: \"ZZ\" is not accepted: use an ISO 3166-1 …"
 */
export function knownJurisdiction(code: string | undefined, field: string): Jurisdiction | null {
  try {
    return code === undefined ? null : resolveJurisdiction(code);
  } catch (e) {
    // its sentences begin with the word the field now says
    return invalidField(field, String((e as TrainprintError).detail).replace(/^jurisdiction /, ''));
  }
}
