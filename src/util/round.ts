/**
 * Rounding of the figures a result reports, one definition for every service: scores and shares to 4 decimals,
 * chances to 6, confidences to 1, the knowledge base's certainties to 3. Results are compared byte for byte across
 * runtimes and stored analyses, so every path must round alike.
 */

/** @example round1(74.46) // 74.5 */
export const round1 = (x: number): number => Math.round(x * 10) / 10;
/** @example round3(0.95 * 0.9) // 0.855 */
export const round3 = (x: number): number => Math.round(x * 1000) / 1000;
/** @example round4(2 / 3) // 0.6667 */
export const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;
/** @example round6(1 / 3) // 0.333333 */
export const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;
