import { test as base } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { fakeFormClient } from "./fake-form-service";
import { sites } from "./sites";

type FormService = ReturnType<typeof fakeFormClient> & { token: string };

/**
 * `formService`: the fake form service behind this project's site, scoped to this test. Tests in
 * one project share a service and run in parallel, so each test puts `token` in what it submits
 * (e.g. in the company name); modes and `received()` then concern only its own submissions.
 */
/** A documentation-range IPv6 address (RFC 3849) of its own per test: its own rate-limit bucket. */
let clients = 0;
const testClientIp = (worker: number) => `2001:db8:${worker.toString(16)}:${(++clients).toString(16)}::1`;

export const test = base.extend<{ formService: FormService }>({
  page: async ({ page }, use, testInfo) => {
    await page.setExtraHTTPHeaders({ "X-Forwarded-For": testClientIp(testInfo.workerIndex) });
    await use(page);
  },
  formService: async ({}, use, testInfo) => {
    const site = testInfo.project.name === "no-js" ? sites.noJs : sites.js;
    const token = `t${randomUUID().slice(0, 8)}`;
    await use({ ...fakeFormClient(site.formServiceUrl!, token), token });
  },
});

export { expect } from "@playwright/test";
