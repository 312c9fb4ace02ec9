/**
 * A model service the server cannot reach, as the client is told it: one typed `UPSTREAM_UNREACHABLE` (502) naming
 * the URL, never the socket's own error text. `connect ECONNREFUSED 10.0.0.5:8000` against `connect EHOSTUNREACH`
 * against a timeout would tell a client which ports of an allowed host are open and which hosts exist: a port scanner
 * run by the server. The model's fetch turns every connection failure into {@link UpstreamUnreachable} (a neutral
 * message, the original kept as its cause for the server's own log), the adapter retries it as any network error,
 * and the model's calls then fail with `UPSTREAM_UNREACHABLE`.
 */
import { connectionFailed, TrainprintError, type TargetModel } from '../library.js';

/**
 * A connection to a model service that failed (refused, no route, reset, a name that does not resolve, TLS): its
 * message says only that; the socket's error is its `cause`.
 * @example throw new UpstreamUnreachable({ cause: err })
 */
export class UpstreamUnreachable extends Error {
  override readonly name = 'UpstreamUnreachable';
  constructor(options?: { cause?: unknown }) {
    super('could not connect to the model service', options);
  }
}

/**
 * `fetchFn` whose connection failures reject with {@link UpstreamUnreachable}; an abort, an answer and any other
 * error are passed on as they are.
 * @example createOpenAICompatibleModel({ baseUrl, model, fetch: unreachableAsTyped(globalThis.fetch) })
 */
export function unreachableAsTyped(fetchFn: typeof fetch): typeof fetch {
  return async (input, init) => {
    try {
      return await fetchFn(input, init);
    } catch (e) {
      if (init?.signal?.aborted || !connectionFailed(e)) throw e;
      throw new UpstreamUnreachable({ cause: e });
    }
  };
}

/** The error a call of the model rejects with: `UPSTREAM_UNREACHABLE` where the adapter's error was a connection failure. */
function typed(e: unknown): unknown {
  if (!(e instanceof TrainprintError) || e.code !== 'UPSTREAM_ERROR') return e;
  for (let x: unknown = e.cause, depth = 0; x instanceof Error && depth < 4; x = x.cause, depth++) {
    if (x instanceof UpstreamUnreachable)
      return new TrainprintError('UPSTREAM_UNREACHABLE', e.detail, { cause: e.cause });
  }
  return e;
}

/**
 * `model`, its calls failing with `UPSTREAM_UNREACHABLE` where its service could not be reached (its fetch wrapped
 * with {@link unreachableAsTyped}); everything else as it was.
 * @example const model = typedUnreachable(createOpenAICompatibleModel({ baseUrl, model: 'm', fetch: unreachableAsTyped(fetch) }))
 */
export function typedUnreachable(model: TargetModel): TargetModel {
  const { logprobs, generate, generateCall } = model;
  return {
    ...model,
    generate: (prompt, options) =>
      generate.call(model, prompt, options).catch((e: unknown) => Promise.reject(typed(e))),
    ...(logprobs
      ? { logprobs: (text: string) => logprobs.call(model, text).catch((e: unknown) => Promise.reject(typed(e))) }
      : {}),
    ...(generateCall
      ? {
          generateCall: (prompt: string, options: Parameters<typeof generate>[1]) =>
            generateCall.call(model, prompt, options).catch((e: unknown) => Promise.reject(typed(e))),
        }
      : {}),
  };
}
