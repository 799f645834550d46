/**
 * How the server behaves for whoever runs it: a bad configuration stops it before it listens, no
 * lead is lost to a failing form service, a kill -9 or a dead container, SIGTERM finishes what is
 * in flight, the metrics tell the queue's state, the operator's command moves parked leads, and the
 * JSON logs carry no secrets; the SQLite store survives a full disk, a damaged file, a paused
 * owner beside a second server, replays and a flood (the ceiling). Each test starts its own
 * servers from build/ (opsPort 10-19 and 70-79, fake form services opsPort 50-59 and 80-89, Redis on
 * a free port).
 */
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { expect, test } from "@playwright/test";
import { CONTACT_SENT } from "../../app/contact/action.server";
import { calculatorText } from "../../app/content/calculator";
import { messages } from "../../app/content/messages";
import { type FakeMode, startFakeFormService } from "../support/fake-form-service";
import { startRedis } from "../support/redis";
import { accepts, postContact, REPO, serve, sleep } from "../support/server";
import { opsPort, TEST_ACCESS_KEY } from "../support/sites";

/** The log as records (every line the server writes is one JSON object). */
const events = (out: string) =>
  out
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const dataDir = () => mkdtempSync(join(tmpdir(), "agency-site-ops-"));
const keyed = (fake: { submitUrl: string }, dir: string, extra: Record<string, string> = {}) => ({
  FORM_ACCESS_KEY: TEST_ACCESS_KEY,
  FORM_ENDPOINT: fake.submitUrl,
  DATA_DIR: dir,
  ...extra,
});

/** `npm run leads -- …` on a data folder, as an operator runs it. */
const cli =
  (dir: string) =>
  (...args: string[]) =>
    promisify(execFile)("npm", ["run", "-s", "leads", "--", ...args], {
      cwd: REPO,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", DATA_DIR: dir },
    });
const sha = (file: string) => (existsSync(file) ? createHash("sha256").update(readFileSync(file)).digest("hex") : "absent");

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
  const env = keyed(fake, dataDir(), { FORM_TIMEOUT_MS: "2000" });
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
    expect(
      modes.map((mode) => fake.accepted(`durable-${mode}`).length),
      "no duplicates",
    ).toEqual([1, 1, 1, 1]);
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
  const [a, b] = [serve(opsPort(13), keyed(fake, dataDir(), { REDIS_URL: redis.url })), serve(opsPort(14), keyed(fake, dataDir(), { REDIS_URL: redis.url }))];
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

test("with REDIS_URL, a calculator step posted without JavaScript to one server is rendered by another, for the same browser only", async () => {
  const redis = await startRedis();
  const [a, b] = [serve(opsPort(77), { REDIS_URL: redis.url, DATA_DIR: dataDir() }), serve(opsPort(78), { REDIS_URL: redis.url, DATA_DIR: dataDir() })];
  try {
    await Promise.all([a.listening, b.listening]);
    for (const server of [a, b]) await expect.poll(() => server.stdout().includes('"event":"draft_store_ready"')).toBe(true);
    const body = new URLSearchParams({ formName: "calculator", "state.step": "1", service: "zoho" }).toString();
    const posted = await fetch(`${a.url}/?index`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: a.url, "Content-Type": "application/x-www-form-urlencoded" },
      body,
    });
    expect(posted.status).toBe(303);
    // The browser that posted, with the cookie it was given (decision 0020): any server renders its draft.
    const cookie = posted.headers.get("set-cookie")!.split(";")[0]!;
    const html = await (await fetch(b.url + posted.headers.get("location")!, { headers: { cookie } })).text();
    expect(html).toMatch(/Step (<!-- -->)?2(<!-- -->)? of/);
    expect(html).toMatch(/\$2,000/);
    expect(html).not.toContain(calculatorText.expired);
    // Any other browser, on either server, gets nothing of it.
    expect(await (await fetch(b.url + posted.headers.get("location")!)).text()).toContain(calculatorText.expired);
  } finally {
    a.kill();
    b.kill();
    await redis.stop();
  }
});

