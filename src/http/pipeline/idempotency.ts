/**
 * `Idempotency-Key` on the routes that create something: the first request with a key runs and its 2xx answer is
 * kept (24 h, per account); a retry with the same key and request gets that answer again
 * (`Idempotency-Replayed: true`); the same key on another request, or while the first still runs, is 409.
 */
import { requestHash, type Idempotency, type Principal } from '../../library.js';
import type { Exchange } from './exchange.js';
import type { RouteMatch } from './match.js';

/**
 * Step: `run` the route once per key — or at every call without one (and on the routes that create nothing) — and
 * finish its answer. The claim on the key is given back once the answer is made, kept or not.
 * @throws INVALID_INPUT for a malformed key, CONFLICT for a key of another request or still running
 * @example return await runOnce(x, found, principal, raw, idempotency, () => runRoute(found.route, ctx))
 */
export async function runOnce(
  x: Exchange,
  found: RouteMatch,
  principal: Principal | null,
  raw: Uint8Array,
  idempotency: Idempotency,
  run: () => Promise<Response>,
): Promise<Response> {
  const { request } = x;
  const key = found.route.creates && principal ? request.headers.get('idempotency-key') : null;
  if (key === null) return x.finish(await run());
  const slot = await idempotency.begin(
    principal!.account,
    key,
    await requestHash(request.method, found.path, found.url.search, raw),
  );
  try {
    if (slot.replay) {
      return x.finish(
        new Response(slot.replay.body, {
          status: slot.replay.status,
          headers: {
            'content-type': slot.replay.content_type,
            'cache-control': 'no-store',
            'idempotency-replayed': 'true',
          },
        }),
      );
    }
    const res = await run();
    if (res.status >= 200 && res.status < 300) {
      const text = await res.text();
      await slot.finish({
        status: res.status,
        body: text,
        content_type: res.headers.get('content-type') ?? 'application/json; charset=utf-8',
      });
      return x.finish(new Response(text, { status: res.status, headers: res.headers }));
    }
    return x.finish(res);
  } finally {
    await slot.release();
  }
}
