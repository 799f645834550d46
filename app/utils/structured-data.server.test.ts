import { describe, expect, it } from "vitest";
import { site } from "~/content/site";
import { agencyJsonLd } from "./structured-data.server";

describe("agencyJsonLd", () => {
  it("describes the agency from the site facts, with every field search engines read", () => {
    const data = agencyJsonLd();
    expect(data["@type"]).toBe("ProfessionalService");
    expect(data.name).toBe(site.name);
    expect(data.url).toBe(`${site.url}/`);
    expect(data.logo).toMatch(/^https:\/\/.+\.png$/);
    expect(data.email).toBe(site.email);
    // schema.org wants the number in international form, the one the tel: links dial.
    expect(data.telephone).toMatch(/^\+\d{8,15}$/);
    expect(site.phoneHref).toBe(`tel:${data.telephone}`);
    expect(data.address).toEqual({ "@type": "PostalAddress", addressLocality: site.address.city, addressCountry: site.address.countryCode });
    expect(data.address.addressCountry).toMatch(/^[A-Z]{2}$/);
    expect(data.areaServed.map((a) => a.name)).toEqual([...site.areaServed]);
    expect(data.sameAs).toEqual([site.social.url]);
  });
});
