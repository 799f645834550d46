/**
 * compose.yaml: what it says, and the file run as written by podman-compose (Debian 12's, 1.0.3)
 * with one override (tests/ops/compose.override.yaml: the image the tests built). The rest as an
 * operator gives it: the variables compose.yaml reads, and podman's settings for these machines
 * (runc, ulimits) in a containers.conf of the test's own. The postgres image is pulled, or a
 * stand-in under its name (scripts/container/test-image.mjs). One project of this checkout's own
 * (E2E_PORT_BASE), removed before and after. Ports: opsPort(147-148).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { parse } from "yaml";
import { buildImage, FLAGS, podman, podmanTry, postgresImage } from "../support/podman";
import { events, postContact, REPO } from "../support/server";
import { e2eDir, opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";

const { undo } = startedByEachTest();

type Service = { image?: string; volumes?: string[]; ports?: string[]; healthcheck?: { test: string[] } };
const { services } = parse(readFileSync(join(REPO, "compose.yaml"), "utf8"), { merge: true }) as { services: Record<string, Service> };

/** What an operator sets, as compose.yaml asks: letters and digits, 24 or more. */
const POSTGRES_PASSWORD = "Compose0Test0Password0Of0The0Run";

// What the file says that its run below does not show. That the sites reach PostgreSQL with the
// password, user and database it is set up with, that both need POSTGRES_PASSWORD, that compose's
// health checks pass: the run shows.
test("compose.yaml: two sites with a data volume each on one PostgreSQL they wait for, grace periods, health checks and fully qualified images", () => {
  const { postgres: db, ...sites } = services;
  expect(Object.keys(sites).sort()).toEqual(["site-1", "site-2"]);
  expect(new Set(Object.values(sites).map((s) => s.volumes?.find((v) => v.endsWith(":/app/data")))).size, "one data volume each").toBe(2);
  for (const site of Object.values(sites)) {
    expect(site).toMatchObject({ read_only: true, stop_grace_period: "20s", depends_on: { postgres: { condition: "service_healthy" } } });
    expect(site.healthcheck?.test.join(" ")).toContain("/healthz");
    // What is built here is named so that neither docker nor podman looks for it in a registry.
    expect(site.image).toBe("localhost/agency-site");
  }
  // Whatever is pulled is named with its registry: no short name a registry list would resolve.
  expect(db!.image).toBe("docker.io/library/postgres:17-bookworm");
  expect(db!.volumes, "its data on a volume").toContainEqual(expect.stringMatching(/:\/var\/lib\/postgresql\/data$/));
  expect(db!.ports, "not published").toBeUndefined();
  expect(db!.healthcheck?.test).toEqual(["CMD", "pg_isready", "-U", "agency", "-d", "agency"]);
});

