import { test as base } from "@playwright/test";
import { fakeFormClient } from "./fake-form-service";
import { sites } from "./sites";

/** `formService`: the fake form service behind this project's site, reset to "ok" and emptied. */
export const test = base.extend<{ formService: ReturnType<typeof fakeFormClient> }>({
  formService: async ({}, use, testInfo) => {
    const site = testInfo.project.name === "no-js" ? sites.noJs : sites.js;
    const client = fakeFormClient(site.formServiceUrl!);
    await client.setMode("ok");
    await client.clear();
    await use(client);
  },
});

export { expect } from "@playwright/test";
