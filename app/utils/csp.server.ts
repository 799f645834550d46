/**
 * The Content-Security-Policy, in one place for the server (every answer) and entry.server
 * (documents). A document allows exactly the inline scripts it carries, by their SHA-256, so the
 * page is the same bytes for every visitor and any cache may keep it (decision 0014). Scripts
 * from our own origin (the /build/ modules and their imports) are allowed by 'self'.
 */
import { createHash } from "node:crypto";

/**
 * The policy. `scriptHashes` are `sha256-…` sources for the document's inline scripts; without
 * them (JSON, text, assets) no inline script may run at all. Development adds the websocket
 * Remix's live reload talks to.
 * No 'strict-dynamic': Chromium lets a hash-allowed module's imports and Remix's modulepreloads
 * through with it, but 'self' admits only our own built files already (the site serves nothing a
 * visitor uploaded), and 'strict-dynamic' would switch 'self' off in every browser (decision 0014).
 */
export function contentSecurityPolicy(scriptHashes: readonly string[] = [], { dev = false } = {}): string {
  const directives: [string, ...string[]][] = [
    ["default-src", "'self'"],
    ["script-src", "'self'", ...scriptHashes.map((hash) => `'${hash}'`)],
    ["style-src", "'self'"],
    ["img-src", "'self'", "data:"],
    ["font-src", "'self'"],
    ["connect-src", "'self'", ...(dev ? ["ws:"] : [])],
    ["form-action", "'self'"],
    ["frame-ancestors", "'none'"],
    ["base-uri", "'self'"],
    ["object-src", "'none'"],
  ];
  return directives.map((words) => words.join(" ")).join(";");
}

/**
 * React writes a script's text verbatim and escapes `>` inside attribute values, so in its
 * output an inline script is exactly `<script …>text</script>`: what the browser hashes.
 */
const SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi;
const SRC = /\ssrc\s*=/i;
const TYPE = /\stype\s*=\s*"([^"]*)"/i;

/**
 * `sha256-…` of every inline script the browser would run, in document order, without repeats.
 * Scripts with `src` load from 'self'; data blocks (`application/ld+json`, any JSON type) never
 * run, so CSP does not apply to them and they need no hash.
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const [, attributes = "", text = ""] of html.matchAll(SCRIPT)) {
    if (SRC.test(attributes) || /json/i.test(TYPE.exec(attributes)?.[1] ?? "")) continue;
    // The HTML parser turns CRLF and lone CR into LF before the script's text exists.
    hashes.add(`sha256-${createHash("sha256").update(text.replace(/\r\n?/g, "\n"), "utf8").digest("base64")}`);
  }
  return [...hashes];
}
