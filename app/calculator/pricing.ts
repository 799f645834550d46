/**
 * Prices and multipliers of the cost calculator (SPEC.md section 9): the one typed source of truth
 * for the wizard's choices, their labels and the estimate. Isomorphic: no Node or DOM APIs.
 */

/** Services offered in step 1, in display order. `value` is what the form posts. */
export const SERVICES = [
  { value: "softwareDev", label: "Software Development", basePrice: 2500 },
  { value: "mobileApp", label: "Mobile App Development", basePrice: 5000 },
  { value: "seo", label: "SEO & Digital Marketing", basePrice: 1000 },
  { value: "ai", label: "AI Solutions", basePrice: 3000 },
  { value: "zoho", label: "Zoho Solutions", basePrice: 2000 },
] as const;

/** Timeframes offered in step 2, in display order. */
export const TIMEFRAMES = [
  { value: "urgent", label: "Urgent (1-2 weeks)", multiplier: 1.5 },
  { value: "standard", label: "Standard (3-4 weeks)", multiplier: 1 },
  { value: "relaxed", label: "Relaxed (5-8 weeks)", multiplier: 0.8 },
] as const;

/** Complexity levels offered in step 3, in display order. */
export const COMPLEXITIES = [
  { value: "simple", label: "Simple", multiplier: 0.8 },
  { value: "medium", label: "Medium", multiplier: 1 },
  { value: "complex", label: "Complex", multiplier: 1.5 },
] as const;

export type ServiceOption = (typeof SERVICES)[number];
export type TimeframeOption = (typeof TIMEFRAMES)[number];
export type ComplexityOption = (typeof COMPLEXITIES)[number];

/** "softwareDev" | "mobileApp" | "seo" | "ai" | "zoho" */
export type ServiceValue = ServiceOption["value"];
/** "urgent" | "standard" | "relaxed" */
export type TimeframeValue = TimeframeOption["value"];
/** "simple" | "medium" | "complex" */
export type ComplexityValue = ComplexityOption["value"];

/** The complexity used when none is chosen (and the wizard's initial value). */
export const DEFAULT_COMPLEXITY: ComplexityValue = "medium";

/** The option values alone, in display order (handy for z.enum and for iteration). */
export const SERVICE_VALUES = SERVICES.map((o) => o.value);
export const TIMEFRAME_VALUES = TIMEFRAMES.map((o) => o.value);
export const COMPLEXITY_VALUES = COMPLEXITIES.map((o) => o.value);

function indexBy<O extends { value: string }>(options: readonly O[]): Record<O["value"], O> {
  return Object.fromEntries(options.map((o) => [o.value, o])) as Record<O["value"], O>;
}

/** Lookups by value, e.g. `SERVICE_BY_VALUE.seo.label`. */
export const SERVICE_BY_VALUE = indexBy<ServiceOption>(SERVICES);
export const TIMEFRAME_BY_VALUE = indexBy<TimeframeOption>(TIMEFRAMES);
export const COMPLEXITY_BY_VALUE = indexBy<ComplexityOption>(COMPLEXITIES);

const has = (record: object, key: unknown): boolean =>
  typeof key === "string" && Object.prototype.hasOwnProperty.call(record, key);

/** True when `x` is one of the service values (safe on untrusted input). */
export function isService(x: unknown): x is ServiceValue {
  return has(SERVICE_BY_VALUE, x);
}
/** True when `x` is one of the timeframe values (safe on untrusted input). */
export function isTimeframe(x: unknown): x is TimeframeValue {
  return has(TIMEFRAME_BY_VALUE, x);
}
/** True when `x` is one of the complexity values (safe on untrusted input). */
export function isComplexity(x: unknown): x is ComplexityValue {
  return has(COMPLEXITY_BY_VALUE, x);
}

/** What the estimate depends on; every part may still be unchosen. */
export interface EstimateInput {
  service?: ServiceValue;
  timeframe?: TimeframeValue;
  complexity?: ComplexityValue;
}

/**
 * Estimated cost in whole dollars: base price × timeframe multiplier (1 when none is chosen) ×
 * complexity multiplier (medium when none is chosen), rounded. 0 when no service is chosen.
 */
export function estimate({ service, timeframe, complexity }: EstimateInput): number {
  if (service === undefined) return 0;
  const base = SERVICE_BY_VALUE[service].basePrice;
  const t = timeframe === undefined ? 1 : TIMEFRAME_BY_VALUE[timeframe].multiplier;
  const c = COMPLEXITY_BY_VALUE[complexity ?? DEFAULT_COMPLEXITY].multiplier;
  return Math.round(base * t * c);
}

// Made on first use, not at module load: building an Intl.NumberFormat costs tens of milliseconds
// the first time (locale data), and the home page only shows a price from step 2 on.
let usd: Intl.NumberFormat | undefined;

/** Formats whole dollars the same way on every runtime, e.g. 5625 -> "$5,625". */
export function formatUsd(amount: number): string {
  usd ??= new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 0, maximumFractionDigits: 0 });
  return usd.format(Math.round(amount) || 0); // `|| 0` avoids "-$0"
}
