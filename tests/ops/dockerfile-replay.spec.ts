/**
 * The container image, built by replaying the Dockerfile without Docker (tests/support/dockerfile.ts),
 * then started with its own ENTRYPOINT, CMD and ENV as `docker run` would (PORT and HOST set here).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { buildContext, replay, type Image } from "../support/dockerfile";
import { postContact, REPO } from "../support/server";
import { opsPort } from "../support/sites";

const PORT = opsPort(0); // tests/ops use opsPort(0) to opsPort(99)
const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
// A clean environment: no npm_config_* from an enclosing `npm run`, nothing from the test run.
const hostEnv = { PATH: process.env.PATH, HOME: process.env.HOME, npm_config_prefer_offline: "true" };

test.describe.serial("the container image", () => {
  let tmp = "";
  let image: Image;

  test.beforeAll(async () => {
    test.skip(test.info().project.name !== "js", "runs once, in the js project");
    test.setTimeout(6 * 60_000);
    tmp = mkdtempSync(join(tmpdir(), "dockerfile-replay-"));
    image = replay(REPO, tmp, hostEnv);
  });
  test.afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  test("is built in stages from node:20 and holds the build, public files and production dependencies only", () => {
    expect(buildContext(REPO).filter((f) => f.startsWith("tests/") || f.endsWith(".test.ts"))).toEqual([]);
    expect(image.stages.map((s) => s.image)).toEqual(["node:20-bookworm-slim", "node:20-bookworm-slim"]);
    expect(process.versions.node.split(".")[0], "this host's node = the image's").toBe("20");
    expect(readdirSync(image.at(".")).sort()).toEqual(["build", "data", "node_modules", "package-lock.json", "package.json", "public"]);
    expect([existsSync(image.at("public/build")), existsSync(image.at("build/server/index.js")), existsSync(image.at("node_modules/@remix-run/dev"))]).toEqual([true, true, false]);
  });

  test("runs our server as an unprivileged user under tini, on port 3000, with its data under /app/data", () => {
    expect(image.user).not.toMatch(/^(root|0)(:|$)/);
    expect(image.expose).toBe("3000");
    expect(image.aptPackages).toContain("tini");
    expect(image.entrypoint[0]).toMatch(/\/tini$/);
    expect(image.cmd).toEqual(["node", "build/server/index.js"]);
    expect(image.env).toMatchObject({ NODE_ENV: "production", PORT: "3000", OUTBOX_FILE: image.at("data/outbox.jsonl") });
  });

  test("serves /healthz, takes a lead into its data directory, passes its HEALTHCHECK and stops on SIGTERM", async () => {
    const env: NodeJS.ProcessEnv = { ...hostEnv, ...image.env, NODE_ENV: "production", PORT: String(PORT), HOST: "127.0.0.1" };
    // Its own process group, so the cleanup below also reaches node under tini.
    const server = spawn(image.entrypoint[0]!, [...image.entrypoint.slice(1), ...image.cmd], { cwd: image.at("."), env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    for (const stream of [server.stdout, server.stderr]) stream.on("data", (d: Buffer) => (output += d));
    const exited = new Promise<number | null>((resolve) => server.on("exit", (code) => resolve(code)));
    const url = `http://127.0.0.1:${PORT}`;
    try {
      await expect.poll(async () => (await fetch(`${url}/healthz`).catch(() => null))?.status, { timeout: 20_000 }).toBe(200);
      expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ status: "ok", version: pkg.version });
      await expect.poll(() => output).toContain('"event":"start"');
      // No FORM_ACCESS_KEY: the lead is stored and then written to the outbox, both under data/.
      expect((await postContact(url, "Replay outbox check")).status).toBe(303);
      await expect.poll(() => existsSync(env.OUTBOX_FILE!) && readFileSync(env.OUTBOX_FILE!, "utf8")).toContain("Replay outbox check");
      const check = spawnSync(image.healthcheck[0]!, image.healthcheck.slice(1), { cwd: image.at("."), env, encoding: "utf8", timeout: 10_000 });
      expect(check.status, `HEALTHCHECK: ${check.stderr}`).toBe(0);
      server.kill("SIGTERM"); // to tini, which passes it on to node
      expect(await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000, "running 10 s after SIGTERM"))]), output).toBe(0);
    } finally {
      if (server.exitCode === null && server.signalCode === null) process.kill(-server.pid!, "SIGKILL");
    }
  });
});