test.describe("run by podman-compose", () => {
  const project = `agency-e2e-${process.env.E2E_PORT_BASE ?? 3100}`;
  const ports = [opsPort(147), opsPort(148)];
  /** The image the tests built, under a tag of this checkout's own (another's build may retag agency-site:test). */
  const image = `localhost/agency-site:${project}`;
  // The sites by compose.override.yaml's names (compose.yaml's own are site-1 and site-2), PostgreSQL by podman-compose's.
  const [site1, site2, postgres] = [`${project}-site-1`, `${project}-site-2`, `${project}_postgres_1`];

  /** `podman-compose -p PROJECT -f compose.yaml -f override ARGS`, with `vars` as the only compose variables set. */
  const compose = (args: string[], vars: Record<string, string> = {}) => {
    // podman's own settings for every call podman-compose makes: FLAGS's runtime and ulimits.
    const conf = join(e2eDir, "compose-containers.conf");
    const ulimits = FLAGS.filter((_, i) => FLAGS[i - 1] === "--ulimit").map((u) => JSON.stringify(u));
    mkdirSync(e2eDir, { recursive: true });
    writeFileSync(conf, `[containers]\ndefault_ulimits = [${ulimits.join(", ")}]\n[engine]\nruntime = "runc"\n`);
    const env: NodeJS.ProcessEnv = { ...process.env, CONTAINERS_CONF: conf, AGENCY_TEST_IMAGE: image, AGENCY_TEST_PROJECT: project };
    ports.forEach((port, i) => (env[`SITE_${i + 1}_PORT`] = String(port)));
    for (const name of ["FORM_ACCESS_KEY", "FORM_PROVIDER", "POSTGRES_PASSWORD"]) delete env[name];
    const files = ["-f", join(REPO, "compose.yaml"), "-f", join(REPO, "tests/ops/compose.override.yaml")];
    return podman(["-p", project, ...files, ...args], { command: "podman-compose", env: { ...env, ...vars }, timeout: 120_000 });
  };
  /** Everything of the project gone: podman-compose's own `down -v`, then whatever it left (its network, anything half made). */
  const removeProject = async () => {
    await compose(["down", "-v"], { POSTGRES_PASSWORD }).catch(() => {});
    const label = `label=io.podman.compose.project=${project}`;
    const left = (await podmanTry(["ps", "-a", "-q", "--filter", label])).stdout.split("\n").filter(Boolean);
    if (left.length) await podmanTry(["rm", "-f", "-t", "0", ...left]);
    const volumes = (await podmanTry(["volume", "ls", "-q", "--filter", label])).stdout.split("\n").filter(Boolean);
    if (volumes.length) await podmanTry(["volume", "rm", "-f", ...volumes]);
    await podmanTry(["network", "rm", "-f", `${project}_default`]);
  };

  test.beforeAll(async () => {
    // The images: minutes on a new machine, found in podman's cache after scripts/test.sh.
    test.setTimeout(15 * 60_000);
    await podman(["tag", await buildImage(), image]);
    await postgresImage();
  });
  test.afterAll(() => podmanTry(["rmi", image]));

  test("refuses to start without POSTGRES_PASSWORD; passes FORM_ACCESS_KEY as it is; starts two sites healthy on its PostgreSQL, which checks the password; without a key, a lead posted to each is written to an outbox once", async () => {
    test.setTimeout(3 * 60_000);
    await removeProject();
    undo(removeProject);
    await expect(compose(["up", "-d", "--no-build"])).rejects.toMatchObject({ stderr: expect.stringContaining("set POSTGRES_PASSWORD") });
    await compose(["up", "-d", "--no-build"], { POSTGRES_PASSWORD });
    // While they start: a site run with FORM_ACCESS_KEY set gets it as it is (unset, the sites below have none).
    const key = ["run", "--rm", "--no-deps", "-T", "site-1", "node", "-p", "process.env.FORM_ACCESS_KEY"];
    const keyed = compose(key, { POSTGRES_PASSWORD, FORM_ACCESS_KEY: "key-of-the-test-0123" }).catch((error: Error) => error.message);
    // podman runs a health check's timer through systemd, which these machines lack: compose.yaml's own checks are run here.
    for (const name of [site1, site2, postgres])
      await expect.poll(async () => (await podmanTry(["healthcheck", "run", name])).code, { message: `${name} healthy`, timeout: 60_000 }).toBe(0);
    expect(await keyed).toMatch(/^key-of-the-test-0123$/m);
    for (const name of [site1, site2]) {
      // podman-compose starts the sites without waiting for PostgreSQL: an early start stops and is restarted.
      const start = events((await podman(["logs", name])).replace(/^(?!\{).*$/gm, ""))
        .filter((e) => e.event === "start")
        .at(-1);
      // The image's pg driver reaches the store; with no key, the outbox.
      expect(start).toMatchObject({ leadStore: "postgres postgres:5432/agency", delivery: expect.objectContaining({ to: "outbox" }) });
    }
    const wrong = "new (require('pg').Client)('postgres://agency:not-the-password@postgres:5432/agency').connect().catch((e) => console.log(e.code))";
    expect((await podman(["exec", site1, "node", "-e", wrong])).trim(), "a wrong password, refused").toBe("28P01");

    const tokens = ["compose-run-1", "compose-run-2"];
    for (const [i, token] of tokens.entries()) expect((await postContact(`http://127.0.0.1:${ports[i]}`, `Hello (${token}).`)).status).toBe(303);
    // Either site may deliver either lead (one store): each is in one outbox, once.
    const outboxes = async () => {
      const cat = (name: string) => podman(["exec", name, "sh", "-c", "cat /app/data/outbox.jsonl 2>/dev/null || true"]);
      const text = (await Promise.all([site1, site2].map(cat))).join("");
      return tokens.map((token) => text.split(token).length - 1);
    };
    await expect.poll(outboxes, { timeout: 30_000 }).toEqual([1, 1]);
  });
});
