/**
 * What an ops test starts, undone after it however it ends (a timeout abandons the body, not its
 * hooks), the last started first. Call once at a spec's top level.
 */
import { writeFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { startFakeFormService } from "./fake-form-service";
import { freePort } from "./ports";
import { startPostgres } from "./postgres";
import { dataDir, events, type Served, serve, sleep } from "./server";
import { e2eDir } from "./sites";
import { mountTmpfs, unmountTmpfs } from "./tmpfs.mjs";

export function startedByEachTest() {
  const started: (() => unknown)[] = [];
  test.afterEach(async () => {
    while (started.length) await started.pop()!();
  });
  return {
    /** `undo` runs after the test, with the rest. */
    undo: (undo: () => unknown) => void started.push(undo),
    async postgres() {
      const server = await startPostgres({ parent: e2eDir });
      started.push(() => server.stop());
      return server;
    },
    async fakeService() {
      const fake = await startFakeFormService({ port: await freePort() });
      started.push(() => fake.close());
      return fake;
    },
    /** A site from build/ (or `start`'s), its log kept beside the test's output. */
    site(port: number, env: Record<string, string>, start: typeof serve = serve) {
      const served = start(port, env);
      const info = test.info();
      started.push(() => {
        served.kill();
        writeFileSync(info.outputPath(`site-${port}-${served.child.pid}.log`), served.stdout() + served.stderr());
      });
      return served;
    },
    /** SIGTERM, and the clean stop's exit code 0 within 15 s (docs/operations.md) and a slow machine's 10 more. */
    async stop(server: Served) {
      const signalled = Date.now();
      server.child.kill("SIGTERM");
      const exit = await Promise.race([server.exited, sleep(25_000).then(() => null)]);
      expect(exit?.code, `the exit code of a clean stop, ${Date.now() - signalled} ms after SIGTERM`).toBe(0);
    },
    /** A fresh data folder that is a tmpfs of `size` (e.g. "2m"), to fill for real. */
    tmpfs(size: string) {
      const dir = dataDir();
      mountTmpfs(dir, size);
      started.push(() => unmountTmpfs(dir));
      return dir;
    },
  };
}

/** What a site has logged so far, by event name: every event, or those of the lead `id`. */
export const said = (site: Served, id?: string) =>
  events(site.stdout())
    .filter((e) => id === undefined || e.id === id)
    .map((e) => String(e.event));

/** `npm run soak` (SOAK=1): the long runs at their full length, as before a release; each test says what it scales. */
export const SOAK = process.env.SOAK === "1";
