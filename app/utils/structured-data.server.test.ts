import { expect, it } from "vitest";
import { site } from "~/content/site";
import { agencyJsonLd } from "./structured-data.server";

// The JSON-LD the home page serves (its type, name, address, number, logo, links): tests/home.spec.ts.
it("names every area the site facts say the agency serves", () => {
  expect(agencyJsonLd().areaServed.map((a) => a.name)).toEqual([...site.areaServed]);
});
