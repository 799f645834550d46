/**
 * What an estimate's breakdown says around its figures (base price × multipliers = total), at
 * step 5 and on the estimate's own page. Apart from app/content/calculator.ts, so that page loads
 * these words and none of the calculator's others.
 */
export const breakdownText = {
  caption: "How we worked it out",
  basePrice: "base price",
  /** Each multiplier in words (app/calculator/pricing.ts has them). */
  change: { 1.5: "50% more", 1: "no change", 0.8: "20% less" } as Record<number, string>,
} as const;
