/** `trainprint index push FILE --into URL`: copy an exact dataset file into PostgreSQL. */
import { pushDatasetFile } from '../node/index.js';
import { parse, POSTGRES_TARGET_OPTIONS, postgresTarget, printStored, UsageError } from './shared.js';

/**
 * `trainprint index push FILE --into URL [--dataset ID] [--partitions N] [--replace]`: the same documents and the
 * same search results as the file; the dataset keeps the file's id unless `--dataset` names another.
 * @example process.exitCode = await indexPushCommand(['wiki.tpds', '--into', 'postgres://localhost/db'])
 */
export async function indexPushCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...POSTGRES_TARGET_OPTIONS,
    dataset: { type: 'string' },
  });
  if (positionals.length !== 1) throw new UsageError('index push needs exactly one FILE');
  const target = postgresTarget(values);
  if (!target) throw new UsageError('index push needs --into postgres://…');
  const dataset = values.dataset as string | undefined;
  const r = await pushDatasetFile({ file: positionals[0], ...target, ...(dataset === undefined ? {} : { dataset }) });
  printStored('pushed', r);
  return 0;
}
