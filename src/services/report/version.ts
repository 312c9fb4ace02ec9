/**
 * The package version the work report and the evidence bundle name. The library is bundled for every runtime
 * (no package.json is read at run time), so the version is a constant here; test/unit/report-bundle.test.ts
 * checks it against package.json, so a release that bumps one and not the other fails.
 */

/**
 * The version of the trainprint package (package.json `version`).
 * @example TRAINPRINT_VERSION // '0.1.0'
 */
export const TRAINPRINT_VERSION = '0.1.0';
