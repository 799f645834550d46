import { describe, expect, it } from "vitest";
import { DRAFT_LIFETIME_MINUTES, privacy } from "~/content/privacy";
import { VISIT_COOKIE, visitor, visitorOwner } from "./visitor.server";

const request = (url: string, cookie?: string) => new Request(url, cookie ? { headers: { cookie } } : {});
/** The name=value part of a Set-Cookie header, as a browser sends it back. */
const sentBack = (setCookie: string) => setCookie.split(";")[0]!;

describe("the visit cookie", () => {
  it("is HttpOnly, SameSite=Lax, for the whole site, as long as a draft lives, and Secure over HTTPS", async () => {
    const plain = (await visitor(request("http://localhost/?index"))).headers["Set-Cookie"];
    expect(plain).toMatch(new RegExp(`^${VISIT_COOKIE}=`));
    for (const part of ["HttpOnly", "SameSite=Lax", "Path=/", `Max-Age=${DRAFT_LIFETIME_MINUTES * 60}`]) expect(plain).toContain(part);
    expect(plain).not.toContain("Secure");
  });

  it("over HTTPS is a __Host- cookie (Secure, no Domain), and a plain `visit` cookie planted there opens nothing", async () => {
    const secure = await visitor(request("https://example.com/?index"));
    const set = secure.headers["Set-Cookie"];
    expect(set).toMatch(new RegExp(`^__Host-${VISIT_COOKIE}=`));
    for (const part of ["Secure", "HttpOnly", "SameSite=Lax", "Path=/"]) expect(set).toContain(part);
    expect(set).not.toContain("Domain");
    expect(await visitorOwner(request("https://example.com/", sentBack(set)))).toBe(secure.owner);
    // A sibling subdomain or a plain-HTTP answer can set `visit`, never `__Host-visit`.
    const planted = sentBack((await visitor(request("http://example.com/?index"))).headers["Set-Cookie"]);
    expect(await visitorOwner(request("https://example.com/", planted))).toBeUndefined();
  });

  it("holds only a random token: a forged or malformed value opens nothing and is replaced", async () => {
    for (const cookie of [`${VISIT_COOKIE}=`, `${VISIT_COOKIE}=abc`, `${VISIT_COOKIE}=${btoa(JSON.stringify({ owner: "x" }))}`, "other=1"]) {
      expect(await visitorOwner(request("http://localhost/", cookie))).toBeUndefined();
      expect(sentBack((await visitor(request("http://localhost/?index", cookie))).headers["Set-Cookie"])).not.toBe(cookie);
    }
  });

  it("is named in the privacy notice, with the lifetime the store and the cookie use", () => {
    const notice = JSON.stringify(privacy.sections({ formService: null, retentionDays: 30 }));
    expect(notice).toContain(`“${VISIT_COOKIE}”`);
    expect(notice).toContain(`${DRAFT_LIFETIME_MINUTES} minutes`);
  });
});
