/** `trainprint index info FILE|URL`: a dataset file's header, descriptor and stats, or a PostgreSQL dataset's stats. */
import { isPostgresUrl, openPostgresDataset, readDatasetInfo } from '../node/index.js';
import { parse, UsageError } from './shared.js';

/**
 * `trainprint index info FILE|URL`: validates a dataset file and prints what it holds as JSON; for
 * `postgres://…?dataset=ID`, the tables and stats of the dataset kept there.
 * @example process.exitCode = await indexInfoCommand(['wiki.tpds'])
 */
export async function indexInfoCommand(args: string[]): Promise<number> {
  const { positionals } = parse(args, {});
  if (positionals.length !== 1) throw new UsageError('index info needs exactly one FILE or URL');
  if (isPostgresUrl(positionals[0])) {
    const ds = await openPostgresDataset({ url: positionals[0] });
    try {
      const info = await ds.info();
      console.log(JSON.stringify({ into: ds.label, tables: ds.tables, partitions: ds.partitions, ...info }, null, 2));
    } finally {
      await ds.close();
    }
    return 0;
  }
  const info = await readDatasetInfo(positionals[0]);
  console.log(JSON.stringify(info, null, 2));
  return 0;
}
