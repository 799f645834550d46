import { test as base } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { fakeFormClient } from "./fake-form-service";
import { sites } from "./sites";

type FormService = ReturnType<typeof fakeFormClient> & {
  token: string;
  /** What arrived once deliveries have had time to happen: for checking that nothing was sent. */
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
    // Leads go out in the background within milliseconds of being stored; give them a moment.
    const settled = () => new Promise((resolve) => setTimeout(resolve, 750)).then(() => client.received());
    await use({ ...client, token, settled });
  },
});

export { expect } from "@playwright/test";
