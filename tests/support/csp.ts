/**
 * What the tests need to check a page against its Content-Security-Policy: the inline scripts'
 * hashes compared with the header (HTTP), and every violation a real browser reports (JavaScript).
 */
import { createHash } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect } from "./fixtures";

/** The `sha256-…` sources in a CSP's script-src, and those of every inline script a browser would run. */
function scriptHashes(csp: string, html: string) {
  const scriptSrc = csp.split(";").find((d) => d.trim().startsWith("script-src")) ?? "";
  const allowed = [...scriptSrc.matchAll(/'(sha256-[^']+)'/g)].map((m) => m[1]!);
  const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
    .filter(([, attributes]) => !/\ssrc=/i.test(attributes!) && !/type="application\/(ld\+)?json"/i.test(attributes!))
    .map(([, , text]) => `sha256-${createHash("sha256").update(text!).digest("base64")}`);
  return { scriptSrc, allowed, inline };
}

/** The page's CSP allows exactly its inline scripts, no unsafe source, and nothing carries a nonce. */
export function expectHashedScripts(csp: string | undefined, html: string, what: string) {
  expect(csp, what).toBeTruthy();
  expect(`${csp}\n${html}`, what).not.toMatch(/nonce/i);
  const { scriptSrc, allowed, inline } = scriptHashes(csp!, html);
  expect(scriptSrc, what).not.toMatch(/unsafe-inline|unsafe-eval/);
  expect(inline.length, what).toBeGreaterThan(0);
  expect(new Set(allowed), what).toEqual(new Set(inline));
}

/** Collects every CSP violation the browser reports on this page, across navigations. */
export async function watchCsp(page: Page): Promise<string[]> {
  const violations: string[] = [];
  await page.exposeFunction("__cspViolation", (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      (window as unknown as { __cspViolation(t: string): void }).__cspViolation(`${location.pathname}: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  page.on("console", (m) => /Content Security Policy|Refused to/i.test(m.text()) && violations.push(m.text()));
  page.on("pageerror", (e) => violations.push(`pageerror: ${e.message}`));
  return violations;
}
