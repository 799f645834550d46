import { type APIRequestContext, expect, test as base, type Locator, type Page } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { fakeFormClient } from "./fake-form-service";
import { sites } from "./sites";

type FormService = ReturnType<typeof fakeFormClient> & {
  token: string;
  /** What arrived once the site has no lead left to deliver (its `leads_pending` is 0): after a visitor's answer, every lead it made. */
  settled(): Promise<unknown[]>;
};

let clients = 0;
/** A client of its own: a documentation-range IPv6 address (RFC 3849) in its own /64, so its own rate-limit bucket on the sites (which trust X-Forwarded-For). */
export const newClient = () => `2001:db8:${base.info().workerIndex.toString(16)}:${(++clients).toString(16)}::1`;

export const test = base.extend<{ formService: FormService; stranger: APIRequestContext }>({
  // Every test's page and request context come from a client of their own.
  extraHTTPHeaders: async ({ extraHTTPHeaders }, use) => {
    await use({ ...extraHTTPHeaders, "X-Forwarded-For": newClient() });
  },
  /** The project's fake form service for this test: what carries `token` (say in a company name) is `received()`. */
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
  /** Someone else's client: its own address and its own cookies. */
  stranger: async ({ playwright, baseURL }, use) => {
    const other = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { "X-Forwarded-For": newClient() } });
    await use(other);
    await other.dispose();
  },
});

export { expect };

/** One request to the `js` site from a client of its own, the path as written (fetch tidies some), the body as on the wire. */
export function raw(path: string, { method = "GET", headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = httpRequest(`${sites.js.url}/`, { method, path, headers: { "X-Forwarded-For": newClient(), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject).end(body);
  });
}

/** A screenshot to look at (in the test's folder under test-results/), only with SCREENSHOTS=1: it asserts nothing. */
export async function forTheEye(target: Page | Locator, name: string, { fullPage = false } = {}) {
  if (!process.env.SCREENSHOTS) return;
  const path = base.info().outputPath(`${name}.png`);
  await ("goto" in target ? target.screenshot({ path, fullPage }) : target.screenshot({ path }));
}

/** Clicks `target` on a still page: a `fill` out of view leaves a smooth scroll running that can move a link between press and release. */
export async function clickStill(target: Locator) {
  await target.evaluate((el) => el.scrollIntoView({ block: "center", behavior: "instant" }));
  await target.click();
}

/** Wholly in view and not under the fixed header. */
export async function expectBelowHeader(target: Locator) {
  await expect(target).toBeInViewport({ ratio: 1 });
  const header = (await target.page().locator(".site-header").boundingBox())!;
  expect((await target.boundingBox())!.y).toBeGreaterThanOrEqual(header.y + header.height);
}

/** The words each match shows: its own text, not a visually hidden part in a child; a submit input's value. */
export const shownWords = (targets: Locator) =>
  targets.evaluateAll((els) =>
    els.map((el) =>
      el instanceof HTMLInputElement
        ? el.value
        : [...el.childNodes]
            .filter((n) => n.nodeType === Node.TEXT_NODE)
            .map((n) => n.textContent)
            .join("")
            .trim(),
    ),
  );

/** Resolves once React has hydrated the page: it marks the elements it owns. */
export const hydrated = (page: Page) =>
  expect.poll(() => page.locator("main").evaluate((main) => Object.keys(main).some((k) => k.startsWith("__reactFiber")))).toBe(true);

/** Pages in a PDF that Chromium made: its page objects (`/Type /Page`, not the `/Pages` tree). */
export const pdfPages = (pdf: Buffer) => (pdf.toString("latin1").match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;
/** A4 with the margins a browser's print dialog leaves by default (about 10 mm; page.pdf's own are 0). */
export const A4 = { format: "A4", margin: { top: "10mm", right: "10mm", bottom: "10mm", left: "10mm" } } as const;
