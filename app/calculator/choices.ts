/**
 * An estimate's own address, `/estimate?service=…&timeframe=…&complexity=…`: the three choices
 * and nothing else (never what a visitor typed), so it can be kept, forwarded and cached, the same
 * bytes for everyone who opens it.
 */
import { COMPLEXITY_VALUES, type ComplexityValue, SERVICE_VALUES, type ServiceValue, TIMEFRAME_VALUES, type TimeframeValue } from "./pricing";

export interface Choices {
  service: ServiceValue;
  timeframe: TimeframeValue;
  complexity: ComplexityValue;
}

/** The estimate page's path for these choices (each one of pricing.ts's values: nothing to escape). */
export function estimateHref({ service, timeframe, complexity }: Choices): string {
  return `/estimate?service=${service}&timeframe=${timeframe}&complexity=${complexity}`;
}

const known = <V extends string>(values: readonly V[], value: unknown): value is V => values.includes(value as V);

/** The three choices `get` names (a URL's query, a stored receipt), when each is one of the calculator's own; otherwise null. */
export function choicesFrom(get: (name: keyof Choices) => unknown): Choices | null {
  const service = get("service");
  const timeframe = get("timeframe");
  const complexity = get("complexity");
  return known(SERVICE_VALUES, service) && known(TIMEFRAME_VALUES, timeframe) && known(COMPLEXITY_VALUES, complexity)
    ? { service, timeframe, complexity }
    : null;
}
