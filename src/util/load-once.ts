/**
 * A loader that runs once: the first call starts `load`, every call gives back that one promise. How the library
 * imports its on-demand files (the memorization, marketplace, verification and webhook delivery operations): once,
 * on the first call that needs them, whichever call that is.
 */

/**
 * `load` run on the first call of the function returned, its promise given back to every call.
 * @example
 * const operations = loadOnce(() => import('./operations.js'))
 * const { listListings } = await operations()
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => (loading ??= load());
}
