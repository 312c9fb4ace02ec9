/**
 * Licence territories: ISO 3166 codes through `resolveJurisdiction` (so `uk` becomes `GB`), the
 * reserved `EU`, and `WORLDWIDE`. Containment follows the same layers the risk table uses: a
 * country covers its subdivisions, `EU` covers its member states, `WORLDWIDE` covers everything.
 */
import { TrainprintError } from '../../errors.js';
import { EU_MEMBERS, resolveJurisdiction } from '../kb/jurisdictions.js';
import { invalidField } from '../../util/schema-check.js';

/**
 * The territory token for "every country" (not an ISO code: ISO 3166 has none).
 * @example checkTerritory(['worldwide', 'US'], 'territory') // ['WORLDWIDE']
 */
export const WORLDWIDE = 'WORLDWIDE';

/**
 * A territory list, normalised: upper-case ISO codes, sorted, no repeats; `WORLDWIDE` absorbs the
 * rest. Throws INVALID_INPUT naming `where[i]` for a bad code (how many codes a list holds is its schema's, ./schema.ts).
 * @example
 * checkTerritory(['de', 'uk', 'DE'], 'territory') // ['DE', 'GB']
 */
export function checkTerritory(v: readonly unknown[], where: string): string[] {
  const codes = new Set<string>();
  v.forEach((c, i) => {
    if (typeof c === 'string' && c.trim().toUpperCase() === WORLDWIDE) {
      codes.add(WORLDWIDE);
      return;
    }
    try {
      codes.add(resolveJurisdiction(c).code);
    } catch (error) {
      invalidField(`${where}[${i}]`, error instanceof TrainprintError ? String(error.detail) : String(error));
    }
  });
  return codes.has(WORLDWIDE) ? [WORLDWIDE] : [...codes].sort();
}

/**
 * One territory code, normalised (a filter value). Throws INVALID_INPUT naming `where`.
 * @example checkTerritoryCode('uk', 'territory') // 'GB'
 */
export function checkTerritoryCode(v: unknown, where: string): string {
  return checkTerritory([v], where)[0];
}

/**
 * True when code `a` covers code `b` (both normalised).
 * @example covers('EU', 'DE-BY') // true
 */
export function covers(a: string, b: string): boolean {
  if (a === b || a === WORLDWIDE) return true;
  if (b === WORLDWIDE) return false;
  const country = b.split('-')[0];
  if (a === country) return true;
  return a === 'EU' && EU_MEMBERS.has(country);
}

/**
 * True when every code of `inner` is covered by some code of `outer`.
 * @example coversAll(['EU', 'US'], ['FR', 'US-CA']) // true
 */
export function coversAll(outer: readonly string[], inner: readonly string[]): boolean {
  return inner.every((b) => outer.some((a) => covers(a, b)));
}

/**
 * True when the two territories share any place.
 * @example overlaps(['DE'], ['EU']) // true
 * overlaps(['US-CA'], ['US-NY']) // false
 */
export function overlaps(x: readonly string[], y: readonly string[]): boolean {
  return x.some((a) => y.some((b) => covers(a, b) || covers(b, a)));
}
