import { describe, expect, it } from "vitest";
import { site } from "~/content/site";
import { seo } from "./seo";

describe("seo", () => {
  it("gives every page a title, description, Open Graph tags and a canonical URL on the site's origin", () => {
    const tags = seo({ title: "About us", description: "Who we are.", path: "/about" });
    expect(tags).toContainEqual({ title: `About us | ${site.name}` });
    expect(tags).toContainEqual({ name: "description", content: "Who we are." });
    expect(tags).toContainEqual({ property: "og:title", content: `About us | ${site.name}` });
    expect(tags).toContainEqual({ property: "og:url", content: new URL("/about", site.url).href });
    expect(tags).toContainEqual({ tagName: "link", rel: "canonical", href: new URL("/about", site.url).href });
  });

  it("puts the agency's name first on the home page", () => {
    expect(seo({ title: "Software, SEO and AI", description: "d", path: "/" })[0]).toEqual({ title: `${site.name} | Software, SEO and AI` });
  });
});
