/**
 * `trainprint keys create`: an API key in a file store (stop the server on it first) or a PostgreSQL store
 * (servers may keep running); the key is printed once, only its hash is stored.
 */
import { KeyStore, PLANS, readThrough, REQUESTS } from '../library.js';
import { openStore, options, parseSubcommand, UsageError } from './shared.js';

/**
 * `trainprint keys create --store DIR|URL --account A [--plan P] [--scopes a,b] [--mode live|test] [--name LABEL]
 * [--expires-days N]`: read as `POST /api/v1/admin/keys` reads its body (REQUESTS.adminCreateKey) before the store
 * is opened.
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
  // read as `POST /api/v1/admin/keys` reads it, with the server's plans, before the store is opened: a key no call
  // could use (an unknown plan or scope) is never made, and the refusal names the field as the library and HTTP do
  const days = values['expires-days'];
  const request = readThrough(
    REQUESTS.adminCreateKey,
    {
      account: values.account,
      plan: values.plan,
      scopes: typeof values.scopes === 'string' ? values.scopes.split(',').map((x) => x.trim()) : undefined,
      mode: values.mode,
      name: values.name,
      // a number only where the option reads as one, so that "--expires-days soon" is "must be an integer"
      expires_in_days: typeof days === 'string' && days.trim() !== '' && Number.isFinite(+days) ? +days : days,
    },
    Object.keys(PLANS),
  );
  const { expires_in_days: inDays, ...asked } = request;
  const store = await openStore(values.store);
  try {
    const { key, info } = await new KeyStore(store).createKey({
      ...asked,
      ...(inDays === undefined ? {} : { expiresInSeconds: inDays * 86_400 }),
    });
    console.log(JSON.stringify({ key, ...info }, null, 2));
    console.error('the key is shown once: only its SHA-256 is stored');
  } finally {
    await store.close();
  }
  return 0;
}
