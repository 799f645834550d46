import { describe, expect, it } from "vitest";
import { landingOfReferer, sourceOfLanding } from "./count.server";
import { classify, refusal, sourceKey, sourceOfKey, sourceParts, sourceWords, type Source } from "./source";

const settings = { names: new Set(["spring", "spring-offer"]), sites: ["example.co.za", "agency-blog.com"] };
const utm = (...values: string[]) => classify(values, "", ["site.example"], settings);
const from = (host: string) => classify([], host, ["site.example"], settings);

describe("a visit's source is a name the agency gave or a kind of place, never free text", () => {
  it("a campaign counts by name when each utm value is common vocabulary or listed", () => {
    expect(utm("Newsletter", "EMAIL", "spring")).toEqual({ kind: "campaign", source: "newsletter", medium: "email", campaign: "spring" });
    expect(utm("google", "cpc", "")).toEqual({ kind: "campaign", source: "google", medium: "cpc" });
    expect(utm("linkedin", "paid social", "Spring Offer")).toEqual({ kind: "campaign", source: "linkedin", medium: "paid-social", campaign: "spring-offer" });
  });
  it("an unlisted or personal-looking value makes the whole source other, written nowhere", () => {
    const other = ["newsletter|email|jane@x.co", "||jane@x.co", "newsletter|email|john.smith-082-555-1234", "thandi.nkosi(at)gmail.com||"];
    // "|email|spring": a campaign names its source.
    for (const values of [...other, "newsletter|email|thandi＠gmail.com", "newsletter|email|summer", "|email|spring", "direct||"])
      expect(utm(...values.split("|")), values).toEqual({ kind: "other" });
    // A full-width letter is the letter: the listed name, not a new one.
    expect(utm("ｎｅｗｓｌｅｔｔｅｒ", "email", "spring")).toMatchObject({ source: "newsletter" });
  });
  it("a campaign's content and term are kept when common vocabulary or listed; otherwise dropped, the campaign still itself", () => {
    const spring = { kind: "campaign", source: "linkedin", medium: "social", campaign: "spring" } as const;
    expect(utm("linkedin", "social", "spring", "Spring Offer", "video")).toEqual({ ...spring, content: "spring-offer", term: "video" });
    expect(utm("linkedin", "social", "spring", "", "banner")).toEqual({ ...spring, term: "banner" });
    // Free text, or what may name someone, is dropped: never "other" for it, and kept nowhere.
    for (const [content, term] of [
      ["post by jane@x.co", "0825551234"],
      ["summer", "web design agency"],
    ])
      expect(utm("linkedin", "social", "spring", content!, term!), `${content} ${term}`).toEqual(spring);
    // A content or term alone is no campaign: the visit is what its referrer says.
    expect(classify(["", "", "", "spring", "video"], "www.google.com", ["site.example"], settings)).toEqual({ kind: "search", name: "google" });
  });
  it("a referring site: listed hosts by name, search engines, social networks and assistants by class, anything else a link", () => {
    expect(from("www.google.co.za")).toEqual({ kind: "search", name: "google" });
    expect(from("duckduckgo.com")).toEqual({ kind: "search", name: "duckduckgo" });
    expect(from("www.linkedin.com")).toEqual({ kind: "social", name: "linkedin" });
    expect(from("t.co")).toEqual({ kind: "social", name: "x" });
    expect(from("chatgpt.com")).toEqual({ kind: "assistant", name: "chatgpt" });
    expect(from("example.co.za")).toEqual({ kind: "site", host: "example.co.za" });
    expect(from("blog.agency-blog.com:443")).toEqual({ kind: "site", host: "agency-blog.com" });
    expect(from("john-doe-0825551234.example.com")).toEqual({ kind: "link" });
    expect(from("notgoogle.com")).toEqual({ kind: "link" });
    expect(from("site.example")).toEqual({ kind: "direct" }); // our own pages are no source
    expect(from("")).toEqual({ kind: "direct" });
  });
  it("has one key a funnel counts by, read back as the same source", () => {
    const sources: Source[] = [
      { kind: "campaign", source: "newsletter", medium: "email", campaign: "spring" },
      { kind: "campaign", source: "partner" },
      { kind: "campaign", source: "flyer", campaign: "spring" },
      { kind: "campaign", source: "linkedin", medium: "social", campaign: "spring", content: "video" },
      { kind: "campaign", source: "google", medium: "cpc", campaign: "spring", term: "spring-offer" },
      { kind: "search", name: "google" },
      { kind: "site", host: "example.co.za" },
      { kind: "link" },
      { kind: "direct" },
      { kind: "other" },
    ];
    for (const source of sources) expect(sourceOfKey(sourceKey(source))).toEqual(source);
    expect(sourceKey(sources[0]!)).toBe("newsletter/email/spring");
    expect(sourceKey(sources[2]!)).toBe("flyer//spring");
    expect(sourceKey(sources[3]!)).toBe("linkedin/social/spring/video");
    expect(sourceKey(sources[4]!)).toBe("google/cpc/spring//spring-offer");
    expect(sourceOfKey("a/b/c/d/e/f")).toBeUndefined();
    expect(sourceOfKey("evil:thing")).toBeUndefined();
  });
  it("in words for the agency, and as parts for a CRM or webhook", () => {
    const spring = { kind: "campaign", source: "newsletter", medium: "email", campaign: "spring-offer" } as const;
    expect(sourceWords(spring)).toBe("Came from: newsletter, email, spring-offer");
    expect(sourceWords({ ...spring, content: "video", term: "banner" })).toBe("Came from: newsletter, email, spring-offer, content video, term banner");
    expect(sourceWords({ kind: "link" })).toBe("Came from: a link on another site");
    expect(sourceWords({ kind: "direct" })).toBe("Came directly");
    expect(sourceWords({ kind: "search", name: "google" })).toBe("Came from: a search on google");
    const parts = {
      kind: "campaign",
      utm_source: "newsletter",
      utm_medium: "email",
      utm_campaign: "",
      utm_content: "",
      utm_term: "",
      referrer: "",
      text: "newsletter, email",
    };
    expect(sourceParts({ kind: "campaign", source: "newsletter", medium: "email" })).toEqual(parts);
    expect(sourceParts({ ...spring, content: "video" })).toMatchObject({ utm_campaign: "spring-offer", utm_content: "video", utm_term: "" });
    expect(sourceParts({ kind: "site", host: "example.co.za" })).toMatchObject({ referrer: "example.co.za", text: "a link on example.co.za" });
  });
});

