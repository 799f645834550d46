/**
 * One address per path. `//`, `/./`, `/%2e/`, `/services/`, `/%73ervices` and `/work\` all name
 * a page the router would render; a page rendered at such an address resolves its relative links
 * against it (`//?service=seo` is another host to a browser) and a shared cache keeps one more copy.
 * The server answers them with a 301 to the path below before anything renders (server/index.ts).
 */

/** Anything in a path that may not be canonical: a backslash, an escape, `//`, a dot segment, a trailing `/`. */
const MAYBE_ODD = /[\\%]|\/\/|\/\.\.?(?:\/|$)|.\/$/;
const UNRESERVED = /^[A-Za-z0-9._~-]$/;

/**
 * The canonical form of a request's path (RFC 3986 §6.2.2, as a browser reads it): backslashes
 * are slashes (WHATWG URL), escapes of unreserved characters are decoded and the others upper
 * case, dot segments are resolved (never above the root), empty segments and a trailing slash are
 * dropped. A path that does not decode is returned as it is: Express refuses it (400).
 */
export function canonicalPath(path: string): string {
  if (!MAYBE_ODD.test(path)) return path;
  try {
    decodeURIComponent(path);
  } catch {
    return path;
  }
  const decoded = path.replace(/\\/g, "/").replace(/%[0-9A-Fa-f]{2}/g, (escape) => {
    const char = String.fromCharCode(parseInt(escape.slice(1), 16));
    return UNRESERVED.test(char) ? char : escape.toUpperCase();
  });
  const segments: string[] = [];
  for (const segment of decoded.split("/")) {
    if (segment === "..") segments.pop();
    else if (segment !== "" && segment !== ".") segments.push(segment);
  }
  return `/${segments.join("/")}`;
}
