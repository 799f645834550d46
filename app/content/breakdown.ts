/**
 * What an estimate's breakdown says around its figures (base price × multipliers = total), at
 * step 5 and on the estimate's own page. Apart from app/content/calculator.ts, so that page loads
 * these words and none of the calculator's others.
 */
export const breakdownText = {
  caption: "How we worked it out",
  basePrice: "base price",
  /** What a multiplier applies to, from the last (complexity) back. */
  kinds: ["project", "timeframe"],
  /** A multiplier in words: 1.5 "50% more", 0.8 "20% less", 1 "no change". */
  change: (m: number) => (m === 1 ? "no change" : `${Math.round(Math.abs(m - 1) * 100)}% ${m > 1 ? "more" : "less"}`),
} as const;
