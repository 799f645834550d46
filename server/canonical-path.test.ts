import { describe, expect, it } from "vitest";
import { canonicalPath } from "./canonical-path";

// What oneAddress answers with (a 301 cacheable for an hour, a post refused unread, a page path in odd
// case sent to its lowercase path) is tests/canonical-paths.spec.ts's, on the real server.

describe("canonicalPath", () => {
  it.each("/ /work /services /build/entry.client-SJGYHRFX.js /.well-known/security.txt /caf%C3%A9 /work%2F /%2F /a/... /%5Cevil.example".split(" "))(
    "%s is canonical",
    (path) => expect(canonicalPath(path)).toBe(path),
  );

  it.each([
    ["//", "/"],
    ["///", "/"],
    ["///work", "/work"],
    ["/work//", "/work"],
    ["/work/", "/work"],
    ["/./", "/"],
    ["/%2e/", "/"],
    ["/%2E%2e/", "/"],
    ["/..", "/"],
    ["/../../work", "/work"],
    ["/work/../about", "/about"],
    ["/about/.", "/about"],
    ["/services/", "/services"],
    ["/%73ervices", "/services"],
    ["/%7Eteam%2d%5F", "/~team-_"],
    ["/caf%c3%a9", "/caf%C3%A9"],
    ["/%2f", "/%2F"],
    ["/\\", "/"],
    ["/\\evil.example", "/evil.example"],
    ["//evil.example/", "/evil.example"],
    ["/work\\", "/work"],
    ["/build//x.js", "/build/x.js"],
  ])("%s → %s", (path, canonical) => {
    expect(canonicalPath(path)).toBe(canonical);
    expect(canonicalPath(canonical)).toBe(canonical);
  });

  it("never answers with a path a browser reads as another host", () => {
    const paths = String.raw`//evil.example /\evil.example /.//evil.example /%2e//evil.example /..//evil.example /\/evil.example /%5C/evil.example/`;
    for (const path of paths.split(" ")) expect(canonicalPath(path)).toMatch(/^\/(?![/\\])/);
  });

  it("leaves a path that does not decode to Express, which refuses it", () => {
    for (const path of ["/%", "/%zz/", "/%C3/", "/a/%"]) expect(canonicalPath(path)).toBe(path);
  });
});
