/**
 * The wizard's choices, their labels and the estimate (docs/product.md, "The estimate rule"), in display order.
 * `value` is what the form posts.
 */
export const SERVICES = [
  { value: "softwareDev", label: "Software Development", basePrice: 2500 },
  { value: "mobileApp", label: "Mobile App Development", basePrice: 5000 },
  { value: "seo", label: "SEO & Digital Marketing", basePrice: 1000 },
  { value: "ai", label: "AI Solutions", basePrice: 3000 },
  { value: "zoho", label: "Zoho Solutions", basePrice: 2000 },
] as const;

export const TIMEFRAMES = [
  { value: "urgent", label: "Urgent (1-2 weeks)", multiplier: 1.5 },
  { value: "standard", label: "Standard (3-4 weeks)", multiplier: 1 },
  { value: "relaxed", label: "Relaxed (5-8 weeks)", multiplier: 0.8 },
] as const;

export const COMPLEXITIES = [
  { value: "simple", label: "Simple", multiplier: 0.8 },
  { value: "medium", label: "Medium", multiplier: 1 },
  { value: "complex", label: "Complex", multiplier: 1.5 },
] as const;

export type ServiceValue = (typeof SERVICES)[number]["value"];
export type TimeframeValue = (typeof TIMEFRAMES)[number]["value"];
export type ComplexityValue = (typeof COMPLEXITIES)[number]["value"];

export const DEFAULT_COMPLEXITY: ComplexityValue = "medium";
export const SERVICE_VALUES = SERVICES.map((o) => o.value);
export const TIMEFRAME_VALUES = TIMEFRAMES.map((o) => o.value);
export const COMPLEXITY_VALUES = COMPLEXITIES.map((o) => o.value);

/** The option of a list with this value, e.g. `optionOf(SERVICES, "seo").label`. */
export function optionOf<O extends { value: string }, V extends O["value"]>(options: readonly O[], value: V): Extract<O, { value: V }> {
  return options.find((o) => o.value === value) as Extract<O, { value: V }>;
}

/**
 * Whole dollars: base price × timeframe multiplier (1 when none is chosen yet) × complexity
 * multiplier, rounded; 0 until a service is chosen.
 */
export function estimate({
  service,
  timeframe,
  complexity = DEFAULT_COMPLEXITY,
}: {
  service?: ServiceValue;
  timeframe?: TimeframeValue;
  complexity?: ComplexityValue;
}): number {
  if (service === undefined) return 0;
  const timeframeMultiplier = timeframe === undefined ? 1 : optionOf(TIMEFRAMES, timeframe).multiplier;
  return Math.round(optionOf(SERVICES, service).basePrice * timeframeMultiplier * optionOf(COMPLEXITIES, complexity).multiplier);
}

/**
 * How `estimate()` builds its figure, for showing it: the service's base price, each multiplier
 * with the label of the choice it comes from, and the rounded total.
 */
export function estimateParts({
  service,
  timeframe,
  complexity = DEFAULT_COMPLEXITY,
}: {
  service: ServiceValue;
  timeframe?: TimeframeValue;
  complexity?: ComplexityValue;
}): {
  base: { label: string; amount: number };
  factors: { label: string; multiplier: number }[];
  total: number;
} {
  const base = optionOf(SERVICES, service);
  const time = timeframe === undefined ? undefined : optionOf(TIMEFRAMES, timeframe);
  const size = optionOf(COMPLEXITIES, complexity);
  return {
    base: { label: base.label, amount: base.basePrice },
    factors: [...(time ? [{ label: time.label, multiplier: time.multiplier }] : []), { label: size.label, multiplier: size.multiplier }],
    total: estimate({ service, timeframe, complexity }),
  };
}

// Made on first use: building an Intl.NumberFormat costs tens of milliseconds the first time
// (locale data), and the home page shows no price until step 2.
let usd: Intl.NumberFormat | undefined;

/**
 * Every figure the site shows, prints or sends, the same on every runtime, e.g. 5625 -> "USD 5,625".
 * The currency's code, not "$": to a Johannesburg reader "$" could be any dollar, and the prices
 * are in US dollars. Intl puts a no-break space after the code; a plain one here, so a figure reads
 * the same on the page and in the lead's text (which turns every space into a plain one), and
 * the styles keep a figure on one line where it stands alone.
 */
export function formatUsd(amount: number): string {
  usd ??= new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", currencyDisplay: "code", minimumFractionDigits: 0, maximumFractionDigits: 0 });
  return usd.format(Math.round(amount) || 0).replace(/\s/u, " "); // `|| 0` avoids "-USD 0"
}

/**
 * The operator's rate (USD_ZAR_RATE, USD_ZAR_RATE_DATE), read once at start (server/config.ts): rand to the dollar, and the
 * words that say it after a figure's rand, made there ("at R 18.40 to the dollar, 30 Nov 2026"): the browser gets them made.
 */
export interface ZarRate {
  rate: number;
  note: string;
}

/** The rate and its day (YYYY-MM-DD) as a ZarRate. */
export const zarRate = (rate: number, date: string): ZarRate => ({
  rate,
  note: `at R ${rate.toFixed(2)} to the dollar, ${new Date(date).toLocaleDateString("en-ZA", { dateStyle: "medium", timeZone: "UTC" })}`,
});

/**
 * A dollar figure in rand, for a reader who pays in rand (the prices stay in dollars), rounded to
 * the nearest R100: 4500 at 18.4 -> "R 82,800".
 */
export const inRand = (usd: number, rate: number) => formatUsd(Math.round((usd * rate) / 100) * 100).replace("USD", "R");

/** A figure as the thanks and the lead say it: "USD 4,500", and with a rate "USD 4,500 (about R 82,800 at R 18.40 to the dollar, 30 Nov 2026)". */
export const formatPrice = (usd: number, zar: ZarRate | undefined) => formatUsd(usd) + (zar ? aboutRand(usd, zar) : "");

/** What follows a figure's dollars, in the page (InRand) and in what is sent: " (about R 82,800 at R 18.40 to the dollar, 30 Nov 2026)". */
export const aboutRand = (usd: number, zar: ZarRate) => ` (about ${inRand(usd, zar.rate)} ${zar.note})`;
