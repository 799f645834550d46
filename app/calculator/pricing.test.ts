import { describe, expect, it } from "vitest";

import { hero } from "../content/claims";
import { services } from "../content/services";

import { COMPLEXITIES, DEFAULT_COMPLEXITY, estimate, estimateParts, formatUsd, optionOf, SERVICES, TIMEFRAMES, type TimeframeValue } from "./pricing";

// Every timeframe choice, "not chosen yet" (undefined) included.
const TIMEFRAME_CHOICES: (TimeframeValue | undefined)[] = [undefined, ...TIMEFRAMES.map((t) => t.value)];

/** Every combination the wizard can reach, with the figures the estimate rule builds it from (docs/product.md). */
function everyChoice() {
  return SERVICES.flatMap((service) =>
    TIMEFRAME_CHOICES.flatMap((timeframe) =>
      COMPLEXITIES.map((complexity) => ({
        choice: { service: service.value, timeframe, complexity: complexity.value },
        base: service.basePrice,
        timeMultiplier: timeframe === undefined ? 1 : optionOf(TIMEFRAMES, timeframe).multiplier,
        sizeMultiplier: complexity.multiplier,
      })),
    ),
  );
}

describe("the estimate rule (docs/product.md)", () => {
  // The one place the rule's numbers are written down in the tests; everything below is computed
  // from the lists, so a price change is one edit here and in pricing.ts, nowhere else.
  it("gives the base prices and multipliers by value", () => {
    expect(Object.fromEntries(SERVICES.map((s) => [s.value, s.basePrice]))).toStrictEqual({
      softwareDev: 2500,
      mobileApp: 5000,
      seo: 1000,
      ai: 3000,
      zoho: 2000,
    });
    expect(Object.fromEntries(TIMEFRAMES.map((t) => [t.value, t.multiplier]))).toStrictEqual({ urgent: 1.5, standard: 1, relaxed: 0.8 });
    expect(Object.fromEntries(COMPLEXITIES.map((c) => [c.value, c.multiplier]))).toStrictEqual({ simple: 0.8, medium: 1, complex: 1.5 });
    expect(DEFAULT_COMPLEXITY).toBe("medium");
  });
});

describe("option lists", () => {
  it.each([
    ["services", SERVICES],
    ["timeframes", TIMEFRAMES],
    ["complexities", COMPLEXITIES],
  ] as const)("%s have unique values and labels, none empty", (_, options) => {
    expect(new Set(options.map((o) => o.value)).size).toBe(options.length);
    expect(new Set(options.map((o) => o.label)).size).toBe(options.length);
    for (const o of options) expect(o.label.trim()).not.toBe("");
  });

  it("optionOf finds each option by its value", () => {
    for (const options of [SERVICES, TIMEFRAMES, COMPLEXITIES] as readonly (readonly { value: string }[])[]) {
      for (const o of options) expect(optionOf(options, o.value)).toBe(o);
    }
  });
});

describe("estimate", () => {
  it("is base × timeframe multiplier (1 when none) × complexity multiplier, rounded, for every choice", () => {
    const choices = everyChoice();
    expect(choices).toHaveLength(SERVICES.length * (TIMEFRAMES.length + 1) * COMPLEXITIES.length);
    for (const { choice, base, timeMultiplier, sizeMultiplier } of choices) {
      expect(estimate(choice), JSON.stringify(choice)).toBe(Math.round(base * timeMultiplier * sizeMultiplier));
    }
  });

  it("is a positive whole number of dollars once a service is chosen", () => {
    for (const { choice } of everyChoice()) {
      const amount = estimate(choice);
      expect(Number.isInteger(amount), JSON.stringify(choice)).toBe(true);
      expect(amount).toBeGreaterThan(0);
    }
  });

  it("uses medium when no complexity is given", () => {
    for (const { choice } of everyChoice()) {
      expect(estimate({ service: choice.service, timeframe: choice.timeframe })).toBe(estimate({ ...choice, complexity: "medium" }));
    }
  });

  it("is 0 with no service, whatever else is chosen", () => {
    expect(estimate({})).toBe(0);
    for (const { choice } of everyChoice()) expect(estimate({ timeframe: choice.timeframe, complexity: choice.complexity })).toBe(0);
  });

  it("a more urgent timeframe never costs less, a more complex project never less", () => {
    for (const service of SERVICES.map((s) => s.value)) {
      for (const complexity of COMPLEXITIES.map((c) => c.value)) {
        // TIMEFRAMES run from most to least urgent.
        const byUrgency = TIMEFRAMES.map((t) => estimate({ service, timeframe: t.value, complexity }));
        expect(byUrgency).toStrictEqual([...byUrgency].sort((a, b) => b - a));
      }
      for (const timeframe of TIMEFRAME_CHOICES) {
        // COMPLEXITIES run from simplest to most complex.
        const bySize = COMPLEXITIES.map((c) => estimate({ service, timeframe, complexity: c.value }));
        expect(bySize).toStrictEqual([...bySize].sort((a, b) => a - b));
      }
    }
  });

  it("the standard timeframe costs what no timeframe costs", () => {
    for (const { choice } of everyChoice()) expect(estimate({ ...choice, timeframe: "standard" })).toBe(estimate({ ...choice, timeframe: undefined }));
  });
});

describe("estimateParts", () => {
  it("names the base price and each chosen multiplier by its option's label, and multiplies out to estimate()", () => {
    for (const { choice } of everyChoice()) {
      const parts = estimateParts(choice);
      const service = optionOf(SERVICES, choice.service);
      const complexity = optionOf(COMPLEXITIES, choice.complexity);
      const timeframe = choice.timeframe === undefined ? [] : [optionOf(TIMEFRAMES, choice.timeframe)];
      expect(parts.base).toStrictEqual({ label: service.label, amount: service.basePrice });
      expect(parts.factors).toStrictEqual([...timeframe, complexity].map((o) => ({ label: o.label, multiplier: o.multiplier })));
      expect(Math.round(parts.factors.reduce((sum, f) => sum * f.multiplier, parts.base.amount))).toBe(parts.total);
      expect(parts.total).toBe(estimate(choice));
    }
  });
});

describe("formatUsd", () => {
  it.each([
    [5625, "USD 5,625"],
    [0, "USD 0"],
    [640, "USD 640"],
    [11250, "USD 11,250"],
    [1234567, "USD 1,234,567"],
    [3200.0000000000005, "USD 3,200"],
    [99.5, "USD 100"],
    [-0.2, "USD 0"],
  ])("%s -> %s", (n, s) => {
    expect(formatUsd(n)).toBe(s);
  });
});

describe("the site's copy agrees with the calculator", () => {
  it("each service tab is named as the calculator names that service", () => {
    for (const s of services) expect(s.name).toBe(optionOf(SERVICES, s.key).label);
  });

  it("the hero's example estimate is what the calculator works out", () => {
    const example = { service: "softwareDev", timeframe: "urgent", complexity: "complex" } as const;
    const parts = estimateParts(example);
    expect(hero.visual.alt).toContain(`${parts.base.label} at ${formatUsd(parts.base.amount)}`);
    for (const f of parts.factors) expect(hero.visual.alt).toContain(`${f.multiplier} for`);
    expect(hero.visual.alt).toContain(`makes ${formatUsd(estimate(example))}`);
  });
});
