/**
 * compose.yaml's scale-out shape, as far as these machines can run it: no Docker Hub (so no
 * redis image) and no compose tool that is worth its weight here. The two site services run as
 * containers of the real image with compose.yaml's own settings (environment, read-only root, a
 * volume each on /app/data), and Redis is Debian's redis-server started with the compose file's
 * own command line. Only what must differ on one host network differs: ports, the Redis address
 * and the fake form service. Ports: opsPort(30-34).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { parse } from "yaml";
import { type FakeFormService, startFakeFormService } from "../support/fake-form-service";
import { buildImage, type Container, freshVolume, podman, removeAll, startContainer } from "../support/podman";
import { type RedisServer, startRedis } from "../support/redis";
import { deliveredOnce, postContact, REPO } from "../support/server";
import { opsPort, TEST_ACCESS_KEY } from "../support/sites";

interface Service {
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  read_only?: boolean;
  stop_grace_period?: string;
  healthcheck?: { test: string[] };
}
const compose = parse(readFileSync(join(REPO, "compose.yaml"), "utf8"), { merge: true }) as { services: Record<string, Service> };
/** compose's `${NAME:-default}` with nothing set in the environment: the default. */
const interpolate = (value: string) => String(value).replace(/\$\{\w+:-([^}]*)\}/g, "$1");

test.describe.serial("compose.yaml's shape: two site containers, one Redis", () => {
  let image = "";
  let fake: FakeFormService;
  let redis: RedisServer;
  let redisDir = "";
  const sites: { container: Container; url: string; metrics: string }[] = [];

  test.beforeAll(async () => {
    // Building the image from nothing (npm install, the build, the base's packages) takes minutes.
    test.setTimeout(15 * 60_000);
    image = await buildImage();
    await removeAll("compose");
  });
  test.afterAll(async () => {
    await removeAll("compose");
    await fake?.close();
    await redis?.stop();
    if (redisDir) rmSync(redisDir, { recursive: true, force: true });
  });

  test("describes two sites with a data volume each, Redis with AOF and noeviction, grace periods and health checks", () => {
    const { redis: redisService, ...siteServices } = compose.services;
    expect(Object.keys(siteServices).sort()).toEqual(["site-1", "site-2"]);
    const volumes = Object.values(siteServices).map((s) => s.volumes?.find((v) => v.endsWith(":/app/data")));
    expect(new Set(volumes).size, "one data volume each").toBe(2);
    for (const site of Object.values(siteServices)) {
      expect(site).toMatchObject({ read_only: true, stop_grace_period: "20s", environment: expect.objectContaining({ REDIS_URL: "redis://redis:6379" }) });
      expect(site.healthcheck?.test.join(" ")).toContain("/healthz");
    }
    expect(redisService!.command!.join(" ")).toMatch(/--appendonly yes.*--maxmemory-policy noeviction/);
    expect(redisService!.healthcheck?.test).toContain("redis-cli");
  });

  test("leads posted to both sites are delivered exactly once; a lead queued by a site killed -9 is delivered by the other", async () => {
    // Over 30 s: two containers start, and the killed one's job waits for its lock to lapse.
    test.setTimeout(3 * 60_000);
    redisDir = mkdtempSync(join(tmpdir(), "agency-site-compose-redis-"));
    const [program, ...redisArgs] = compose.services.redis!.command!;
    expect(program).toBe("redis-server");
    redis = await startRedis(undefined, ["--dir", redisDir, ...redisArgs]);
    fake = await startFakeFormService({ port: opsPort(34) });
    for (const [i, name] of ["site-1", "site-2"].entries()) {
      const service = compose.services[name]!;
      const env = Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(v)]));
      const [port, metrics] = [opsPort(30 + i), opsPort(32 + i)];
      Object.assign(env, {
        PORT: String(port),
        METRICS_PORT: String(metrics),
        REDIS_URL: redis.url,
        FORM_ACCESS_KEY: TEST_ACCESS_KEY,
        FORM_ENDPOINT: fake.submitUrl,
        FORM_TIMEOUT_MS: "2000",
      });
      const container = await startContainer(image, `compose-${name}`, {
        volume: await freshVolume(`compose-${name}-data`),
        env,
        readOnly: service.read_only === true,
      });
      sites.push({ container, url: `http://127.0.0.1:${port}`, metrics: `http://127.0.0.1:${metrics}/metrics` });
    }
    for (const site of sites) await expect.poll(async () => (await fetch(`${site.url}/healthz`).catch(() => null))?.status, { timeout: 30_000 }).toBe(200);
    for (const site of sites) await expect.poll(() => site.container.logs(), { message: "ready on Redis" }).toContain("lead_queue_redis_ready");
    // compose.yaml's own health check command, run in each container as compose would.
    const [kind, ...check] = compose.services["site-1"]!.healthcheck!.test;
    expect(kind).toBe("CMD");
    for (const site of sites) await site.container.exec(...check);

    const tokens = ["compose-a1", "compose-a2", "compose-b1", "compose-b2"];
    for (const [i, token] of tokens.entries())
      expect((await postContact(sites[i < 2 ? 0 : 1]!.url, `Hello (${token}).`, { localAddress: `127.0.0.${40 + i}` })).status).toBe(303);
    await expect.poll(() => tokens.map((t) => fake.accepted(t).length), { timeout: 30_000 }).toEqual([1, 1, 1, 1]);

    fake.setMode("fail500", undefined, "compose-orphan");
    expect((await postContact(sites[0]!.url, "Hello (compose-orphan).", { localAddress: "127.0.0.50" })).status).toBe(303);
    await expect.poll(() => fake.received("compose-orphan").length, { timeout: 15_000 }).toBeGreaterThan(0);
    await podman(["kill", "-s", "KILL", sites[0]!.container.name]);
    await expect.poll(() => sites[0]!.container.inspect("{{.State.Running}}")).toBe("false");
    fake.setMode("ok", undefined, "compose-orphan");
    await deliveredOnce(fake, [...tokens, "compose-orphan"], { within: 90_000 });
    expect(await (await fetch(sites[1]!.metrics)).text()).toMatch(/^leads_delivered_total\{kind="contact"\} [1-5]$/m);
  });
});
