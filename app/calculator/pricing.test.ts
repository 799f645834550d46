import { describe, expect, it } from "vitest";
import { breakdownText } from "../content/breakdown";
import { hero } from "../content/claims";
import { LEVELS } from "../content/levels";
import { services } from "../content/services";
import { choicesFrom, estimateHref } from "./choices";
import { COMPLEXITIES, estimate, estimateParts, formatPrice, formatUsd, inRand, optionOf, SERVICES, TIMEFRAMES, zarRate } from "./pricing";

/** Every combination the wizard can reach, "no timeframe chosen yet" included, with what the estimate rule (docs/product.md) makes of it. */
const everyChoice = SERVICES.flatMap((service) =>
  [undefined, ...TIMEFRAMES].flatMap((timeframe) =>
    COMPLEXITIES.map((complexity) => ({
      choice: { service: service.value, timeframe: timeframe?.value, complexity: complexity.value },
      expected: Math.round(service.basePrice * (timeframe?.multiplier ?? 1) * complexity.multiplier),
    })),
  ),
);

describe("the estimate rule (docs/product.md)", () => {
  // The one place the rule's numbers are written down in the tests; everything below is computed
  // from the lists, so a price change is one edit here and in pricing.ts, nowhere else.
  it("gives the base prices and multipliers by value; each list's values and labels are distinct", () => {
    expect(Object.fromEntries(SERVICES.map((s) => [s.value, s.basePrice]))).toStrictEqual({
      softwareDev: 2500,
      mobileApp: 5000,
      seo: 1000,
      ai: 3000,
      zoho: 2000,
    });
    expect(Object.fromEntries(TIMEFRAMES.map((t) => [t.value, t.multiplier]))).toStrictEqual({ urgent: 1.5, standard: 1, relaxed: 0.8 });
    expect(Object.fromEntries(COMPLEXITIES.map((c) => [c.value, c.multiplier]))).toStrictEqual({ simple: 0.8, medium: 1, complex: 1.5 });
    for (const options of [SERVICES, TIMEFRAMES, COMPLEXITIES] as readonly (readonly { value: string; label: string }[])[]) {
      expect(new Set(options.map((o) => o.value)).size).toBe(options.length);
      expect(new Set(options.map((o) => o.label.trim())).size).toBe(options.length);
      for (const o of options) expect(optionOf(options, o.value)).toBe(o);
    }
  });

  it("is base × timeframe multiplier (1 when none) × complexity multiplier (medium when none), rounded, for every choice; 0 with no service", () => {
    expect(everyChoice).toHaveLength(SERVICES.length * (TIMEFRAMES.length + 1) * COMPLEXITIES.length);
    for (const { choice, expected } of everyChoice) {
      expect(estimate(choice), JSON.stringify(choice)).toBe(expected);
      expect(estimate({ timeframe: choice.timeframe, complexity: choice.complexity })).toBe(0);
    }
    for (const { choice } of everyChoice.filter((c) => c.choice.complexity === "medium"))
      expect(estimate({ service: choice.service, timeframe: choice.timeframe })).toBe(estimate(choice));
  });

  it("a more urgent timeframe never costs less, a more complex project never less", () => {
    for (const service of SERVICES.map((s) => s.value)) {
      for (const complexity of COMPLEXITIES.map((c) => c.value)) {
        // TIMEFRAMES run from most to least urgent.
        const byUrgency = TIMEFRAMES.map((t) => estimate({ service, timeframe: t.value, complexity }));
        expect(byUrgency).toStrictEqual([...byUrgency].sort((a, b) => b - a));
      }
      for (const timeframe of [undefined, ...TIMEFRAMES.map((t) => t.value)]) {
        // COMPLEXITIES run from simplest to most complex.
        const bySize = COMPLEXITIES.map((c) => estimate({ service, timeframe, complexity: c.value }));
        expect(bySize).toStrictEqual([...bySize].sort((a, b) => a - b));
      }
    }
  });

  it("estimateParts names the base price and each chosen multiplier by its option's label, and multiplies out to estimate()", () => {
    for (const { choice } of everyChoice) {
      const parts = estimateParts(choice);
      const timeframe = choice.timeframe === undefined ? [] : [optionOf(TIMEFRAMES, choice.timeframe)];
      const service = optionOf(SERVICES, choice.service);
      expect(parts.base).toStrictEqual({ label: service.label, amount: service.basePrice });
      expect(parts.factors).toStrictEqual([...timeframe, optionOf(COMPLEXITIES, choice.complexity)].map((o) => ({ label: o.label, multiplier: o.multiplier })));
      expect(Math.round(parts.factors.reduce((sum, f) => sum * f.multiplier, parts.base.amount))).toBe(parts.total);
      expect(parts.total).toBe(estimate(choice));
    }
  });
});

