/**
 * How the server behaves for whoever runs it: a bad configuration stops it before it listens, no
 * lead is lost to a failing form service, a kill -9 or a dead container, SIGTERM finishes what is
 * in flight, the metrics tell the queue's state, the operator's command moves parked leads, and the
 * JSON logs carry no secrets. Each test starts its own servers from build/ (opsPort 10-19, fake
 * form services opsPort 50-59, Redis on a free port).
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { expect, test } from "@playwright/test";
import { CONTACT_SENT } from "../../app/contact/action.server";
import { type FakeMode, startFakeFormService } from "../support/fake-form-service";
import { startRedis } from "../support/redis";
import { accepts, postContact, REPO, serve, sleep } from "../support/server";
import { opsPort, TEST_ACCESS_KEY } from "../support/sites";

/** The log as records (every line the server writes is one JSON object). */
const events = (out: string) => out.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, unknown>);
const dataDir = () => mkdtempSync(join(tmpdir(), "agency-site-ops-"));
const keyed = (fake: { submitUrl: string }, leadsFile: string, extra: Record<string, string> = {}) => ({ FORM_ACCESS_KEY: TEST_ACCESS_KEY, FORM_ENDPOINT: fake.submitUrl, LEADS_FILE: leadsFile, ...extra });

test.beforeEach(() => test.skip(test.info().project.name !== "js", "runs once, in the js project"));

