/**
 * `trainprint keys create`: an API key in a file store (stop the server on it first) or a PostgreSQL store
 * (servers may keep running); the key is printed once, only its hash is stored.
 */
import { openStore, options, parseSubcommand, UsageError } from './shared.js';

/**
 * `trainprint keys create --store DIR|URL --account A [--plan P] [--scopes a,b] [--mode live|test] [--name LABEL]
 * [--expires-days N]`: the plan and scopes are checked before the store is opened.
 * @example process.exitCode = await keysCommand(['create', '--store', './data', '--account', 'alice'])
 */
export async function keysCommand(args: string[]): Promise<number> {
  const values = parseSubcommand(
    args,
    'keys',
    'create',
    options(['store', 'account', 'plan', 'scopes', 'mode', 'name', 'expires-days']),
  );
  if (typeof values.store !== 'string') {
    throw new UsageError('keys create needs --store DIR|URL (the store the service runs on)');
  }
  if (typeof values.account !== 'string') throw new UsageError('keys create needs --account A');
  const days = values['expires-days'] === undefined ? undefined : Number(values['expires-days']);
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 3660)) {
    throw new UsageError('--expires-days must be an integer in 1..3660');
  }
  const { KeyStore, PLANS, SCOPES } = await import('../http/index.js');
  // checked before the store is opened: a key no call could use (an unknown plan or scope) is never made
  if (typeof values.plan === 'string' && !Object.keys(PLANS).includes(values.plan)) {
    const plans = Object.keys(PLANS).join(', ');
    throw new UsageError(`--plan ${JSON.stringify(values.plan)} is not a plan; the plans are ${plans}`);
  }
  const scopes =
    typeof values.scopes === 'string'
      ? values.scopes
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean)
      : undefined;
  const unknown = (scopes ?? []).filter((x) => !(SCOPES as readonly string[]).includes(x));
  if (unknown.length) {
    const what = unknown.length === 1 ? 'is not a scope' : 'are not scopes';
    throw new UsageError(`--scopes: ${unknown.join(', ')} ${what}; the scopes are ${SCOPES.join(', ')}`);
  }
  const store = await openStore(values.store);
  try {
    const { key, info } = await new KeyStore(store).createKey({
      account: values.account,
      ...(values.plan === undefined ? {} : { plan: values.plan as string }),
      ...(scopes ? { scopes } : {}),
      ...(values.mode === undefined ? {} : { mode: values.mode as 'live' | 'test' }),
      ...(values.name === undefined ? {} : { name: values.name as string }),
      ...(days === undefined ? {} : { expiresInSeconds: days * 86_400 }),
    });
    console.log(JSON.stringify({ key, ...info }, null, 2));
    console.error('the key is shown once: only its SHA-256 is stored');
  } finally {
    await store.close();
  }
  return 0;
}