test("SIGTERM while a delivery is in flight: the visitor already has the answer, the delivery completes, exit 0", async () => {
  const fake = await startFakeFormService({ port: opsPort(52) });
  fake.setMode("slow", 2_500);
  const server = serve(opsPort(15), keyed(fake, dataDir()));
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
  const server = serve(opsPort(16), { REDIS_URL: redis.url, DATA_DIR: dataDir() });
  try {
    await server.listening;
    // The SQLite store opens in milliseconds: wait for the limits' Redis connection, not just the start.
    await expect.poll(() => server.stdout()).toContain("rate_limit_store_ready");
    expect((await postContact(server.url, "Counted in Redis")).status).toBe(303);
    const myId = Number(await probe.call("CLIENT", "ID"));
    const others = async () =>
      String(await probe.call("CLIENT", "LIST"))
        .split("\n")
        .filter((l) => l.startsWith("id=") && !l.startsWith(`id=${myId} `)).length;
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
  const server = serve(opsPort(17), keyed(fake, dataDir(), { METRICS_PORT: String(opsPort(57)) }));
  try {
    await server.listening;
    const metrics = async () => (await fetch(`http://127.0.0.1:${opsPort(57)}/metrics`)).text();
    expect(await metrics()).toMatch(/^leads_parked_now 0$/m);
    expect((await postContact(server.url, "Our confidential launch (parked)")).status).toBe(303);
    await expect.poll(metrics).toMatch(/^leads_parked_now 1$/m);
    expect(await metrics()).toMatch(/^leads_pending 0$/m);
    const response = await fetch(`${server.url}/healthz`);
    expect([response.status, response.headers.get("cache-control"), await response.json()]).toEqual([200, "no-store", { status: "ok" }]);
    expect(events(server.stdout()).filter((e) => e.level === "error")).toEqual([
      expect.objectContaining({ event: "lead_parked", reason: "http", status: 401 }),
    ]);
    expect(server.stdout()).not.toMatch(/confidential launch|Ada Lovelace|ada@example\.com/);
  } finally {
    server.kill();
    await fake.close();
  }
});

test("npm run leads lists a parked lead and re-queues it, with the server running, after the key is fixed", async () => {
  const fake = await startFakeFormService({ port: opsPort(54) });
  fake.setMode("unauthorized");
  const dir = dataDir();
  const server = serve(opsPort(18), keyed(fake, dir));
  const leads = cli(dir);
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
  const server = serve(opsPort(19), keyed(fake, dataDir()));
  const message = "Our confidential product launch needs SEO before 1 March (log-test).";
  try {
    await server.listening;
    expect(events(server.stdout()).filter((e) => e.event === "start")).toEqual([
      expect.objectContaining({ level: "info", delivery: expect.objectContaining({ to: "provider" }) }),
    ]);
    expect((await postContact(server.url, message)).status).toBe(303);
    await expect.poll(() => events(server.stdout()).filter((e) => e.event === "lead_delivered").length).toBe(1);
    server.child.kill("SIGTERM");
    await server.exited;
    const [stored] = events(server.stdout()).filter((e) => e.event === "lead_stored");
    expect(stored).toMatchObject({ level: "info", kind: "contact", store: "sqlite", id: expect.stringMatching(/^\d{8}-[0-9A-Z]{8}$/) });
    expect(events(server.stdout()).find((e) => e.event === "lead_delivered")).toMatchObject({ id: stored!.id, provider: "web3forms", status: 200, attempt: 1 });
    for (const stream of [server.stdout(), server.stderr()])
      expect(stream).not.toMatch(new RegExp(`${TEST_ACCESS_KEY}|confidential product launch|Ada Lovelace|ada@example.com`));
    expect((fake.accepted("log-test")[0] as { message: string }).message).toContain(`Reference: ${stored!.id as string}`);
  } finally {
    server.kill();
    await fake.close();
  }
});

test("the disk fills up mid-traffic (a small tmpfs as DATA_DIR): every thanked lead is delivered exactly once after space returns and a restart; the others got the failure text", async () => {
  test.setTimeout(120_000);
  const dir = dataDir();
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", dir]);
  const fake = await startFakeFormService({ port: opsPort(80) });
  fake.setMode("fail500");
  const env = keyed(fake, dir, { FORM_TIMEOUT_MS: "2000" });
  const first = serve(opsPort(70), env);
  let second: ReturnType<typeof serve> | undefined;
  try {
    await first.listening;
    // Leave about 100 KB, then post 5 KB leads, each from a client of its own, until well past full.
    const filler = join(dir, "filler");
    const fd = openSync(filler, "w");
    const free = () => Number(execFileSync("df", ["-B1", "--output=avail", dir]).toString().split("\n")[1]);
    while (free() > 100_000) writeSync(fd, Buffer.alloc(16_384, 1));
    closeSync(fd);
    const thanked: string[] = [];
    const refused: string[] = [];
    for (let i = 0; i < 40 && refused.length < 5; i++) {
      const token = `diskfull-${i}-`;
      const answer = await postContact(first.url, `${token} ${"Our project, described at length. ".repeat(140)}`, { localAddress: `127.0.1.${i + 1}` });
      if (answer.status === 303) thanked.push(token);
      else {
        expect(answer.status, token).toBe(503);
        expect(answer.body, token).toContain(messages.contactFailed);
        refused.push(token);
      }
    }
    expect(thanked.length, "some leads were stored before the disk filled").toBeGreaterThan(0);
    expect(refused.length, "the full disk refused leads").toBe(5);
    test.info().annotations.push({ type: "thanked before the disk was full", description: String(thanked.length) });
    await expect.poll(() => events(first.stdout()).filter((e) => e.event === "lead_not_stored").length).toBe(refused.length);
    first.child.kill("SIGKILL");
    await first.exited;

    rmSync(filler);
    fake.setMode("ok");
    second = serve(opsPort(70), env);
    await second.listening;
    await expect.poll(() => thanked.map((t) => fake.accepted(t).length), { timeout: 60_000 }).toEqual(thanked.map(() => 1));
    await sleep(3_000);
    expect(
      thanked.map((t) => fake.accepted(t).length),
      "exactly once",
    ).toEqual(thanked.map(() => 1));
    expect(
      refused.map((t) => fake.received(t).length),
      "never stored, never sent",
    ).toEqual(refused.map(() => 0));
  } finally {
    first.kill();
    second?.kill();
    await Promise.all([first.exited, second?.exited]);
    await fake.close();
    execFileSync("umount", ["-l", dir]);
  }
});

test("a store the server cannot read stops the start with one JSON line and exit 1, its bytes unchanged; once fixed, all its leads are delivered once", async () => {
  test.setTimeout(90_000);
  const dir = dataDir();
  const db = join(dir, "leads.db");
  const fake = await startFakeFormService({ port: opsPort(81) });
  fake.setMode("fail500");
  const env = keyed(fake, dir);
  const first = serve(opsPort(71), env);
  let refused: ReturnType<typeof serve> | undefined;
  let fixed: ReturnType<typeof serve> | undefined;
  try {
    await first.listening;
    const tokens = ["unread-1", "unread-2", "unread-3"];
    for (const [i, token] of tokens.entries())
      expect((await postContact(first.url, `Keep me (${token}).`, { localAddress: `127.0.2.${i + 1}` })).status).toBe(303);
    await expect.poll(() => tokens.every((t) => fake.received(t).length > 0)).toBe(true);
    first.child.kill("SIGKILL"); // the WAL still holds them
    await first.exited;

    const good = readFileSync(db);
    writeFileSync(db, Buffer.concat([Buffer.from("not SQLite here!"), good.subarray(16)]));
    const before = [sha(db), sha(`${db}-wal`)];
    refused = serve(opsPort(71), env);
    const exit = await refused.exited;
    expect(exit.code).toBe(1);
    expect(refused.stdout()).not.toContain('"event":"start"');
    const lines = events(refused.stdout()).filter((e) => e.level === "error");
    expect(lines).toEqual([expect.objectContaining({ event: "lead_store_unusable", file: db })]);
    expect([sha(db), sha(`${db}-wal`)], "the store's bytes").toEqual(before);

    writeFileSync(db, Buffer.concat([good.subarray(0, 16), readFileSync(db).subarray(16)]));
    fake.setMode("ok");
    fixed = serve(opsPort(71), env);
    await fixed.listening;
    await expect.poll(() => tokens.map((t) => fake.accepted(t).length), { timeout: 30_000 }).toEqual([1, 1, 1]);
    await sleep(2_000);
    expect(tokens.map((t) => fake.accepted(t).length)).toEqual([1, 1, 1]);
  } finally {
    first.kill();
    refused?.kill();
    fixed?.kill();
    await fake.close();
  }
});

test("an owner paused (SIGSTOP) for 15 s, a second server on the same folder, then both take leads: every thanked lead arrives exactly once", async () => {
  test.setTimeout(120_000);
  const dir = dataDir();
  const fake = await startFakeFormService({ port: opsPort(82) });
  fake.setMode("fail500", undefined, "paused-pending");
  const env = keyed(fake, dir, { FORM_TIMEOUT_MS: "2000" });
  const a = serve(opsPort(72), env);
  let b: ReturnType<typeof serve> | undefined;
  try {
    await a.listening;
    expect((await postContact(a.url, "Before the pause (paused-a1).", { localAddress: "127.0.3.1" })).status).toBe(303);
    expect((await postContact(a.url, "Still failing (paused-pending).", { localAddress: "127.0.3.2" })).status).toBe(303);
    await expect.poll(() => fake.accepted("paused-a1").length + Math.min(1, fake.received("paused-pending").length)).toBe(2);
    a.child.kill("SIGSTOP");
    await sleep(15_000);
    fake.setMode("ok", undefined, "paused-pending");
    b = serve(opsPort(73), env);
    await b.listening;
    for (const [i, token] of ["paused-b1", "paused-b2"].entries())
      expect((await postContact(b.url, `While paused (${token}).`, { localAddress: `127.0.3.${10 + i}` })).status).toBe(303);
    a.child.kill("SIGCONT");
    const tokens = ["paused-a1", "paused-pending", "paused-b1", "paused-b2", "paused-a2", "paused-b3"];
    expect((await postContact(a.url, "After the pause (paused-a2).", { localAddress: "127.0.3.20" })).status).toBe(303);
    expect((await postContact(b.url, "After the pause (paused-b3).", { localAddress: "127.0.3.21" })).status).toBe(303);
    await expect.poll(() => tokens.map((t) => fake.accepted(t).length), { timeout: 60_000 }).toEqual(tokens.map(() => 1));
    await sleep(5_000);
    expect(
      tokens.map((t) => fake.accepted(t).length),
      "exactly once",
    ).toEqual(tokens.map(() => 1));
  } finally {
    a.child.kill("SIGCONT");
    a.kill();
    b?.kill();
    await fake.close();
  }
});

test("invisible characters never reach the form service, and a replayed form makes one lead with one reference", async () => {
  const fake = await startFakeFormService({ port: opsPort(83) });
  const server = serve(opsPort(74), keyed(fake, dataDir()));
  try {
    await server.listening;
    const name = "Ada\u200b Love\u00adlace\u{e0041}\u{e0042}\u3164\ufe0f\u202e";
    const message = "Hidden\u200d text\u{e0069}\u{e0067} here\u2060 (invisible-test).";
    for (let i = 0; i < 3; i++) expect((await postContact(server.url, message, { name, localAddress: "127.0.4.1" })).status).toBe(303);
    await expect.poll(() => fake.accepted("invisible-test").length).toBe(1);
    await sleep(2_000);
    const sent = fake.received("invisible-test") as Record<string, string>[];
    expect(sent, "one lead for three posts of the same form").toHaveLength(1);
    expect(sent[0]!.from_name).toBe("Ada Lovelace");
    for (const value of Object.values(sent[0]!)) expect(String(value)).not.toMatch(/[\p{Default_Ignorable_Code_Point}\p{Cf}]/u);
    const stored = events(server.stdout()).filter((e) => e.event === "lead_stored");
    const duplicates = events(server.stdout()).filter((e) => e.event === "lead_duplicate");
    expect([stored.length, duplicates.map((e) => e.id)]).toEqual([1, [stored[0]!.id, stored[0]!.id]]);
  } finally {
    server.kill();
    await fake.close();
  }
});

test("past LEADS_PER_HOUR leads are thanked and stored but held; one line tells the operator; npm run leads -- release sends them", async () => {
  const fake = await startFakeFormService({ port: opsPort(84) });
  const dir = dataDir();
  const server = serve(opsPort(75), keyed(fake, dir, { LEADS_PER_HOUR: "2" }));
  const leads = cli(dir);
  try {
    await server.listening;
    for (let i = 1; i <= 4; i++) expect((await postContact(server.url, `Ceiling ${i} (ceiling-${i}).`, { localAddress: `127.0.5.${i}` })).status).toBe(303);
    await expect.poll(() => fake.accepted("ceiling-").length).toBe(2);
    expect(events(server.stdout()).filter((e) => e.event === "leads_held")).toEqual([expect.objectContaining({ level: "error", perHour: 2 })]);
    expect(JSON.parse((await leads("status")).stdout)).toMatchObject({ pending: 0, held: 2 });
    expect((await leads("list")).stdout).toMatch(/\tcontact\theld\t0m\t\n.*\tcontact\theld\t0m\t\n/s);
    await sleep(1_000);
    expect(fake.accepted("ceiling-")).toHaveLength(2);
    expect((await leads("release")).stdout).toMatch(/^released 2 lead/);
    await expect.poll(() => fake.accepted("ceiling-").length, { timeout: 10_000 }).toBe(4);
  } finally {
    server.kill();
    await fake.close();
  }
});

test("with REDIS_URL on a Redis that may evict (allkeys-lru), one JSON warning says so, and every line of the log is JSON", async () => {
  const redis = await startRedis(undefined, ["--maxmemory-policy", "allkeys-lru"]);
  const fake = await startFakeFormService({ port: opsPort(85) });
  const server = serve(opsPort(76), keyed(fake, dataDir(), { REDIS_URL: redis.url }));
  try {
    await server.listening;
    expect((await postContact(server.url, "Through Redis (evict-test).")).status).toBe(303);
    await expect.poll(() => fake.accepted("evict-test").length).toBe(1);
    server.child.kill("SIGTERM");
    await server.exited;
    const log = events(server.stdout()); // throws on a line that is not JSON
    expect(log.filter((e) => e.event === "redis_eviction_policy")).toEqual([expect.objectContaining({ level: "warn", policy: "allkeys-lru" })]);
    expect(server.stdout() + server.stderr()).not.toContain("IMPORTANT");
    expect(server.stderr()).toBe("");
  } finally {
    server.kill();
    await fake.close();
    await redis.stop();
  }
});

async function timed<T>(work: () => Promise<T>): Promise<T & { ms: number }> {
  const started = Date.now();
  const result = await work();
  return { ...result, ms: Date.now() - started };
}
