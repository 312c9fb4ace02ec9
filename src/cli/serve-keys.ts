/**
 * The keys `trainprint serve` makes at start (a development key, and an admin key when asked) and the lines it
 * prints once it listens: shared by a single serving process and the primary of `serve --workers N`.
 */

/** The HTTP entry ('trainprint/http'), which `serve` imports when it starts. */
export type HttpModule = typeof import('../http/index.js');

/** A key made at start: the key itself (shown once), what is stored of it, and the key it replaced. */
export type MadeKey = Awaited<ReturnType<InstanceType<HttpModule['KeyStore']>['replaceKey']>>;

/**
 * The development key (one per store: it replaces the one printed before, which cannot be shown again — only its
 * hash is stored; it may add the account's own datasets but not make more keys) and, when asked, the admin key.
 * @example const { dev, admin } = await serveKeys(http, new http.KeyStore(store), false)
 */
export async function serveKeys(
  http: HttpModule,
  keys: InstanceType<HttpModule['KeyStore']>,
  withAdmin: boolean,
): Promise<{ dev: MadeKey; admin: MadeKey | null }> {
  const expires = { expiresInSeconds: 30 * 86_400 };
  const devScopes = [...http.DEFAULT_SCOPES.filter((s) => s !== 'keys'), 'datasets:write' as const];
  const dev = await keys.replaceKey('serve-dev', {
    account: 'dev',
    plan: 'pro',
    mode: 'test',
    name: 'development key of trainprint serve',
    scopes: devScopes,
    ...expires,
  });
  const admin = withAdmin
    ? await keys.replaceKey('serve-admin', {
        account: 'admin',
        plan: 'enterprise',
        scopes: ['admin'],
        name: 'admin key of trainprint serve',
        ...expires,
      })
    : null;
  return { dev, admin };
}

/**
 * What `serve` prints once it listens: the URL, the keys (shown once) and a first request to try.
 * @example printServing(server.url, `datasets: ${sets}; store: in memory`, dev, null)
 */
export function printServing(url: string, what: string, dev: MadeKey, admin: MadeKey | null): void {
  console.log(`trainprint listening on ${url}  (${what})`);
  const until = dev.info.expires_at?.slice(0, 10);
  const replaced = dev.replaced ? `; the key …${dev.replaced.last4} printed before is revoked` : '';
  console.log(`development key (shown once; account dev, test mode, plan pro, until ${until}${replaced}): ${dev.key}`);
  if (admin) {
    console.log(`admin key (shown once; scope admin, until ${admin.info.expires_at?.slice(0, 10)}): ${admin.key}`);
    console.log(`  a key for an account:  curl -s -H "Authorization: Bearer ${admin.key}" \\
        -H 'Content-Type: application/json' -d '{"account":"alice","plan":"pro"}' ${url}/api/v1/admin/keys`);
  }
  console.log(`try:  curl -s -H "Authorization: Bearer ${dev.key}" -H 'Content-Type: application/json' \\
        -d '{"content":"Permission is hereby granted, free of charge, to any person obtaining a copy of this software","content_type":"text"}' \\
        ${url}/api/v1/attribution/analyze`);
  console.log(`web app: ${url}/   OpenAPI: ${url}/api/v1/openapi.json   status: ${url}/status   (Ctrl-C stops)`);
}
