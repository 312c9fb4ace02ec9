import { afterEach, describe, expect, it } from 'vitest';
import { anySignal } from '../../src/util/signals.js';

const platformAny = (AbortSignal as { any?: unknown }).any;

describe('anySignal', () => {
  afterEach(() => {
    (AbortSignal as { any?: unknown }).any = platformAny;
  });
  for (const runtime of ['with AbortSignal.any', 'without it (Node 20.0–20.2)']) {
    it(`aborts with the first signal's reason, ${runtime}`, () => {
      if (runtime.startsWith('without')) (AbortSignal as { any?: unknown }).any = undefined;
      const [a, b] = [new AbortController(), new AbortController()];
      const signal = anySignal([a.signal, b.signal]);
      expect(signal.aborted).toBe(false);
      b.abort('lost');
      a.abort('stopped');
      expect(signal.aborted).toBe(true);
      expect(signal.reason).toBe('lost');
      // already aborted: at once, with its reason
      expect(anySignal([new AbortController().signal, AbortSignal.abort('finished')]).reason).toBe('finished');
    });
  }
});
