import { expect, test as base, type Locator, type Page } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { fakeFormClient } from "./fake-form-service";
import { sites } from "./sites";

type FormService = ReturnType<typeof fakeFormClient> & {
  token: string;
  /**
   * What arrived once the site has no lead left to deliver (its `leads_pending` metric is 0): a
   * lead is stored before the visitor's answer, so after that answer every lead it made has
   * reached the service. For checking that nothing (or exactly one thing) was sent.
   */
  settled(): Promise<unknown[]>;
};

let clients = 0;
/**
 * A client of its own: a documentation-range IPv6 address (RFC 3849), unique across workers, in
 * its own /64, so its own rate-limit bucket on the e2e servers (which trust X-Forwarded-For).
 */
export const newClient = () => `2001:db8:${base.info().workerIndex.toString(16)}:${(++clients).toString(16)}::1`;

export const test = base.extend<{ formService: FormService }>({
  // Every test's page and request context come from a client of their own.
  extraHTTPHeaders: async ({ extraHTTPHeaders }, use) => {
    await use({ ...extraHTTPHeaders, "X-Forwarded-For": newClient() });
  },
  /**
   * The fake form service behind this project's site, scoped to this test: tests in one project
   * share a service and run in parallel, so each puts `token` in what it submits (e.g. in the
   * company name); modes and `received()` then concern only its own submissions.
   */
  formService: async ({}, use, testInfo) => {
    const site = testInfo.project.name === "no-js" ? sites.noJs : sites.js;
    const token = `t${randomUUID().slice(0, 8)}`;
    const client = fakeFormClient(site.formServiceUrl!, token);
    const pending = async () => Number(/^leads_pending\{[^}]*\} (\d+)$/m.exec(await (await fetch(site.metricsUrl!)).text())?.[1]);
    const settled = async () => {
      await expect.poll(pending, { message: "the site's leads_pending", intervals: [25, 50, 100] }).toBe(0);
      return client.received();
    };
    await use({ ...client, token, settled });
  },
});

export { expect };

/**
 * A screenshot to look at (in the test's folder under test-results/), taken only with
 * SCREENSHOTS=1: it asserts nothing, and a full page costs a second or more.
 */
export async function forTheEye(target: Page | Locator, name: string, { fullPage = false } = {}) {
  if (!process.env.SCREENSHOTS) return;
  const path = base.info().outputPath(`${name}.png`);
  await ("goto" in target ? target.screenshot({ path, fullPage }) : target.screenshot({ path }));
}

/**
 * Clicks `target` on a still page. Focusing a field the page must scroll to (as `fill` does)
 * scrolls it smoothly (the site's `html:focus-within { scroll-behavior: smooth }`), and the
 * scroll goes on after `fill` returns; on a busy machine it can move a link between Playwright's
 * press and release, so the release lands beside it: no click, and no navigation. Bringing the
 * target into view at once ends that scroll (a new scroll aborts a smooth one), as a visitor's
 * click comes after the page has stopped.
 */
export async function clickStill(target: Locator) {
  await target.evaluate((el) => el.scrollIntoView({ block: "center", behavior: "instant" }));
  await target.click();
}

/** Resolves once React has hydrated the page: it marks the elements it owns. */
export const hydrated = (page: Page) =>
  expect.poll(() => page.locator("main").evaluate((main) => Object.keys(main).some((k) => k.startsWith("__reactFiber")))).toBe(true);

/** Pages in a PDF that Chromium made: its page objects (`/Type /Page`, not the `/Pages` tree). */
export const pdfPages = (pdf: Buffer) => (pdf.toString("latin1").match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;
/** A4 with the margins a browser's print dialog leaves by default (about 10 mm; page.pdf's own are 0). */
export const A4 = { format: "A4", margin: { top: "10mm", right: "10mm", bottom: "10mm", left: "10mm" } } as const;
