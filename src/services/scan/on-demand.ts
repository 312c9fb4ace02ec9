/**
 * The scan service whose code loads on its first use (./operations.ts, a file of its own in the package): `scan` and
 * `scanItem` import it on their first call; a dataset's digest needs none of it.
 */
import { loadOnce } from '../../util/load-once.js';
import type { ScanCorpus, ScanService } from './scan.js';

const operations = loadOnce(() => import('./operations.js'));

/**
 * The scan service over `corpus` (./scan.ts's `createScanService`), made when a scan first runs. `scan` is an async
 * generator either way: its first `next()` awaits the code, and options and items are checked then, as they were.
 * @example const scans = createScanService({ corpus: engine.corpus })
 */
export function createScanService(deps: { readonly corpus: ScanCorpus }): ScanService {
  const service = loadOnce(async () => (await operations()).createScanService(deps));
  return {
    async *scan(items, options) {
      return yield* (await service()).scan(items, options);
    },
    async scanItem(item, options) {
      return (await service()).scanItem(item, options);
    },
    digest: (id) => deps.corpus.datasetDigest(id),
  };
}