describe("what the operator may list", () => {
  it("a campaign name or host the source rule keeps, as typed; anything else refused, saying why", () => {
    for (const name of ["autumn", "Spring_Offer", "jhb-search.2026", "ｓｐｒｉｎｇ"]) expect(refusal("campaigns", name), name).toBeUndefined();
    for (const host of ["example.co.za", "www.Agency-Blog.com", "blog.example.org:8080"]) expect(refusal("sites", host), host).toBeUndefined();
    const refused: [string, "campaigns" | "sites", RegExp][] = [
      ["jane@x.co", "campaigns", /an @/],
      ["thandi＠gmail.com", "sites", /an @/],
      ["call-0825551234", "campaigns", /seven or more digits/],
      ["ad1234567.example.com", "sites", /seven or more digits/],
      ["spring offer", "campaigns", /a space/],
      ["example .co.za", "sites", /a space/],
      ["x".repeat(41), "campaigns", /longer than 40/],
      [`${"a".repeat(35)}.co.za`, "sites", /longer than 40/],
      ["direct", "campaigns", /a word a source's key is made of/],
      ["spring/2026", "campaigns", /only a-z, 0-9/],
      ["-spring", "campaigns", /starts with a letter or digit/],
      ["localhost", "sites", /not a host name/],
      ["https://example.co.za/blog", "sites", /not a host name/],
    ];
    for (const [value, list, why] of refused) expect(refusal(list, value), value).toMatch(why);
  });
});

describe("a visit's landing", () => {
  // An action's request, as the server hands it to Remix: without its Origin (server/remix-handler.ts).
  const on = (headers: Record<string, string> = {}) => new Request("http://site.example/steps", { method: "POST", headers });
  const land = (landing: string | undefined) => sourceOfLanding(landing, on(), settings);
  const page = (query: string) => landingOfReferer(on({ referer: `http://site.example/${query}` }));
  it("posted with JavaScript; without it, the utm values of the page the form was on", () => {
    expect(land("?utm_source=google&utm_medium=cpc ")).toEqual({ kind: "campaign", source: "google", medium: "cpc" });
    expect(land(" news.example.org")).toEqual({ kind: "link" });
    expect(land("?draft=x site.example")).toEqual({ kind: "direct" });
    expect(land(undefined)).toEqual({ kind: "direct" });
    expect(land(`?utm_source=${"x".repeat(2001)}`)).toEqual({ kind: "other" });
    expect(land(page("?utm_source=flyer&utm_medium=print&gclid=abc"))).toEqual({ kind: "campaign", source: "flyer", medium: "print" });
    // utm_content and utm_term too, with JavaScript and without; nothing else of the query.
    const tagged = "?utm_source=linkedin&utm_medium=social&utm_campaign=spring&utm_content=video&utm_term=banner&utm_id=jane";
    expect(page(tagged)).toBe("?utm_source=linkedin&utm_medium=social&utm_campaign=spring&utm_content=video&utm_term=banner ?");
    for (const landing of [`${tagged} `, page(tagged)]) expect(land(landing)).toMatchObject({ campaign: "spring", content: "video", term: "banner" });
    expect(land(page("?utm_source=news/letter"))).toEqual({ kind: "other" });
    // A space or slash inside a value stays inside it (a query has no space): "Spring Offer" is spring-offer, "spring/2026" no campaign.
    expect(land("?utm_source=newsletter&utm_medium=email&utm_campaign=Spring+Offer www.example.co.za")).toMatchObject({ campaign: "spring-offer" });
    expect(land("?utm_source=newsletter&utm_campaign=spring%2F2026 ")).toEqual({ kind: "other" });
    expect(land("?utm_campaign=%20google.com ")).toEqual({ kind: "other" });
    // Without JavaScript only the utm values and the ad click id's name are kept (the calculator's draft carries the landing).
    expect(page("?utm_source=flyer&email=jane%40x.co&gclid=Cj0KCQ-secret")).toBe("?utm_source=flyer&gclid= ?");
    // Without a script the referring site is not known: a visit without utm values is "unknown", never "direct".
    expect(land(page("?draft=abc&step=2"))).toEqual({ kind: "unknown" });
    expect(land(landingOfReferer(on()))).toEqual({ kind: "unknown" });
  });
  it("an ad click id's presence, never its value, makes an untagged visit the ad network's paid click", () => {
    expect(page("?gclid=Cj0KCQ-secret")).not.toContain("Cj0KCQ");
    expect(land(page("?gclid=Cj0KCQ-secret"))).toEqual({ kind: "campaign", source: "google", medium: "cpc" });
    expect(land("?msclkid=abc www.bing.com")).toEqual({ kind: "campaign", source: "bing", medium: "cpc" });
    // fbclid rides on every link out of Facebook, paid or not: the referrer says more.
    expect(land("?fbclid=IwAR0 m.facebook.com")).toEqual({ kind: "social", name: "facebook" });
    // Tagged links say what they are, whatever the click id.
    expect(land("?utm_source=newsletter&utm_medium=email&utm_campaign=spring&gclid=x ")).toMatchObject({ source: "newsletter" });
  });
  it("is the same for an action and the beacon behind a proxy that rewrites Host: this site is the request's host and SITE_ORIGIN's", () => {
    // The proxy passes the site 127.0.0.1:3000 as Host; the visitor's browser knows it as www.kopano.example.
    const proxied = (origin?: string) => new Request("http://127.0.0.1:3000/steps", { method: "POST", headers: origin ? { origin } : {} });
    const ours = { ...settings, ownHosts: ["www.kopano.example"] };
    const landing = "?draft=x www.kopano.example";
    const [action, beacon] = [sourceOfLanding(landing, proxied(), ours), sourceOfLanding(landing, proxied("https://www.kopano.example"), ours)];
    expect([action, beacon]).toEqual([{ kind: "direct" }, { kind: "direct" }]);
    // An Origin is never taken for this site's host: a beacon can send any.
    expect(sourceOfLanding(" news.example.org", proxied("https://news.example.org"), settings)).toEqual({ kind: "link" });
  });
});
