/**
 * How much `analyze` takes: the UTF-8 bytes of a text and the bytes of a file. A module of its own (no imports) so
 * that the fingerprint entry, which the command line's `fingerprint` runs on, names the same limits as the service
 * without carrying the analysis.
 */

/** Largest content accepted, in UTF-8 bytes (10 MiB). @example ANALYZE_MAX_BYTES // 10485760 */
export const ANALYZE_MAX_BYTES = 10 * 1024 * 1024;

/**
 * The largest file `analyze`, `registerWork` and `score` take by default (bytes): 64 MiB, the default limit of the
 * extraction (src/formats). Their `maxFileBytes` option sets another; the HTTP service passes the plan's (`fileBytes`).
 * @example await engine.analyze({ content: pdf, content_type: 'pdf' }, { maxFileBytes: 8 * 1024 * 1024 })
 */
export const ANALYZE_MAX_FILE_BYTES = 64 * 1024 * 1024;
