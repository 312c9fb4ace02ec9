/** The V8 tiering of one-shot commands (src/cli/tiering.ts): set for them, left alone for servers and when given. */
import { afterEach, describe, expect, it } from 'vitest';
import { tuneTiering } from '../../src/cli/tiering.js';

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

  it('leaves a budget the process was given', () => {
    process.env.NODE_OPTIONS = '--max-old-space-size=4096 --interrupt-budget=200000';
    expect(tuneTiering('scan')).toBe(false);
  });

  it('sets the budget for a one-shot command', () => {
    delete process.env.NODE_OPTIONS;
    expect(tuneTiering('scan')).toBe(process.execArgv.every((a) => !a.includes('interrupt-budget')));
  });
});
