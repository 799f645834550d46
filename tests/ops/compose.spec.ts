/**
 * compose.yaml run as written by podman-compose (Debian 12's, 1.0.3), with one override
 * (tests/ops/compose.override.yaml: the sites' image is the one the tests built). What a test
 * machine needs besides is given as an operator would: the variables compose.yaml reads
 * (POSTGRES_PASSWORD, FORM_ACCESS_KEY, the host ports), and podman's settings for these machines
 * (runc, ulimits) in a containers.conf of the test's own. The postgres image is pulled, or where
 * Docker Hub cannot be reached, a stand-in under its name (scripts/container/test-image.mjs).
 * One project of this checkout's own (E2E_PORT_BASE), removed before and after, pass or fail.
 * Ports: opsPort(147-148).
 */
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, test } from "@playwright/test";
import { FLAGS, postgresImage } from "../../scripts/container/test-image.mjs";
import { buildImage, podman, podmanTry } from "../support/podman";
import { events, postContact, REPO } from "../support/server";
import { e2eDir, opsPort } from "../support/sites";

const project = `agency-e2e-${process.env.E2E_PORT_BASE ?? 3100}`;
const label = `label=io.podman.compose.project=${project}`;
const POSTGRES_PASSWORD = "Compose0Test0Password0Of0The0Run";
const ports = [opsPort(147), opsPort(148)];
/** The image the tests built, under a tag of this checkout's own (another's build may retag agency-site:test). */
const image = `localhost/agency-site:${project}`;
// The sites by compose.override.yaml's names (compose.yaml's own are site-1 and site-2), PostgreSQL by podman-compose's.
const containers = [`${project}-site-1`, `${project}-site-2`, `${project}_postgres_1`];

/** podman's own settings for every call podman-compose makes: FLAGS's runtime and ulimits. */
function containersConf() {
  const file = join(e2eDir, "compose-containers.conf");
  const ulimits = FLAGS.filter((_, i) => FLAGS[i - 1] === "--ulimit").map((u) => JSON.stringify(u));
  mkdirSync(e2eDir, { recursive: true });
  writeFileSync(file, `[containers]\ndefault_ulimits = [${ulimits.join(", ")}]\n[engine]\nruntime = "runc"\n`);
  return file;
}

/** `podman-compose -p PROJECT -f compose.yaml -f override ARGS`, with `vars` as the only compose variables set. */
async function compose(args: string[], vars: Record<string, string> = {}) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CONTAINERS_CONF: containersConf(),
    AGENCY_TEST_IMAGE: image,
    AGENCY_TEST_PROJECT: project,
    SITE_1_PORT: String(ports[0]),
    SITE_2_PORT: String(ports[1]),
    ...vars,
  };
  if (!("FORM_ACCESS_KEY" in vars)) delete env.FORM_ACCESS_KEY;
  if (!("POSTGRES_PASSWORD" in vars)) delete env.POSTGRES_PASSWORD;
  const files = ["-f", join(REPO, "compose.yaml"), "-f", join(REPO, "tests/ops/compose.override.yaml")];
  const { stdout } = await promisify(execFile)("podman-compose", ["-p", project, ...files, ...args], { cwd: REPO, env, timeout: 120_000 });
  return stdout;
}

/** Everything of the project gone: podman-compose's own `down -v`, then whatever it left (its network, anything half made). */
async function removeProject() {
  await compose(["down", "-v"], { POSTGRES_PASSWORD }).catch(() => {});
  const left = (await podmanTry(["ps", "-a", "-q", "--filter", label])).stdout.split("\n").filter(Boolean);
  if (left.length) await podmanTry(["rm", "-f", "-t", "0", ...left]);
  const volumes = (await podmanTry(["volume", "ls", "-q", "--filter", label])).stdout.split("\n").filter(Boolean);
  if (volumes.length) await podmanTry(["volume", "rm", "-f", ...volumes]);
  await podmanTry(["network", "rm", "-f", `${project}_default`]);
}

test.describe.serial("compose.yaml, run by podman-compose", () => {
  test.beforeAll(async () => {
    // The images: minutes on a new machine, found in podman's cache after scripts/test.sh.
    test.setTimeout(15 * 60_000);
    await removeProject();
    await podman(["tag", await buildImage(), image]);
    await postgresImage();
  });
  test.afterAll(async () => {
    test.setTimeout(2 * 60_000);
    await removeProject();
    await podmanTry(["rmi", image]);
  });

  test("reads FORM_ACCESS_KEY from the environment it runs in: unset, the sites have no key; set, the key as it is; and refuses to start without POSTGRES_PASSWORD", async () => {
    const key = (vars: Record<string, string>) =>
      compose(["run", "--rm", "--no-deps", "-T", "site-1", "node", "-p", "process.env.FORM_ACCESS_KEY ?? '(unset)'"], { POSTGRES_PASSWORD, ...vars });
    expect(await key({})).toMatch(/^\(unset\)$/m);
    expect(await key({ FORM_ACCESS_KEY: "key-of-the-test-0123" })).toMatch(/^key-of-the-test-0123$/m);
    await expect(compose(["up", "-d", "--no-build"])).rejects.toMatchObject({ stderr: expect.stringContaining("set POSTGRES_PASSWORD") });
  });

  test("starts two sites on its PostgreSQL, all healthy by compose.yaml's own health checks; without a key, a lead posted to each is written to an outbox once", async () => {
    test.setTimeout(3 * 60_000);
    await compose(["up", "-d", "--no-build"], { POSTGRES_PASSWORD });
    // podman runs a health check's timer through systemd, which these machines lack: run each now.
    for (const name of containers)
      await expect.poll(async () => (await podmanTry(["healthcheck", "run", name])).code, { message: `${name} healthy`, timeout: 60_000 }).toBe(0);
    for (const port of ports) expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    for (const name of containers.slice(0, 2)) {
      // podman-compose starts the sites without waiting for PostgreSQL: an early start stops and is restarted.
      const start = events(await podman(["logs", name]))
        .filter((e) => e.event === "start")
        .at(-1);
      expect(start).toMatchObject({ leadStore: "postgres postgres:5432/agency", delivery: expect.objectContaining({ to: "outbox" }) });
    }

    const tokens = ["compose-run-1", "compose-run-2"];
    for (const [i, token] of tokens.entries()) expect((await postContact(`http://127.0.0.1:${ports[i]}`, `Hello (${token}).`)).status).toBe(303);
    // Either site may deliver either lead (one store): each is in one outbox, once.
    const outboxes = async () => {
      const text = await Promise.all(
        containers.slice(0, 2).map((name) => podman(["exec", name, "sh", "-c", "cat /app/data/outbox.jsonl 2>/dev/null || true"])),
      );
      return tokens.map((token) => text.join("").split(token).length - 1);
    };
    await expect.poll(outboxes, { timeout: 30_000 }).toEqual([1, 1]);
  });
});
