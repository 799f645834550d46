/**
 * compose.yaml's scale-out shape, by hand, where what it tests needs more than compose gives: a
 * fake form service per site on the host's network, and a site killed mid-send (tests/ops/
 * compose.spec.ts runs the file itself with podman-compose). The two site services run as
 * containers of the real image with compose.yaml's own settings (environment, read-only root, a
 * volume each on /app/data), and PostgreSQL is Debian's (tests/support/postgres.ts) set up as the
 * compose file sets up its postgres service: the user and database it names, with the password
 * compose would take from POSTGRES_PASSWORD, checked (scram-sha-256). Only what must differ on one
 * host network differs: ports, PostgreSQL's address and the fake form services. Ports:
 * opsPort(30-33); the fakes and PostgreSQL on free ports.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { parse } from "yaml";
import { type FakeFormService, startFakeFormService } from "../support/fake-form-service";
import { buildImage, type Container, freshVolume, podman, removeAll, startContainer } from "../support/podman";
import { type Postgres, startPostgres } from "../support/postgres";
import { deliveredOnce, events, postContact, REPO } from "../support/server";
import { e2eDir, opsPort, TEST_ACCESS_KEY } from "../support/sites";

interface Service {
  image?: string;
  build?: string;
  environment?: Record<string, string | null>;
  volumes?: string[];
  ports?: string[];
  read_only?: boolean;
  stop_grace_period?: string;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}
const compose = parse(readFileSync(join(REPO, "compose.yaml"), "utf8"), { merge: true }) as { services: Record<string, Service> };

/**
 * compose's interpolation from the shell's environment, `vars` here: `${NAME}`, `${NAME:-default}`
 * (unset or empty: the default) and `${NAME:?message}` (unset or empty: compose refuses to start).
 */
function interpolate(value: string, vars: Record<string, string>) {
  return String(value).replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, op?: string, arg = "") => {
    if (vars[name]) return vars[name];
    if (op === "?") throw new Error(`compose refuses: ${name} ${arg}`);
    return op === "-" ? arg : "";
  });
}
/** A service's environment; a name without a value is passed from `vars`, or left unset. */
const environment = (service: Service, vars: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(service.environment ?? {})
      .map(([k, v]) => [k, v === null ? vars[k] : interpolate(v, vars)])
      .filter(([, v]) => v !== undefined),
  ) as Record<string, string>;

/** What an operator sets, as compose.yaml asks: letters and digits, 24 or more. */
const POSTGRES_PASSWORD = "Compose0Test0Password0Of0The0Run";
const SITES = ["site-1", "site-2"] as const;

