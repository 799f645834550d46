import { describe, expect, it } from "vitest";
import { isSource, landingOfReferer, sourceOf, sourceOfLanding } from "./count.server";

describe("a visit's source", () => {
  it("a campaign's utm values, lower case and tidy; else the referring site's host; else direct", () => {
    expect(sourceOf(["Newsletter", "e-mail", "Spring Sale 2026"], "www.google.com", "site.example")).toBe("newsletter/e-mail/spring-sale-2026");
    expect(sourceOf(["partner", "", ""], "", "site.example")).toBe("partner");
    // A value that may name someone (mail tools put addresses and ids in campaign links) is "other".
    expect(sourceOf(["newsletter", "email", "thabo.nkosi@acme.co.za"], "", "site.example")).toBe("newsletter/email/other");
    expect(sourceOf(["newsletter", "email", "sub-0821234567"], "", "site.example")).toBe("newsletter/email/other");
    expect(sourceOf(["thabo%40acme.co.za", "", ""], "", "site.example")).toBe("other");
    expect(sourceOf(["", "cpc", ""], "www.google.com", "site.example")).toBe("google.com");
    expect(sourceOf([], "site.example", "site.example:443")).toBe("direct"); // our own pages are no source
    expect(sourceOf([], "", "site.example")).toBe("direct");
    expect(sourceOf([], "bad host!", "site.example")).toBe("direct");
  });
  it("what is counted is a short, plain word: anything else is not a source", () => {
    for (const good of ["direct", "google.com", "newsletter/email/spring", "partner//q4"]) expect(isSource(good)).toBe(true);
    for (const bad of ["", "<script>", "a/b/c/d", "UPPER", "x".repeat(41), 7]) expect(isSource(bad)).toBe(false);
  });
  it("of a landing posted with JavaScript; without it, of the utm values of the page the form was on", () => {
    const on = (headers: Record<string, string> = {}) =>
      new Request("http://site.example/steps", { method: "POST", headers: { origin: "http://site.example", ...headers } });
    expect(sourceOfLanding("ads/cpc/ ", on())).toBe("ads/cpc");
    expect(sourceOfLanding("// news.example.org", on())).toBe("news.example.org");
    expect(sourceOfLanding("// site.example", on())).toBe("direct");
    expect(sourceOfLanding(undefined, on())).toBe("direct");
    expect(sourceOfLanding("x".repeat(601), on())).toBe("direct");
    expect(sourceOfLanding(landingOfReferer(on({ referer: "http://site.example/?utm_source=flyer&utm_medium=print" })), on())).toBe("flyer/print");
    expect(sourceOfLanding(landingOfReferer(on({ referer: "http://site.example/?draft=abc&step=2" })), on())).toBe("direct");
    expect(landingOfReferer(on())).toBe("");
  });
});

describe("the landing's key", () => {
  it("is the one root.tsx writes (written out there to spare the page a script)", async () => {
    const { readFileSync } = await import("node:fs");
    const { LANDING_KEY } = await import("./visit");
    expect(readFileSync(new URL("../root.tsx", import.meta.url), "utf8")).toContain(`sessionStorage.setItem(\n          "${LANDING_KEY}",`);
  });
});
