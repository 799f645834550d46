/**
 * What the tests need to check a page against its Content-Security-Policy: the inline scripts'
 * hashes compared with the header (HTTP), and every violation a real browser reports (JavaScript).
 */
import { createHash } from "node:crypto";
import type { Page } from "@playwright/test";
import { messages } from "../../app/content/messages";
import { expect } from "./fixtures";
import { calculator, fillDetails, progress } from "./wizard";

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

/** Every page, the services tabs, the work filter, then the whole wizard sent (JavaScript on). */
export async function walkTheSite(page: Page, paths: string[], company: string) {
  for (const path of paths) {
    await page.goto(path);
    expect(await page.evaluate(() => "__remixRouter" in window), path).toBe(true);
  }
  await page.goto("/work");
  await page.getByRole("navigation", { name: "Filter projects by category" }).getByRole("link", { name: "AI Solutions" }).click();
  await expect(page).toHaveURL(/category=ai/);
  await page.goto("/?utm_source=newsletter&gclid=abc");
  await page.getByRole("tab", { name: "Zoho Solutions" }).click();
  await expect(page.getByRole("tab", { name: "Zoho Solutions" })).toHaveAttribute("aria-selected", "true");
  const calc = calculator(page);
  for (const choice of ["AI Solutions", "Standard (3-4 weeks)", "Medium"]) await calc.getByRole("button", { name: choice, exact: true }).click();
  await calc.getByLabel("Project description").fill("A support chat assistant");
  await calc.getByRole("button", { name: "Continue" }).click();
  await fillDetails(page, { company, email: "csp@example.co.za", phone: "+27 11 555 0199" });
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
  await expect(progress(page)).toHaveText("Step 1 of 5");
}