for (const [name, value, port] of [
  ["FORM_ENDPOINT", "not-a-url", opsPort(10)],
  ["FORM_PROVIDER", "carrier-pigeon", opsPort(11)],
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
      expect(server.stdout()).not.toContain('"event":"start"');
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

test("a failing, hanging or lying form service costs no lead: each visitor is thanked at once, and after a kill -9 and a restart every lead arrives exactly once", async () => {
  test.setTimeout(90_000);
  const fake = await startFakeFormService({ port: opsPort(50) });
  const leadsFile = join(dataDir(), "leads.jsonl");
  const env = keyed(fake, leadsFile, { FORM_TIMEOUT_MS: "2000" });
  const modes: FakeMode[] = ["fail500", "hang", "html200", "successFalseString"];
  const first = serve(opsPort(12), env);
  let second: ReturnType<typeof serve> | undefined;
  try {
    await first.listening;
    for (const [i, mode] of modes.entries()) {
      fake.setMode(mode, undefined, `durable-${mode}`);
      const answer = await timed(() => postContact(first.url, `Please call back (durable-${mode}).`, { localAddress: `127.0.0.${10 + i}` }));
      expect(answer.status, mode).toBe(303);
      expect(answer.headers.location).toBe(CONTACT_SENT);
      expect(answer.ms, `${mode}: the visitor waited`).toBeLessThan(2_000);
    }
    await expect.poll(() => modes.every((mode) => fake.received(`durable-${mode}`).length > 0)).toBe(true);
    first.child.kill("SIGKILL");
    await first.exited;

    for (const mode of modes) fake.setMode("ok", undefined, `durable-${mode}`);
    second = serve(opsPort(12), env);
    await second.listening;
    await expect.poll(() => modes.map((mode) => fake.accepted(`durable-${mode}`).length), { timeout: 60_000 }).toEqual([1, 1, 1, 1]);
    await sleep(3_000);
    expect(modes.map((mode) => fake.accepted(`durable-${mode}`).length), "no duplicates").toEqual([1, 1, 1, 1]);
    expect(await (await fetch(`${second.url}/healthz`)).json()).toEqual({ status: "ok" });
  } finally {
    first.kill();
    second?.kill();
    await fake.close();
  }
});

test("with REDIS_URL two servers share the queue: leads stored by one that is then killed -9 are delivered by the other", async () => {
  test.setTimeout(90_000);
  const redis = await startRedis();
  const fake = await startFakeFormService({ port: opsPort(51) });
  fake.setMode("fail500");
  const [a, b] = [serve(opsPort(13), keyed(fake, join(dataDir(), "leads.jsonl"), { REDIS_URL: redis.url })), serve(opsPort(14), keyed(fake, join(dataDir(), "leads.jsonl"), { REDIS_URL: redis.url }))];
  try {
    await Promise.all([a.listening, b.listening]);
    await expect.poll(() => a.stdout()).toContain("lead_queue_redis_ready");
    const tokens = ["shared-1", "shared-2", "shared-3"];
    for (const [i, token] of tokens.entries()) expect((await postContact(a.url, `Hello (${token}).`, { localAddress: `127.0.0.${20 + i}` })).status).toBe(303);
    await expect.poll(() => tokens.every((t) => fake.received(t).length > 0)).toBe(true);
    a.child.kill("SIGKILL");
    await a.exited;
    fake.setMode("ok");
    await expect.poll(() => tokens.map((t) => fake.accepted(t).length), { timeout: 60_000 }).toEqual([1, 1, 1]);
    expect(events(b.stdout()).filter((e) => e.event === "lead_delivered")).toHaveLength(3);
  } finally {
    a.kill();
    b.kill();
    await fake.close();
    await redis.stop();
  }
});

test("SIGTERM while a delivery is in flight: the visitor already has the answer, the delivery completes, exit 0", async () => {
  const fake = await startFakeFormService({ port: opsPort(52) });
  fake.setMode("slow", 2_500);
  const server = serve(opsPort(15), keyed(fake, join(dataDir(), "leads.jsonl")));
  try {
    await server.listening;
    const answer = await timed(() => postContact(server.url, "Please call me back (sigterm)."));
    expect([answer.status, answer.ms < 1_000]).toEqual([303, true]);
    await expect.poll(() => fake.received("sigterm").length).toBe(1);
    server.child.kill("SIGTERM");
    await sleep(100);
    expect(await accepts(server.port), "a new connection after SIGTERM").toBe(false);
    const exit = await Promise.race([server.exited, sleep(10_000).then(() => null)]);
    expect(exit, "still running 10 s after SIGTERM").not.toBeNull();
    expect(exit!.code).toBe(0);
    expect(fake.accepted("sigterm")).toHaveLength(1);
  } finally {
    server.kill();
    await fake.close();
  }
});

test("with REDIS_URL, SIGTERM closes every Redis connection and the process exits", async () => {
  const redis = await startRedis();
  const probe = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  const server = serve(opsPort(16), { REDIS_URL: redis.url, LEADS_FILE: join(dataDir(), "leads.jsonl") });
  try {
    await server.listening;
    expect((await postContact(server.url, "Counted in Redis")).status).toBe(303);
    const myId = Number(await probe.call("CLIENT", "ID"));
    const others = async () => String(await probe.call("CLIENT", "LIST")).split("\n").filter((l) => l.startsWith("id=") && !l.startsWith(`id=${myId} `)).length;
    expect(await probe.keys("rl:*")).not.toEqual([]);
    expect(await others()).toBeGreaterThan(0);
    server.child.kill("SIGTERM");
    expect((await Promise.race([server.exited, sleep(10_000).then(() => null)]))?.code).toBe(0);
    await expect.poll(others, { timeout: 2_000 }).toBe(0);
  } finally {
    server.kill();
    probe.disconnect();
    await redis.stop();
  }
});

test("the metrics say the queue's state and /healthz stays a bare 200 when the service refuses a lead for good; one error line says so, without personal data", async () => {
  const fake = await startFakeFormService({ port: opsPort(53) });
  fake.setMode("unauthorized");
  const server = serve(opsPort(17), keyed(fake, join(dataDir(), "leads.jsonl"), { METRICS_PORT: String(opsPort(57)) }));
  try {
    await server.listening;
    const metrics = async () => (await fetch(`http://127.0.0.1:${opsPort(57)}/metrics`)).text();
    expect(await metrics()).toMatch(/^leads_parked_now 0$/m);
    expect((await postContact(server.url, "Our confidential launch (parked)")).status).toBe(303);
    await expect.poll(metrics).toMatch(/^leads_parked_now 1$/m);
    expect(await metrics()).toMatch(/^leads_pending 0$/m);
    const response = await fetch(`${server.url}/healthz`);
    expect([response.status, response.headers.get("cache-control"), await response.json()]).toEqual([200, "no-store", { status: "ok" }]);
    expect(events(server.stdout()).filter((e) => e.level === "error")).toEqual([expect.objectContaining({ event: "lead_parked", reason: "http", status: 401 })]);
    expect(server.stdout()).not.toMatch(/confidential launch|Ada Lovelace|ada@example\.com/);
  } finally {
    server.kill();
    await fake.close();
  }
});

test("npm run leads lists a parked lead and re-queues it, with the server running, after the key is fixed", async () => {
  const fake = await startFakeFormService({ port: opsPort(54) });
  fake.setMode("unauthorized");
  const leadsFile = join(dataDir(), "leads.jsonl");
  const server = serve(opsPort(18), keyed(fake, leadsFile));
  const leads = (...args: string[]) => promisify(execFile)("npm", ["run", "-s", "leads", "--", ...args], { cwd: REPO, env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", LEADS_FILE: leadsFile } });
  try {
    await server.listening;
    expect((await postContact(server.url, "Call me about Zoho (cli)")).status).toBe(303);
    await expect.poll(async () => (await leads("list")).stdout).toMatch(/\tcontact\tparked\t0m\thttp\n/);
    expect((await leads("export")).stdout).toContain("Call me about Zoho (cli)");
    fake.setMode("ok");
    expect((await leads("retry")).stdout).toMatch(/^re-queued 1 lead/);
    await expect.poll(() => fake.accepted("(cli)").length, { timeout: 15_000 }).toBe(1);
    expect((await leads("list")).stdout.trim().split("\n")).toHaveLength(1); // the header alone
  } finally {
    server.kill();
    await fake.close();
  }
});

test("logs: a JSON start line, then a line when a lead is stored and when it is delivered, never the key or what was typed", async () => {
  const fake = await startFakeFormService({ port: opsPort(55) });
  const server = serve(opsPort(19), keyed(fake, join(dataDir(), "leads.jsonl")));
  const message = "Our confidential product launch needs SEO before 1 March (log-test).";
  try {
    await server.listening;
    expect(events(server.stdout()).filter((e) => e.event === "start")).toEqual([expect.objectContaining({ level: "info", delivery: expect.objectContaining({ to: "provider" }) })]);
    expect((await postContact(server.url, message)).status).toBe(303);
    await expect.poll(() => events(server.stdout()).filter((e) => e.event === "lead_delivered").length).toBe(1);
    server.child.kill("SIGTERM");
    await server.exited;
    const [stored] = events(server.stdout()).filter((e) => e.event === "lead_stored");
    expect(stored).toMatchObject({ level: "info", kind: "contact", store: "journal", id: expect.stringMatching(/^\d{8}-[0-9A-Z]{8}$/) });
    expect(events(server.stdout()).find((e) => e.event === "lead_delivered")).toMatchObject({ id: stored!.id, provider: "web3forms", status: 200, attempt: 1 });
    for (const stream of [server.stdout(), server.stderr()]) expect(stream).not.toMatch(new RegExp(`${TEST_ACCESS_KEY}|confidential product launch|Ada Lovelace|ada@example.com`));
    expect((fake.accepted("log-test")[0] as { message: string }).message).toContain(`Reference: ${stored!.id as string}`);
  } finally {
    server.kill();
    await fake.close();
  }
});

async function timed<T>(work: () => Promise<T>): Promise<T & { ms: number }> {
  const started = Date.now();
  const result = await work();
  return { ...result, ms: Date.now() - started };
}
