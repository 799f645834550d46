import { execFileSync } from "node:child_process";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { reap, runAlive } from "../../scripts/test-run.mjs";
import { startFakeFormService } from "./fake-form-service";
import { e2eRoot, sites } from "./sites";

/** One fake form service per site with a key; the data folders (and tmpfs mounts) of ended runs removed. */
export default async function globalSetup() {
  await reap(); // what a killed run left (the test command does this too, before it builds)
  const mounts = (await readFile("/proc/mounts", "utf8").catch(() => "")).split("\n").map((line) => line.split(" ")[1] ?? "");
  for (const run of await readdir(e2eRoot).catch(() => [])) {
    const dir = join(e2eRoot, run);
    if (runAlive(run)) continue;
    for (const mount of mounts.filter((m) => m.startsWith(`${dir}/`))) execFileSync("umount", ["-l", mount]);
    await rm(dir, { recursive: true, force: true });
  }
  const services = await Promise.all(
    Object.values(sites)
      .filter((site) => site.formServiceUrl)
      .map((site) => startFakeFormService({ port: Number(new URL(site.formServiceUrl!).port) })),
  );
  return async () => {
    await Promise.all(services.map((s) => s.close()));
  };
}
