/**
 * The real image: built from the Dockerfile with podman (tests/support/podman.ts) and run as an
 * operator runs it, with a read-only root, a named volume on /app/data and the host's network,
 * which the fake form service's loopback port shares. Ports: opsPort(60-61).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { CONTACT_SENT } from "../../app/contact/action.server";
import { baseImages, buildImage, type Container, podman, podmanTry, runOnce, startContainer } from "../support/podman";
import { deliveredOnce, events, postContact, REPO } from "../support/server";
import { opsPort, TEST_ACCESS_KEY } from "../support/sites";
import { startedByEachTest } from "../support/started";

const { fakeService, undo } = startedByEachTest();
const url = `http://127.0.0.1:${opsPort(60)}`;
const metricsUrl = `http://127.0.0.1:${opsPort(61)}/metrics`;
/** What the image may add to its Node base image: the server, its packages and tini. */
const MAX_ADDED_BYTES = 60_000_000;

/**
 * The lockfile's packages that a production install needs: npm marks `dev` what only development
 * dependencies ask for, `devOptional` what they ask for and a runtime package only optionally
 * (typescript, an optional peer of Remix's), and `peer` what only peers ask for.
 */
function productionPackages(): Set<string> {
  type Entry = { dev?: boolean; devOptional?: boolean; peer?: boolean };
  const { packages } = JSON.parse(readFileSync(join(REPO, "package-lock.json"), "utf8")) as { packages: Record<string, Entry> };
  return new Set(Object.keys(packages).filter((at) => at && !packages[at]!.dev && !packages[at]!.devOptional && !packages[at]!.peer));
}

let image = "";
test.beforeAll(async () => {
  // Building the image from nothing (npm install, the build, the base's packages) takes minutes.
  test.setTimeout(15 * 60_000);
  image = await buildImage();
});

test("the image runs Node 24 as the unprivileged node user, keeps its HEALTHCHECK, adds at most 60 MB to its Node base, and holds no development or peer-only package", async () => {
  const inspect = async (format: string, ref = image) => (await podman(["image", "inspect", "--format", format, ref])).trim();
  expect(await inspect("{{.Config.User}}")).toBe("node");
  expect((JSON.parse(await inspect("{{json .Config.Healthcheck}}")) as { Test?: string[] } | null)?.Test?.join(" ")).toContain("/healthz");
  const base = baseImages().at(-1)!;
  const layers = await podman(["history", "--format", "{{.Size}}\t{{.CreatedBy}}", image]);
  const added = Number(await inspect("{{.Size}}")) - Number(await inspect("{{.Size}}", base));
  expect(added, `bytes over ${base}; the layers:\n${layers}`).toBeLessThanOrEqual(MAX_ADDED_BYTES);
  // Node's version, then every package folder in the image's node_modules, e.g. node_modules/a/node_modules/@b/c.
  const find = "find node_modules -type d -regextype posix-extended -regex '.*node_modules/(@[^/]+/)?[^@/.][^/]*'";
  const listed = await runOnce(image, ["sh", "-c", `node -v && ${find}`]);
  const [version, ...inImage] = listed.trim().split("\n");
  expect(version).toMatch(/^v24\./);
  expect(inImage).toContain("node_modules/@remix-run/node");
  const production = productionPackages();
  expect(inImage.filter((dir) => !production.has(dir))).toEqual([]);
});

test("run as an operator runs it: read-only, non-root, healthy, metrics on their own port; a lead survives podman kill -s KILL and the next container on the volume delivers it once; podman stop ends the server by itself, exit 0", async () => {
  const fake = await fakeService();
  const env = { PORT: String(opsPort(60)), METRICS_PORT: String(opsPort(61)), FORM_ACCESS_KEY: TEST_ACCESS_KEY, FORM_ENDPOINT: fake.submitUrl };
  const serving = (container: Container) =>
    expect
      .poll(async () => (await fetch(`${url}/healthz`).catch(() => null))?.status, { timeout: 30_000, message: "healthz" })
      .toBe(200)
      .catch(async (error: unknown) => Promise.reject(new Error(`${String(error)}\n${await container.logs()}`)));
  const first = await startContainer(image, "image-a", env, undo);
  await serving(first);
  expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: "ok" });
  expect((await fetch(`${url}/`)).status).toBe(200);
  const users = (await podman(["top", first.name, "user"])).trim().split("\n").slice(1);
  expect([users.length > 0, new Set(users.map((u) => u.trim()))]).toEqual([true, new Set(["node"])]);
  const write = await podmanTry(["exec", first.name, "touch", "/app/build/x"]);
  expect([write.code === 0, write.stderr]).toEqual([false, expect.stringContaining("Read-only file system")]);
  // A fresh named volume takes the image's /app/data: owned by node, closed to everyone else.
  expect((await podman(["exec", first.name, "stat", "-c", "%U %a", "/app/data"])).trim()).toBe("node 700");
  const health = await podmanTry(["healthcheck", "run", first.name]);
  expect(health.code, `${health.stdout}${health.stderr}`).toBe(0);
  expect((await fetch(`${url}/metrics`)).status).toBe(404);
  expect(await (await fetch(metricsUrl)).text()).toMatch(/^nodejs_version_info\{[^}]*version="v24\./m);

  // The store is on the volume, not in the container: what the first took, the next delivers.
  const token = "image-kill-9";
  fake.setMode("fail500", undefined, token);
  const answer = await postContact(url, `Please call back (${token}).`);
  expect([answer.status, answer.headers.location]).toEqual([303, expect.stringMatching(CONTACT_SENT)]);
  await expect.poll(() => fake.received(token).length, { timeout: 15_000 }).toBeGreaterThan(0);
  const metrics = await (await fetch(metricsUrl)).text();
  expect(metrics).toMatch(/^leads_accepted_total\{[^}]*kind="contact"[^}]*\} 1$/m);
  expect(metrics).toMatch(/^leads_pending\{[^}]*\} 1$/m);
  await podman(["kill", "-s", "KILL", first.name]);
  await expect.poll(() => first.inspect("{{.State.Running}}")).toBe("false");
  expect(fake.accepted(token)).toEqual([]);
  fake.setMode("ok", undefined, token);
  const second = await startContainer(image, "image-b", env, undo, first.volume);
  await serving(second);
  await deliveredOnce(fake, [token], { within: 60_000 });

  // The signal reaches the server through the image's init, and its own stop runs to the end:
  // code 0 is its exit in time (podman's SIGKILL at 20 s would give 137, a stop held past 13.5 s
  // code 1: docs/operations.md, "Stopping"). What that stop does with requests in flight,
  // server.spec's SIGTERM test shows on the same server.
  await podman(["stop", "-t", "20", second.name]);
  expect(await second.inspect("{{.State.ExitCode}}")).toBe("0");
  expect(events((await second.logs()).replace(/^(?!\{).*$/gm, "")).map((e) => e.event)).toEqual(expect.arrayContaining(["stopping", "stopped"]));
});
