/**
 * Two-sample statistics of the probe: the Mann–Whitney U test (exact for small tie-free
 * samples, normal approximation with tie and continuity corrections otherwise), the rank AUC
 * with a DeLong interval (cluster-robust per Obuchowski 1997 when chunks carry their document),
 * the pooled two-sample t-test on document means with Student's t tail, Holm's step-down
 * correction, and the normal tail they need.
 */
import { logGamma, Z95 } from '../../stats/binomial.js';
import { lowerBound } from '../../util/sorted.js';

/** Hart's rational approximation of the normal tail below x = 5·√2: numerator and denominator, highest power first. */
const HART_NUMERATOR = [
  3.52624965998911e-2, 0.700383064443688, 6.37396220353165, 33.912866078383, 112.079291497871, 221.213596169931,
  220.206867912376,
] as const;
const HART_DENOMINATOR = [
  8.83883476483184e-2, 1.75566716318264, 16.064177579207, 86.7807322029461, 296.564248779674, 637.333633378831,
  793.826512519948, 440.413735824752,
] as const;

/** The polynomial with these coefficients (highest power first) at x, by Horner's rule. */
function horner(coefficients: readonly number[], x: number): number {
  let value = coefficients[0];
  for (let i = 1; i < coefficients.length; i++) value = value * x + coefficients[i];
  return value;
}

/**
 * P(Z > z) for a standard normal Z, to double precision over the whole range (Hart 1968 as
 * given by G. West, "Better approximations to cumulative normal functions", 2005).
 * @example normalSf(1.959963984540054) // 0.025
 */
export function normalSf(z: number): number {
  if (Number.isNaN(z)) return NaN;
  const x = Math.abs(z);
  let tail: number;
  if (x > 37) tail = 0;
  else {
    const e = Math.exp((-x * x) / 2);
    if (x < 7.07106781186547) {
      tail = (e * horner(HART_NUMERATOR, x)) / horner(HART_DENOMINATOR, x);
    } else {
      let b = x + 0.65;
      b = x + 4 / b;
      b = x + 3 / b;
      b = x + 2 / b;
      b = x + 1 / b;
      tail = e / b / 2.506628274631;
    }
  }
  return z >= 0 ? tail : 1 - tail;
}

/** Result of {@link mannWhitney}. */
export interface MannWhitney {
  /** U of the first sample: pairs (x, y) with x > y, ties counting one half. */
  readonly u: number;
  /** U / (n1 · n2): P(X > Y) + P(X = Y) / 2, the rank AUC. */
  readonly auc: number;
  /** One-sided p for "X tends to be larger than Y". */
  readonly p_value: number;
  /** How p was computed. */
  readonly method: 'exact' | 'normal';
  /** z of the normal approximation (with tie and continuity corrections); null when exact. */
  readonly z: number | null;
}

/** Largest n1 + n2 for the exact null distribution (tie-free samples only). */
const EXACT_MAX_N = 60;

/**
 * Mann–Whitney U test of H1 "x is stochastically larger than y" (one-sided).
 * @example mannWhitney([5, 6, 7], [1, 2, 3]) // { u: 9, auc: 1, p_value: 0.05, method: 'exact' }
 */
export function mannWhitney(x: readonly number[], y: readonly number[]): MannWhitney {
  const n1 = x.length,
    n2 = y.length;
  if (n1 === 0 || n2 === 0) return { u: 0, auc: 0.5, p_value: 1, method: 'normal', z: null };
  const all = [...x.map((v) => ({ v, g: 0 })), ...y.map((v) => ({ v, g: 1 }))].sort((a, b) => a.v - b.v);
  const n = n1 + n2;
  let rankSum = 0,
    tieTerm = 0;
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && all[j].v === all[i].v) j++;
    const rank = (i + j + 1) / 2; // mean of ranks i+1 … j
    for (let k = i; k < j; k++) if (all[k].g === 0) rankSum += rank;
    const t = j - i;
    tieTerm += t * t * t - t;
    i = j;
  }
  const u = rankSum - (n1 * (n1 + 1)) / 2;
  const auc = u / (n1 * n2);
  if (tieTerm === 0 && n <= EXACT_MAX_N)
    return { u, auc, p_value: exactUpperTail(n1, n2, u), method: 'exact', z: null };
  const mean = (n1 * n2) / 2;
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  if (variance <= 0) return { u, auc, p_value: 1, method: 'normal', z: 0 };
  const z = (u - mean - 0.5) / Math.sqrt(variance);
  return { u, auc, p_value: Math.min(1, normalSf(z)), method: 'normal', z };
}

