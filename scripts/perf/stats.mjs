/** Small statistics shared by the perf scripts. */

/** The median of the numbers in `xs` (nulls ignored); null when there are none. */
export function median(xs) {
  const s = xs.filter((x) => x !== null && x !== undefined).sort((a, b) => a - b);
  if (s.length === 0) return null;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * The p-th percentile by nearest rank: a value that was actually observed, never interpolated.
 * With 50 samples, p99 is the slowest one.
 */
export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return null;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
