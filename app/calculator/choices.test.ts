import { describe, expect, it } from "vitest";
import { choicesFrom, estimateHref } from "./choices";
import { COMPLEXITY_VALUES, SERVICE_VALUES, TIMEFRAME_VALUES } from "./pricing";

const fromQuery = (query: string) => {
  const params = new URLSearchParams(query);
  return choicesFrom((name) => params.get(name));
};

describe("an estimate's address", () => {
  it("holds the three choices and nothing else, and reads back as the same choices, for every combination", () => {
    let count = 0;
    for (const service of SERVICE_VALUES)
      for (const timeframe of TIMEFRAME_VALUES)
        for (const complexity of COMPLEXITY_VALUES) {
          const href = estimateHref({ service, timeframe, complexity });
          const url = new URL(href, "https://example.com");
          expect(url.pathname).toBe("/estimate");
          expect([...url.searchParams.keys()]).toEqual(["service", "timeframe", "complexity"]);
          expect(fromQuery(url.search)).toEqual({ service, timeframe, complexity });
          count++;
        }
    expect(count).toBe(45);
  });

  it("takes the choices whatever their order or the parameters beside them", () => {
    const choices = { service: "seo", timeframe: "relaxed", complexity: "simple" };
    expect(fromQuery("complexity=simple&utm_source=chat&timeframe=relaxed&service=seo")).toEqual(choices);
  });

  const rest = "&timeframe=urgent&complexity=simple";
  it.each([
    ...["", "service=seo&timeframe=urgent", "service=seo&complexity=simple", "timeframe=urgent&complexity=simple"],
    ...[`service=SEO${rest}`, "service=seo&timeframe=urgent&complexity=%3Cscript%3E", "service=seo&timeframe=soon&complexity=simple"],
    ...[`service=${rest}`, `service=toString${rest}`],
  ])("names no estimate for %j", (query) => expect(fromQuery(query)).toBeNull());

  it("reads a stored record the same way (anything but a known value is no choice)", () => {
    const stored = { service: "ai", timeframe: "standard", complexity: "medium" };
    expect(choicesFrom((name) => stored[name as keyof typeof stored])).toEqual(stored);
    expect(choicesFrom((name) => ({ service: ["ai"], timeframe: "standard", complexity: "medium" })[name])).toBeNull();
  });
});
