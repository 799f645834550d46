import { rm } from "node:fs/promises";
import { startFakeFormService } from "./fake-form-service";
import { e2eDir, sites } from "./sites";

/** Starts one fake form service per site that has a key, and empties the outbox directory. */
export default async function globalSetup() {
  await rm(e2eDir, { recursive: true, force: true });
  const services = await Promise.all(
    Object.values(sites)
      .filter((site) => site.formServiceUrl)
      .map((site) => startFakeFormService({ port: Number(new URL(site.formServiceUrl!).port) })),
  );
  return async () => {
    await Promise.all(services.map((s) => s.close()));
  };
}