/** P(U ≥ u) under H0 for tie-free samples: the permutation distribution, by recursion on (n1, n2). */
function exactUpperTail(n1: number, n2: number, u: number): number {
  // f[m][k]: distribution of U for sizes (m, n) built up over n; P_{m,n}(k) = m/(m+n) P_{m−1,n}(k−n) + n/(m+n) P_{m,n−1}(k)
  let prev: Float64Array[] = [];
  for (let m = 0; m <= n1; m++) prev.push(Float64Array.of(1)); // n = 0: U = 0
  for (let nn = 1; nn <= n2; nn++) {
    const cur: Float64Array[] = [Float64Array.of(1)]; // m = 0: U = 0
    for (let m = 1; m <= n1; m++) {
      const size = m * nn + 1;
      const d = new Float64Array(size);
      const a = cur[m - 1],
        b = prev[m];
      const wa = m / (m + nn),
        wb = nn / (m + nn);
      for (let k = 0; k < size; k++) {
        const ka = k - nn;
        d[k] = (ka >= 0 && ka < a.length ? wa * a[ka] : 0) + (k < b.length ? wb * b[k] : 0);
      }
      cur.push(d);
    }
    prev = cur;
  }
  const dist = prev[n1];
  let p = 0;
  for (let k = Math.ceil(u - 1e-9); k < dist.length; k++) p += dist[k];
  return Math.min(1, Math.max(0, p));
}

/** Result of {@link aucInterval}. */
export interface AucInterval {
  readonly auc: number;
  readonly se: number;
  readonly ci_95: [number, number];
  /**
   * `delong`: every value independent (DeLong et al. 1988). `clustered`: the variance of each
   * sample with ≥ 2 clusters is Obuchowski's (1997) between-cluster variance; a sample with one
   * cluster contributes its within-cluster (DeLong) variance.
   */
  readonly method: 'delong' | 'clustered';
}

/**
 * AUC = P(X > Y) + P(X = Y)/2 with its standard error and a 95 % normal interval, clipped to
 * [0, 1]. Without clusters: DeLong's variance from placement values. With cluster labels (the
 * document each chunk came from; the two samples never share a cluster): Obuchowski's
 * cluster-robust variance per sample, since chunks of one document are correlated and the
 * chunk-level variance understates the uncertainty. A sample that is one cluster (a single
 * work) keeps its within-document variance: the interval is then about *this* work against the
 * reference population. At complete separation the interval degenerates to a point.
 * @example aucInterval([3, 4, 5], [1, 2, 3.5]).auc // 0.8889
 */
export function aucInterval(
  x: readonly number[],
  y: readonly number[],
  clusters?: { x: readonly (string | number)[]; y: readonly (string | number)[] },
): AucInterval {
  const n1 = x.length,
    n2 = y.length;
  if (n1 === 0 || n2 === 0) return { auc: 0.5, se: 0, ci_95: [0, 1], method: 'delong' };
  const ys = [...y].sort((a, b) => a - b);
  const xs = [...x].sort((a, b) => a - b);
  // placement of each x among the y (share of y below it, ties one half), and vice versa
  const vx = x.map((v) => (lowerBound(ys, v) + 0.5 * countEqual(ys, v)) / n2);
  const vy = y.map((v) => (n1 - lowerBound(xs, v) - 0.5 * countEqual(xs, v)) / n1);
  const auc = vx.reduce((s, v) => s + v, 0) / n1;
  const clustered = clusters !== undefined && clusters.x.length === n1 && clusters.y.length === n2;
  const varX = clustered ? sideVariance(vx, clusters.x, auc) : variance(vx) / n1;
  const varY = clustered ? sideVariance(vy, clusters.y, auc) : variance(vy) / n2;
  const se = Math.sqrt(varX + varY);
  const lo = Math.max(0, auc - Z95 * se),
    hi = Math.min(1, auc + Z95 * se);
  return { auc, se, ci_95: [lo, hi], method: clustered ? 'clustered' : 'delong' };
}

/**
 * One sample's share of var(AUC). With I ≥ 2 clusters (Obuchowski 1997): with V_i the sum of
 * the placements in cluster i and m_i its size (M in all),
 * S = I / ((I − 1) M) · Σ_i (V_i − m_i · AUC)², contributing S / M. With one cluster: the
 * sample variance of the placements / M (DeLong).
 */
