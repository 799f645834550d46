import { describe, expect, it } from "vitest";

import { COMPLEXITIES, type ComplexityValue, estimate, estimateParts, formatUsd, optionOf, SERVICES, type ServiceValue, TIMEFRAMES, type TimeframeValue } from "./pricing";

// Worked out by hand from SPEC.md section 9 (base × timeframe × complexity), not from the code.
// Columns: [simple, medium, complex]; "none" = no timeframe chosen (multiplier 1).
const EXPECTED: Record<ServiceValue, Record<TimeframeValue | "none", [number, number, number]>> = {
  softwareDev: {
    none: [2000, 2500, 3750],
    urgent: [3000, 3750, 5625],
    standard: [2000, 2500, 3750],
    relaxed: [1600, 2000, 3000],
  },
  mobileApp: {
    none: [4000, 5000, 7500],
    urgent: [6000, 7500, 11250],
    standard: [4000, 5000, 7500],
    relaxed: [3200, 4000, 6000],
  },
  seo: {
    none: [800, 1000, 1500],
    urgent: [1200, 1500, 2250],
    standard: [800, 1000, 1500],
    relaxed: [640, 800, 1200],
  },
  ai: {
    none: [2400, 3000, 4500],
    urgent: [3600, 4500, 6750],
    standard: [2400, 3000, 4500],
    relaxed: [1920, 2400, 3600],
  },
  zoho: {
    none: [1600, 2000, 3000],
    urgent: [2400, 3000, 4500],
    standard: [1600, 2000, 3000],
    relaxed: [1280, 1600, 2400],
  },
};

const SERVICE_KEYS = ["softwareDev", "mobileApp", "seo", "ai", "zoho"] as const;
const TIMEFRAME_KEYS = ["none", "urgent", "standard", "relaxed"] as const;
const COMPLEXITY_KEYS = ["simple", "medium", "complex"] as const;

describe("option lists", () => {
  it("have the spec's values, labels, prices and multipliers in order", () => {
    expect(SERVICES).toEqual([
      { value: "softwareDev", label: "Software Development", basePrice: 2500 },
      { value: "mobileApp", label: "Mobile App Development", basePrice: 5000 },
      { value: "seo", label: "SEO & Digital Marketing", basePrice: 1000 },
      { value: "ai", label: "AI Solutions", basePrice: 3000 },
      { value: "zoho", label: "Zoho Solutions", basePrice: 2000 },
    ]);
    expect(TIMEFRAMES).toEqual([
      { value: "urgent", label: "Urgent (1-2 weeks)", multiplier: 1.5 },
      { value: "standard", label: "Standard (3-4 weeks)", multiplier: 1 },
      { value: "relaxed", label: "Relaxed (5-8 weeks)", multiplier: 0.8 },
    ]);
    expect(COMPLEXITIES).toEqual([
      { value: "simple", label: "Simple", multiplier: 0.8 },
      { value: "medium", label: "Medium", multiplier: 1 },
      { value: "complex", label: "Complex", multiplier: 1.5 },
    ]);
    expect(optionOf(SERVICES, "seo").label).toBe("SEO & Digital Marketing");
    expect(optionOf(TIMEFRAMES, "relaxed").multiplier).toBe(0.8);
  });
});

describe("estimate", () => {
  for (const service of SERVICE_KEYS) {
    for (const tf of TIMEFRAME_KEYS) {
      COMPLEXITY_KEYS.forEach((complexity, i) => {
        const expected = EXPECTED[service][tf][i];
        it(`${service} + ${tf} + ${complexity} = ${expected}`, () => {
          const timeframe = tf === "none" ? undefined : tf;
          expect(estimate({ service, timeframe, complexity })).toBe(expected);
        });
      });
    }
  }

  it("uses medium when no complexity is given", () => {
    for (const service of SERVICE_KEYS) {
      for (const tf of TIMEFRAME_KEYS) {
        const timeframe = tf === "none" ? undefined : tf;
        expect(estimate({ service, timeframe })).toBe(EXPECTED[service][tf][1]);
      }
    }
  });

  it("is 0 with no service, whatever else is chosen", () => {
    expect(estimate({})).toBe(0);
    for (const tf of TIMEFRAME_KEYS) {
      for (const complexity of [undefined, ...COMPLEXITY_KEYS] as (ComplexityValue | undefined)[]) {
        const timeframe = tf === "none" ? undefined : tf;
        expect(estimate({ timeframe, complexity })).toBe(0);
      }
    }
  });

  it("always returns a whole number", () => {
    expect(Number.isInteger(estimate({ service: "mobileApp", timeframe: "relaxed", complexity: "simple" }))).toBe(true);
  });
});

describe("estimateParts", () => {
  it("names the base price and each multiplier, and multiplies out to estimate()", () => {
    expect(estimateParts({ service: "softwareDev", timeframe: "urgent", complexity: "complex" })).toEqual({
      base: { label: "Software Development", amount: 2500 },
      factors: [
        { label: "Urgent (1-2 weeks)", multiplier: 1.5 },
        { label: "Complex", multiplier: 1.5 },
      ],
      total: 5625,
    });
    for (const service of SERVICES) {
      for (const timeframe of [undefined, ...TIMEFRAMES.map((t) => t.value)]) {
        for (const complexity of COMPLEXITIES) {
          const parts = estimateParts({ service: service.value, timeframe, complexity: complexity.value });
          expect(parts.factors).toHaveLength(timeframe ? 2 : 1);
          expect(Math.round(parts.factors.reduce((sum, f) => sum * f.multiplier, parts.base.amount))).toBe(parts.total);
          expect(parts.total).toBe(estimate({ service: service.value, timeframe, complexity: complexity.value }));
        }
      }
    }
  });
});

describe("formatUsd", () => {
  it.each([
    [5625, "$5,625"],
    [0, "$0"],
    [640, "$640"],
    [11250, "$11,250"],
    [1234567, "$1,234,567"],
    [3200.0000000000005, "$3,200"],
    [99.5, "$100"],
    [-0.2, "$0"],
  ])("%s -> %s", (n, s) => {
    expect(formatUsd(n)).toBe(s);
  });
});
