/**
 * The quotation marks the quotation rule reads (./quotations.ts): each opening mark and the marks that close it. A
 * table with no imports, so that the web app, which may import only the package's entries, bundles this one source
 * (build/web.mjs) instead of keeping a copy of its own.
 */

/**
 * Each opening mark and the marks that close it (`„` is closed by `“` in German, by `”` in Polish).
 * @example QUOTATION_MARKS['「'] // '」'
 */
export const QUOTATION_MARKS: Readonly<Record<string, string>> = {
  '“': '”',
  '«': '»',
  '»': '«',
  '‹': '›',
  '„': '“”',
  '‚': '‘’',
  '‘': '’',
  '「': '」',
  '『': '』',
};