test.describe.serial("compose.yaml's shape: two site containers, one PostgreSQL", () => {
  let image = "";
  let postgres: Postgres | undefined;
  let fakes: FakeFormService[] = [];

  test.beforeAll(async () => {
    // Building the image from nothing (npm install, the build, the base's packages) takes minutes.
    test.setTimeout(15 * 60_000);
    image = await buildImage();
    await removeAll("compose");
  });
  test.afterAll(async () => {
    await removeAll("compose");
    for (const fake of fakes) await fake.close();
    await postgres?.stop();
  });

  test("describes two sites with a data volume each on one PostgreSQL they wait for, its password required, grace periods, health checks and fully qualified images", () => {
    const { postgres: db, ...sites } = compose.services;
    expect(Object.keys(sites).sort()).toEqual([...SITES]);
    const volumes = Object.values(sites).map((s) => s.volumes?.find((v) => v.endsWith(":/app/data")));
    expect(new Set(volumes).size, "one data volume each").toBe(2);
    for (const site of Object.values(sites)) {
      expect(site).toMatchObject({ read_only: true, stop_grace_period: "20s", depends_on: { postgres: { condition: "service_healthy" } } });
      expect(site.healthcheck?.test.join(" ")).toContain("/healthz");
      expect(() => environment(site, {}), "no site without the password").toThrow(/POSTGRES_PASSWORD/);
      // DATABASE_URL names the postgres service, and the user, password and database it is set up with.
      const url = new URL(environment(site, { POSTGRES_PASSWORD }).DATABASE_URL!);
      const own = environment(db!, { POSTGRES_PASSWORD });
      expect([url.protocol, url.hostname, url.port, url.username, url.password, url.pathname]).toEqual([
        "postgres:",
        "postgres",
        "5432",
        own.POSTGRES_USER,
        POSTGRES_PASSWORD,
        `/${own.POSTGRES_DB}`,
      ]);
    }
    expect(() => environment(db!, {}), "no PostgreSQL without the password").toThrow(/POSTGRES_PASSWORD/);
    expect(db!.image).toBe("docker.io/library/postgres:17-bookworm");
    expect(
      db!.volumes?.some((v) => v.endsWith(":/var/lib/postgresql/data")),
      "its data on a volume",
    ).toBe(true);
    expect(db!.ports, "not published").toBeUndefined();
    expect(db!.healthcheck?.test).toEqual(["CMD", "pg_isready", "-U", "agency", "-d", "agency"]);
    // Whatever is pulled is named with its registry: no short name a registry list would resolve.
    for (const service of Object.values(compose.services).filter((s) => !s.build))
      expect(service.image).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?\/[^:]+:[\w.-]+$/);
    // What is built here is named so that neither docker nor podman looks for it in a registry.
    for (const service of Object.values(sites)) expect(service.image).toBe("localhost/agency-site");
  });

  test("the sites connect to PostgreSQL from the image; leads posted to both are delivered exactly once; a lead claimed by a site killed -9 is delivered by the other", async () => {
    // Over 30 s: a cluster and two containers start, and the killed site's claim runs out (15 s).
    test.setTimeout(3 * 60_000);
    const own = environment(compose.services.postgres!, { POSTGRES_PASSWORD });
    // The password is checked, as in the postgres image; the tests' own superuser keeps trust.
    mkdirSync(e2eDir, { recursive: true });
    const hba = join(e2eDir, "compose-pg_hba.conf");
    writeFileSync(hba, "host all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n");
    chmodSync(hba, 0o644);
    postgres = await startPostgres({ parent: e2eDir, settings: { hba_file: hba } });
    // What the postgres image does with POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB.
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${admin.escapeIdentifier(own.POSTGRES_USER!)} SUPERUSER LOGIN PASSWORD ${admin.escapeLiteral(own.POSTGRES_PASSWORD!)}`);
      await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(own.POSTGRES_DB!)} OWNER ${admin.escapeIdentifier(own.POSTGRES_USER!)}`);
    } finally {
      await admin.end();
    }
    // The password counts: a wrong one is refused.
    const wrong = new URL(`postgres://${own.POSTGRES_USER}:not-the-password@127.0.0.1:${postgres.port}/${own.POSTGRES_DB}`);
    await expect(new pg.Client({ connectionString: wrong.href }).connect()).rejects.toMatchObject({ code: "28P01" });
    // compose's health check of the postgres service, given this cluster's address.
    const [kind, program, ...args] = compose.services.postgres!.healthcheck!.test;
    expect([kind, program]).toEqual(["CMD", "pg_isready"]);
    await promisify(execFile)(program!, [...args, "-h", "127.0.0.1", "-p", String(postgres.port)]);

    // A fake form service per site, so each delivery shows which site sent it.
    fakes = [await startFakeFormService(), await startFakeFormService()];
    const sites: { container: Container; url: string; metrics: string }[] = [];
    for (const [i, name] of SITES.entries()) {
      const service = compose.services[name]!;
      const env = environment(service, { POSTGRES_PASSWORD });
      // compose's URL, with the host network's address of the cluster for the service's name.
      const databaseUrl = new URL(env.DATABASE_URL!);
      databaseUrl.host = `127.0.0.1:${postgres.port}`;
      const [port, metrics] = [opsPort(30 + i), opsPort(32 + i)];
      Object.assign(env, {
        PORT: String(port),
        METRICS_PORT: String(metrics),
        DATABASE_URL: databaseUrl.href,
        FORM_ACCESS_KEY: TEST_ACCESS_KEY,
        FORM_ENDPOINT: fakes[i]!.submitUrl,
      });
      const container = await startContainer(image, `compose-${name}`, {
        volume: await freshVolume(`compose-${name}-data`),
        env,
        readOnly: service.read_only === true,
      });
      sites.push({ container, url: `http://127.0.0.1:${port}`, metrics: `http://127.0.0.1:${metrics}/metrics` });
    }
    for (const site of sites) await expect.poll(async () => (await fetch(`${site.url}/healthz`).catch(() => null))?.status, { timeout: 30_000 }).toBe(200);
    // The image's pg, traced into its node_modules, connects: the store is PostgreSQL's.
    for (const site of sites) {
      const start = events((await site.container.logs()).replace(/^(?!\{).*$/gm, "")).find((e) => e.event === "start");
      expect(start?.leadStore).toBe(`postgres 127.0.0.1:${postgres.port}/${own.POSTGRES_DB}`);
    }
    // compose.yaml's own health check command, run in each container as compose would.
    const [siteKind, check] = compose.services["site-1"]!.healthcheck!.test;
    expect(siteKind).toBe("CMD-SHELL");
    for (const site of sites) await site.container.exec("/bin/sh", "-c", check!);

    const both = { accepted: (token: string) => fakes.flatMap((fake) => fake.accepted(token)) };
    const tokens = ["compose-a1", "compose-a2", "compose-b1", "compose-b2"];
    for (const [i, token] of tokens.entries())
      expect((await postContact(sites[i < 2 ? 0 : 1]!.url, `Hello (${token}).`, { localAddress: `127.0.0.${40 + i}` })).status).toBe(303);
    await deliveredOnce(both, tokens);

    // The lead's send hangs at whichever site claims it (FORM_TIMEOUT_MS is compose's default,
    // 10 s): that site is killed mid-send, and the other takes the lead once the claim runs out.
    for (const fake of fakes) fake.setMode("hang", undefined, "compose-orphan");
    expect((await postContact(sites[0]!.url, "Hello (compose-orphan).", { localAddress: "127.0.0.50" })).status).toBe(303);
    await expect.poll(() => fakes.map((fake) => fake.received("compose-orphan").length), { timeout: 15_000 }).toContainEqual(1);
    const claimed = fakes.findIndex((fake) => fake.received("compose-orphan").length === 1);
    const other = 1 - claimed;
    await podman(["kill", "-s", "KILL", sites[claimed]!.container.name]);
    await expect.poll(() => sites[claimed]!.container.inspect("{{.State.Running}}")).toBe("false");
    for (const fake of fakes) fake.setMode("ok", undefined, "compose-orphan");
    await deliveredOnce(both, [...tokens, "compose-orphan"], { within: 90_000 });
    expect(fakes[other]!.accepted("compose-orphan"), "delivered by the site left").toHaveLength(1);
    expect(await (await fetch(sites[other]!.metrics)).text()).toMatch(/^leads_delivered_total\{[^}]*kind="contact"[^}]*\} [1-5]$/m);
  });
});
