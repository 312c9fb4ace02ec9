/**
 * One-feature logistic calibration (Platt scaling): P(y = 1 | x) = σ(a + b·x), fitted by
 * Newton's method on the log-likelihood with a small ridge penalty on b (calibration data that
 * the feature separates perfectly would otherwise send b to infinity), and the 95 % interval of
 * the fitted probability at any x from the parameters' covariance (the inverse Hessian, delta
 * method): the uncertainty that the calibration set's size leaves, not the query's.
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
 * Fit σ(a + b·x) to labelled points (y ∈ {0, 1}).
 * @example
 * const fit = fitLogistic([0, 0, 1, 5, 9], [0, 0, 0, 1, 1])
 */
export function fitLogistic(x: ArrayLike<number>, y: ArrayLike<number>, ridge = 1e-3): LogisticFit {
  const n = x.length;
  let a = 0,
    b = 0;
  let h00 = 0,
    h01 = 0,
    h11 = 0;
  for (let iter = 0; iter < 100; iter++) {
    let g0 = 0,
      g1 = -ridge * b;
    h00 = 0;
    h01 = 0;
    h11 = ridge;
    for (let i = 0; i < n; i++) {
      const p = sigmoid(a + b * x[i]);
      const r = y[i] - p;
      g0 += r;
      g1 += r * x[i];
      const w = p * (1 - p);
      h00 += w;
      h01 += w * x[i];
      h11 += w * x[i] * x[i];
    }
    const det = h00 * h11 - h01 * h01;
    if (!(det > 0)) break;
    const da = (h11 * g0 - h01 * g1) / det;
    const db = (h00 * g1 - h01 * g0) / det;
    a += da;
    b += db;
    if (Math.abs(da) + Math.abs(db) < 1e-10) break;
  }
  const det = h00 * h11 - h01 * h01;
  return { a, b, cov: [h11 / det, -h01 / det, h00 / det] };
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
