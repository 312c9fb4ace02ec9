/** The V8 tiering of one-shot commands (src/cli/tiering.ts): set for them, left alone for servers and when given. */
import { afterEach, describe, expect, it } from 'vitest';
import { oneShotTieringFlags, tuneTiering } from '../../src/cli/tiering.js';

describe('oneShotTieringFlags', () => {
  it('raises the interrupt budget where V8 counts bytecode (before 11.8: Node 20)', () => {
    expect(oneShotTieringFlags('11.3.244.8-node.38')).toEqual(['--interrupt-budget=1000000']);
    expect(oneShotTieringFlags('10.2.154.26-node.26')).toEqual(['--interrupt-budget=1000000']);
  });

  it('raises the invocation counts where V8 counts invocations (11.8 on: Node 21 to 24), never the budget it lacks', () => {
    for (const v of ['11.8.172.17-node.20', '12.4.254.21-node.33', '12.9.202.28-node.14', '13.6.233.17-node.63']) {
      const flags = oneShotTieringFlags(v);
      expect(flags).toEqual(['--invocation-count-for-turbofan=45000', '--invocation-count-for-maglev=6000']);
      expect(flags.some((f) => f.includes('interrupt-budget'))).toBe(false);
    }
  });

  it('sets nothing for a version it cannot read', () => {
    expect(oneShotTieringFlags('')).toEqual([]);
    expect(oneShotTieringFlags('unknown')).toEqual([]);
  });
});

describe('tuneTiering', () => {
  const saved = process.env.NODE_OPTIONS;
  afterEach(() => {
    if (saved === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = saved;
  });

  it('leaves the long-running commands with V8 defaults', () => {
    expect(tuneTiering('serve')).toBe(false);
    expect(tuneTiering('worker')).toBe(false);
  });

  it('leaves a tiering the process was given, in either V8 vocabulary', () => {
    for (const given of [
      '--interrupt-budget=200000',
      '--invocation-count-for-turbofan=9000',
      '--invocation-count-for-maglev=10',
    ]) {
      process.env.NODE_OPTIONS = `--max-old-space-size=4096 ${given}`;
      expect(tuneTiering('scan')).toBe(false);
    }
  });

  it('sets nothing where the V8 version cannot be read', () => {
    delete process.env.NODE_OPTIONS;
    expect(tuneTiering('scan', 'unknown')).toBe(false);
  });

  it('sets the flags for a one-shot command', () => {
    delete process.env.NODE_OPTIONS;
    const given = process.execArgv.some((a) => /interrupt-budget|invocation-count-for-(turbofan|maglev)/.test(a));
    expect(tuneTiering('scan')).toBe(!given);
  });
});

describe("the benches' copy of the rule (bench/one-shot-flags.mjs)", () => {
  it('gives the flags the CLI sets, for every V8 it was checked on', async () => {
    // @ts-expect-error: a bench script, plain JavaScript without types
    const { oneShotFlags } = await import('../../bench/one-shot-flags.mjs');
    for (const v of ['10.2.154.26-node.26', '11.3.244.8-node.38', '11.8.172.17-node.20', '13.6.233.17-node.63', 'x'])
      expect(oneShotFlags(v)).toEqual(oneShotTieringFlags(v));
  });
});
