/**
 * How the production server behaves for whoever runs it: a bad configuration stops it before it
 * listens, SIGTERM closes Redis connections and exits, /healthz is cheap and uncached, and the
 * JSON logs carry what operators need and no secrets. Each test starts its own server from build/
 * on its own port (3310-3319, fake form services 3350-3359, Redis 3380).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { expect, test } from "@playwright/test";
import { CONTACT_SENT } from "../../app/contact/action.server";
import { startFakeFormService, type FakeFormService } from "../support/fake-form-service";
import { accepts, postContact, REPO, serve, sleep, type Served } from "../support/server";
import { TEST_ACCESS_KEY } from "../support/sites";

const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };

/** The log as records (every line the server writes is one JSON object). */
const events = (out: string) =>
  out.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, unknown>);

test.beforeEach(() => test.skip(test.info().project.name !== "js", "runs once, in the js project"));

for (const [name, value, port] of [
  ["FORM_ENDPOINT", "not-a-url", 3310],
  ["FORM_PROVIDER", "carrier-pigeon", 3311],
] as const) {
  test(`${name}=${value} stops the server with exit code 1 and one line naming ${name}, before it listens`, async () => {
    const server = serve(port, { [name]: value });
    try {
      let accepted = false;
      let done = false;
      void server.exited.then(() => (done = true));
      const started = Date.now();
      while (!done && Date.now() - started < 5_000) {
        accepted ||= await accepts(port);
        await sleep(20);
      }
      const { code, at } = await server.exited;
      expect(at - started).toBeLessThan(5_000);
      expect(code).toBe(1);
      expect(accepted, "the port accepted a connection").toBe(false);
      expect(server.stdout()).not.toContain(`"event":"start"`);
      const lines = server.stderr().trim().split("\n");
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0]!) as { event: string; error: string };
      expect(line.event).toBe("config_invalid");
      expect(line.error).toContain(`${name} must be`);
      expect(line.error).not.toContain(value);
    } finally {
      server.kill();
    }
  });
}

/**
 * Posts a contact form that the fake service answers after 2.5 s, sends SIGTERM 300 ms later,
 * and checks the post still completes, new connections are refused and the process exits with 0.
 * `whileDraining` runs after the signal, while the post is still in flight.
 */
async function sigtermDuringSend(port: number, fakePort: number, env: Record<string, string>, whileDraining?: (server: Served) => Promise<void>) {
  const fake = await startFakeFormService({ port: fakePort });
  fake.setMode("slow", 2_500);
  const server = serve(port, { FORM_ACCESS_KEY: TEST_ACCESS_KEY, FORM_ENDPOINT: fake.submitUrl, ...env });
  try {
    await server.listening;
    if (env.REDIS_URL) await expect.poll(() => server.stdout()).toContain('"event":"rate_limit_store_ready"');
    const token = `sigterm-${port}`;
    const answer = postContact(server.url, `Please call me back about SEO (${token}).`);
    await sleep(300);
    await expect.poll(() => fake.received(token).length, { timeout: 2_000 }).toBe(1); // really in flight
    const signalledAt = Date.now();
    server.child.kill("SIGTERM");
    await sleep(100);
    expect(await accepts(port), "a new connection after SIGTERM").toBe(false);
    await whileDraining?.(server);
    const { status, headers, at } = await answer;
    expect(at).toBeGreaterThan(signalledAt);
    expect(status).toBe(303);
    expect(headers.location).toBe(CONTACT_SENT);
    expect(fake.received(token)).toHaveLength(1);
    const exit = await Promise.race([server.exited, sleep(10_000).then(() => null)]);
    expect(exit, `still running 10 s after SIGTERM\n${server.stdout()}`).not.toBeNull();
    expect(exit!.code).toBe(0);
    test.info().annotations.push({ type: "exit after SIGTERM", description: `${exit!.at - signalledAt} ms` });
    return server;
  } finally {
    server.kill();
    await fake.close();
  }
}

test("SIGTERM during a send: the send completes with 303, new connections are refused, exit 0 within 10 s", async () => {
  await sigtermDuringSend(3312, 3352, {});
});

test("with REDIS_URL, SIGTERM lets the request in flight finish, then closes every Redis connection and exits", async () => {
  const redisPort = 3380;
  const redis = spawn("redis-server", ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  let probe: Redis | undefined;
  try {
    await expect.poll(() => accepts(redisPort), { timeout: 5_000 }).toBe(true);
    const client = (probe = new Redis({ port: redisPort, host: "127.0.0.1", maxRetriesPerRequest: 1 }));
    const myId = Number(await client.call("CLIENT", "ID"));
    const others = async () =>
      String(await client.call("CLIENT", "LIST")).split("\n").filter((l) => l.startsWith("id=") && !l.startsWith(`id=${myId} `)).length;
    await sigtermDuringSend(3313, 3353, { REDIS_URL: `redis://127.0.0.1:${redisPort}` }, async () => {
      // The limits are counted in Redis, whose connection stays up for the request in flight.
      expect(await client.keys("rl:*")).not.toEqual([]);
      expect(await others()).toBeGreaterThan(0);
    });
    expect(await others(), "Redis connections left after the server exited").toBe(0);
  } finally {
    probe?.disconnect();
    redis.kill("SIGTERM");
  }
});

test("GET /healthz answers 200 {status, version}, no-store, without touching the form service", async () => {
  const fake: FakeFormService = await startFakeFormService({ port: 3354 });
  const server = serve(3314, { FORM_ACCESS_KEY: TEST_ACCESS_KEY, FORM_ENDPOINT: fake.submitUrl });
  try {
    await server.listening;
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("cache-control")).toContain("no-store");
    expect(await res.json()).toMatchObject({ status: "ok", version: pkg.version });
    expect(fake.received()).toEqual([]);
  } finally {
    server.kill();
    await fake.close();
  }
});

test("logs: a JSON start line with the version, one JSON delivery line per send, never the key or the message", async () => {
  const fake = await startFakeFormService({ port: 3355 });
  const server = serve(3315, { FORM_ACCESS_KEY: TEST_ACCESS_KEY, FORM_ENDPOINT: fake.submitUrl });
  const message = "Our confidential product launch needs SEO before 1 March (log-test).";
  try {
    await server.listening;
    const start = events(server.stdout()).filter((e) => e.event === "start");
    expect(start).toHaveLength(1);
    expect(start[0]).toMatchObject({ level: "info", version: pkg.version, delivery: { to: "provider" } });

    const answer = await postContact(server.url, message);
    expect(answer.status).toBe(303);
    await expect.poll(() => events(server.stdout()).filter((e) => e.event === "delivery").length).toBe(1);
    server.child.kill("SIGTERM");
    await server.exited;

    const deliveries = events(server.stdout()).filter((e) => e.event === "delivery");
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ level: "info", ok: true, provider: "web3forms", status: 200 });
    expect(typeof deliveries[0]!.durationMs).toBe("number");
    for (const stream of [server.stdout(), server.stderr()]) {
      expect(stream).not.toContain(TEST_ACCESS_KEY);
      expect(stream).not.toContain("confidential product launch");
    }
    expect(fake.received("log-test")).toHaveLength(1);
  } finally {
    server.kill();
    await fake.close();
  }
});