function sideVariance(v: readonly number[], labels: readonly (string | number)[], auc: number): number {
  const sums = new Map<string, { s: number; m: number }>();
  v.forEach((x, j) => {
    const k = String(labels[j]);
    const c = sums.get(k);
    if (c) {
      c.s += x;
      c.m += 1;
    } else sums.set(k, { s: x, m: 1 });
  });
  const I = sums.size,
    M = v.length;
  if (I < 2) return variance(v) / M;
  let ss = 0;
  for (const { s, m } of sums.values()) ss += (s - m * auc) * (s - m * auc);
  return ((I / ((I - 1) * M)) * ss) / M;
}

/**
 * Holm's step-down adjusted p-values (same order as given): controls the family-wise error
 * rate over the statistics tested.
 * @example holm([0.01, 0.04, 0.03]) // [0.03, 0.06, 0.06]
 */
export function holm(p: readonly number[]): number[] {
  const order = p.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(p.length);
  let running = 0;
  order.forEach(([v, i], r) => {
    running = Math.max(running, Math.min(1, (p.length - r) * v));
    out[i] = running;
  });
  return out;
}

function countEqual(sorted: readonly number[], v: number): number {
  let lo = lowerBound(sorted, v),
    n = 0;
  while (lo < sorted.length && sorted[lo] === v) {
    lo++;
    n++;
  }
  return n;
}

function variance(a: readonly number[]): number {
  if (a.length < 2) return 0;
  const m = a.reduce((s, v) => s + v, 0) / a.length;
  return a.reduce((s, v) => s + (v - m) * (v - m), 0) / (a.length - 1);
}

/** A p-value as results print it. @example fmtP(0.01234) // '0.012' */
export function fmtP(p: number): string {
  return p < 1e-4 ? p.toExponential(1) : p.toPrecision(2);
}

/** Mean of an array (0 when empty). */
export function mean(a: readonly number[]): number {
  return a.length === 0 ? 0 : a.reduce((s, v) => s + v, 0) / a.length;
}

/** Median of an array (0 when empty). */
export function median(a: readonly number[]): number {
  if (a.length === 0) return 0;
  const s = [...a].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * P(T > t) for Student's t with `df` degrees of freedom (df > 0), through the regularised
 * incomplete beta function: P(|T| > |t|) = I_{df/(df+t²)}(df/2, 1/2).
 * @example studentTSf(2.262, 9) // ≈ 0.025
 */
export function studentTSf(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return NaN;
  if (!Number.isFinite(t)) return t > 0 ? 0 : 1;
  const half = 0.5 * regularizedBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? half : 1 - half;
}

/** I_x(a, b), the regularised incomplete beta function (continued fraction, Lentz; NR §6.4). */
export function regularizedBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
  // the continued fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry otherwise
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(lnFront) * betaFraction(x, a, b)) / a;
  return 1 - (Math.exp(lnFront) * betaFraction(1 - x, b, a)) / b;
}

function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1,
    d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return h;
}

/** Result of {@link pooledTTest}. */
export interface PooledTTest {
  readonly t: number;
  readonly df: number;
  /** One-sided p for "the first sample's mean is larger". */
  readonly p_value: number;
  readonly mean_difference: number;
  /** 95 % interval of the difference of means (two-sided t interval). */
  readonly ci_95: [number, number];
}

/**
 * One-sided two-sample t-test with pooled variance, H1: mean(x) > mean(y). With one x it is
 * the prediction test "is x outside the spread of the y?" (the variance comes from y alone).
 * Needs n_x + n_y ≥ 3 and some spread.
 * @example pooledTTest([5], [1, 2, 3, 2, 1]).p_value // small
 */
export function pooledTTest(x: readonly number[], y: readonly number[]): PooledTTest | null {
  const n1 = x.length,
    n2 = y.length;
  const df = n1 + n2 - 2;
  if (n1 < 1 || n2 < 1 || df < 1) return null;
  const m1 = mean(x),
    m2 = mean(y);
  let ss = 0;
  for (const v of x) ss += (v - m1) * (v - m1);
  for (const v of y) ss += (v - m2) * (v - m2);
  const sp2 = ss / df;
  const se = Math.sqrt(sp2 * (1 / n1 + 1 / n2));
  const diff = m1 - m2;
  if (!(se > 0)) return null;
  const t = diff / se;
  const crit = studentTQuantile(0.975, df);
  return { t, df, p_value: studentTSf(t, df), mean_difference: diff, ci_95: [diff - crit * se, diff + crit * se] };
}

/** The q-quantile of Student's t (bisection on the tail; q in (0, 1)). */
export function studentTQuantile(q: number, df: number): number {
  let lo = -1e3,
    hi = 1e3;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (1 - studentTSf(mid, df) < q) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
