import { describe, expect, it } from "vitest";
import { site } from "~/content/site";
import { agencyJsonLd } from "./structured-data";

describe("agencyJsonLd", () => {
  it("describes the agency from the site facts, with every field search engines read", () => {
    const data = agencyJsonLd();
    expect(data["@type"]).toBe("ProfessionalService");
    expect(data.name).toBe(site.name);
    expect(data.url).toBe(`${site.url}/`);
    expect(data.logo).toMatch(/^https:\/\/.+\.png$/);
    expect(data.email).toBe(site.email);
    expect(data.telephone).toBe("+27104462817");
    expect(data.address).toEqual({ "@type": "PostalAddress", addressLocality: "Johannesburg", addressCountry: "ZA" });
    expect(data.areaServed.map((a) => a.name)).toEqual([...site.areaServed]);
    expect(data.sameAs).toEqual([site.social.url]);
  });
});
