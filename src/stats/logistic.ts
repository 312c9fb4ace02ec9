/**
 * One-feature logistic calibration (Platt scaling): P(y = 1 | x) = σ(a + b·x), with the 95 % interval of the fitted
 * probability at any x from the parameters' covariance (the inverse information, delta method): the uncertainty that
 * the calibration set's size leaves, not the query's. The fit itself (Firth's penalised likelihood, finite where the
 * feature separates the classes) is made by bench/eval-calibration.mjs, which writes its parameters.
 */
import { Z95 } from './binomial.js';

/** Fitted parameters and their covariance. */
export interface LogisticFit {
  readonly a: number;
  readonly b: number;
  /** Covariance of (a, b): [var a, cov ab, var b]. */
  readonly cov: readonly [number, number, number];
}

/** σ(z) = 1 / (1 + e^−z), stable for large |z|. */
export function sigmoid(z: number): number {
  if (z >= 0) return 1 / (1 + Math.exp(-z));
  const e = Math.exp(z);
  return e / (1 + e);
}

/**
 * The fitted probability at `x` and its 95 % interval (delta method on the linear predictor).
 * @example
 * logisticInterval({ a: -2, b: 1, cov: [0.01, 0, 0.001] }, 3) // { p: 0.731, lo: …, hi: … }
 */
export function logisticInterval(fit: LogisticFit, x: number, offset = 0): { p: number; lo: number; hi: number } {
  const eta = fit.a + fit.b * x + offset;
  const v = fit.cov[0] + 2 * x * fit.cov[1] + x * x * fit.cov[2];
  const half = Z95 * Math.sqrt(Math.max(0, v));
  return { p: sigmoid(eta), lo: sigmoid(eta - half), hi: sigmoid(eta + half) };
}