it.each([
  [5625, "USD 5,625"],
  [0, "USD 0"],
  [640, "USD 640"],
  [11250, "USD 11,250"],
  [1234567, "USD 1,234,567"],
  [3200.0000000000005, "USD 3,200"],
  [99.5, "USD 100"],
  [-0.2, "USD 0"],
])("formatUsd(%s) is %s", (n, s) => expect(formatUsd(n)).toBe(s));

describe("the site's copy agrees with the calculator", () => {
  it("each service tab is named as the calculator names that service", () => {
    for (const s of services) expect(s.name).toBe(optionOf(SERVICES, s.key).label);
  });

  it("the hero's example estimate is what the calculator works out", () => {
    const example = choicesFrom((name) => new URL(hero.visual.href, "http://x").searchParams.get(name))!;
    expect(estimateHref(example)).toBe(hero.visual.href);
    const parts = estimateParts(example);
    expect(hero.visual.alt).toContain(`${parts.base.label} at ${formatUsd(parts.base.amount)}`);
    for (const f of parts.factors) expect(hero.visual.alt).toContain(`${f.multiplier} for`);
    expect(hero.visual.alt).toContain(`makes ${formatUsd(estimate(example))}`);
  });

  it("each service has a line of its own on each timeframe and complexity, and each multiplier has its words", () => {
    expect(Object.keys(LEVELS)).toEqual(SERVICES.map((s) => s.value));
    const lines = SERVICES.flatMap((s) => [...TIMEFRAMES, ...COMPLEXITIES].map((level) => LEVELS[s.value][level.value]));
    // One sentence beside its button on a phone, not a paragraph; none said twice.
    expect(lines.filter((line) => line.length > 90 || !line.endsWith("."))).toEqual([]);
    expect(new Set(lines).size).toBe(30);
    for (const { multiplier: m } of [...TIMEFRAMES, ...COMPLEXITIES])
      expect(breakdownText.change[m]).toBe(m === 1 ? "no change" : `${Math.round(Math.abs(m - 1) * 100)}% ${m > 1 ? "more" : "less"}`);
  });
});

it.each([
  [5625, 18.4, "R 103,500"], // 103,500 exactly
  [3000, 18.4, "R 55,200"],
  [800, 18.37, "R 14,700"], // 14,696 to the nearest R100
  [1000, 18.049, "R 18,000"], // 18,049 rounds down
  [1000, 18.05, "R 18,100"], // 18,050 rounds up
])("inRand(%s, %s) is %s", (usd, rate, rand) => expect(inRand(usd, rate)).toBe(rand));

it("formatPrice: dollars alone without a rate; with one, the rand in brackets with the rate and its day", () => {
  expect(formatPrice(4500, undefined)).toBe("USD 4,500");
  expect(formatPrice(4500, zarRate(18.4, "2026-11-30"))).toBe("USD 4,500 (about R 82,800 at R 18.40 to the dollar, 30 Nov 2026)");
});
