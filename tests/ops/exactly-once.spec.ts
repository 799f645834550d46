/**
 * Exactly once where at-least-once could show (docs/operations.md, "Exactly once, and where it
 * cannot be"; decision 0046), with real processes. Two sites in compose.yaml's shape (each its own
 * data folder, one PostgreSQL): one paused (SIGSTOP) past FORM_TIMEOUT_MS while the service
 * answered, within its claim and past it, and PostgreSQL restarted with an immediate shutdown just
 * before and just after a confirmed delivery's outcome was written. SQLite alone: a site paused
 * past FORM_TIMEOUT_MS. Where it cannot hold (a kill -9 after the service took the lead, a pause
 * past the claim while the other site runs), each copy carries the lead's reference as its
 * idempotency key. Each test starts its own servers from build/ and fake form service: the
 * PostgreSQL ones, in order, on opsPort 100-102 and one cluster on a free port; SQLite's on 104
 * and 106; the kill's on 107 and 108.
 */
import { expect, test } from "@playwright/test";
import pg from "pg";
import { type FakeFormService, startFakeFormService } from "../support/fake-form-service";
import { type Postgres, startPostgres } from "../support/postgres";
import { dataDir, deliveredOnce, events, keyed, postContact, serve, sleep, type Served } from "../support/server";
import { e2eDir, opsPort } from "../support/sites";

/** What the running test started, undone after it however it ends (a timeout abandons its body). */
const started: (() => unknown)[] = [];
test.afterEach(async () => {
  for (const undo of started.splice(0).reverse()) await undo();
});

/** A site of the test's own, killed (after a SIGCONT, should it be paused) when the test ends. */
function site(port: number, env: Record<string, string>): Served {
  const served = serve(port, env);
  started.push(async () => {
    served.child.kill("SIGCONT");
    served.kill();
    await served.exited;
  });
  return served;
}

async function fakeService(port: number) {
  const fake = await startFakeFormService({ port });
  started.push(() => fake.close());
  return fake;
}

/** The reference a lead marked with `token` reached the service with: the webhook's Idempotency-Key. */
const referenceOf = (fake: FakeFormService, token: string) => String(fake.headers(token)[0]?.["idempotency-key"]);

test.describe("two sites on one PostgreSQL", () => {
  // In order, in one worker: they share their ports and one cluster, which two of them restart.
  test.describe.configure({ mode: "default" });
  let postgres: Postgres;
  test.beforeAll(async () => {
    test.setTimeout(180_000); // initdb and a start on a loaded machine (postgres.ts's own limits say which failed)
    postgres = await startPostgres({ parent: e2eDir });
  });
  test.afterAll(() => postgres?.stop());

  /**
   * The webhook (its Idempotency-Key names each copy's lead) on opsPort 102, slow to answer (1.5 s),
   * and sites A and B on opsPort 100 and 101, each its own data folder, sharing a database of the
   * test's own. A claim is FORM_TIMEOUT_MS (4 s) + 5 s.
   */
  async function shape(name: string) {
    const url = await postgres.database(name);
    const fake = await fakeService(opsPort(102));
    fake.setMode("slow", 1_500);
    const env = (dir: string) => keyed(fake, dir, { DATABASE_URL: url, FORM_PROVIDER: "webhook", FORM_TIMEOUT_MS: "4000" });
    const [a, b] = [site(opsPort(100), env(dataDir())), site(opsPort(101), env(dataDir()))];
    await Promise.all([a.listening, b.listening]);
    /** The test's own connections to the database (connecting again after a restart), ended with the test. */
    const db = new pg.Pool({ connectionString: url, max: 2 });
    db.on("error", () => undefined); // a connection cut by a restart: the next query makes another
    started.push(() => db.end());
    const row = async (id: string) => (await db.query<{ status: string }>("SELECT status FROM leads WHERE id = $1", [id])).rows[0];
    return { fake, a, b, db, row };
  }
  const delivered = (served: Served) => events(served.stdout()).filter((e) => e.event === "lead_delivered");

  for (const pauseMs of [6_000, 15_000]) {
    const past = pauseMs > 9_000;
    test(
      past
        ? "a site paused (SIGSTOP) past its claim while the service answered: the other site sends each lead again with the same reference as Idempotency-Key, and nobody a third time"
        : "a site paused (SIGSTOP) past FORM_TIMEOUT_MS but within its claim while the service answered: it counts the answer on resume, and the other site sends nothing",
      async () => {
        // Over 30 s: the pause, then past the claims' end (9 s) and a retry's wait.
        test.setTimeout(90_000);
        const { fake, a, b, row } = await shape(past ? "paused_past_claim" : "paused_within_claim");
        const tokens = [1, 2, 3].map((i) => `paused-${past ? "past" : "within"}-${i}-`);
        // B held still meanwhile, so that A, which took them, claims them all.
        b.child.kill("SIGSTOP");
        for (const [i, token] of tokens.entries())
          expect((await postContact(a.url, `Sent while paused (${token}).`, { localAddress: `127.0.14.${i + 1}` })).status).toBe(303);
        // Mid-send: the service has every lead and has not answered yet; A has them claimed.
        await expect.poll(() => tokens.every((t) => fake.received(t).length === 1)).toBe(true);
        a.child.kill("SIGSTOP");
        b.child.kill("SIGCONT"); // the other container runs, and finds A's claims
        const stoppedAt = Date.now();
        // The service answers each within 1.5 s, to a site that cannot read it until it resumes.
        await expect.poll(() => tokens.map((t) => fake.accepted(t).length)).toEqual([1, 1, 1]);
        await sleep(pauseMs - (Date.now() - stoppedAt));
        a.child.kill("SIGCONT");

        await expect.poll(() => delivered(a).length, { message: "A counts the answers it had" }).toBe(3);
        const references = tokens.map((t) => referenceOf(fake, t));
        for (const reference of references) await expect.poll(async () => (await row(reference))?.status).toBe("delivered");
        // A further send would come from a retry (1-2 s after an attempt taken for failed) or a
        // claim running out (9 s after it was made): 12 s after the resume hold both, twice.
        await sleep(12_000);
        const sends = past ? 2 : 1;
        expect(
          tokens.map((t) => fake.received(t).length),
          "sends per lead",
        ).toEqual(tokens.map(() => sends));
        expect(delivered(b).length, "leads B delivered").toBe(past ? 3 : 0);
        for (const [i, token] of tokens.entries())
          expect(
            fake.headers(token).map((h) => h["idempotency-key"]),
            "each copy's Idempotency-Key",
          ).toEqual(Array.from({ length: sends }, () => references[i]));
        for (const served of [a, b]) expect(events(served.stdout()).filter((e) => e.event === "lead_delivery_failed")).toEqual([]);
      },
    );
  }

  for (const when of ["before", "after"] as const) {
    test(`PostgreSQL restarted (immediate shutdown) just after the service confirmed a delivery, ${when} its outcome was written: the lead is delivered once, and neither site sends it again`, async () => {
      // Over 30 s: the restart, then past the claim's end (9 s) and a retry's wait.
      test.setTimeout(90_000);
      const { fake, a, b, db, row } = await shape(`restarted_${when}_outcome`);
      const token = `restarted-${when}-outcome-`;
      expect((await postContact(a.url, `Confirmed around a restart (${token}).`, { localAddress: "127.0.15.1" })).status).toBe(303);
      await expect.poll(() => fake.received(token).length).toBe(1);
      const reference = referenceOf(fake, token);
      const sites = [a, b];
      if (when === "before") {
        // The test holds the lead's row, so the outcome cannot be written (its lock is waited for
        // 2 s, then the write fails) while the service confirms it; then the restart, which ends
        // the test's transaction too.
        const holder = await db.connect();
        holder.on("error", () => undefined); // its connection, cut by the restart
        started.push(() => holder.release(true));
        await holder.query("BEGIN");
        await holder.query("SELECT 1 FROM leads WHERE id = $1 FOR UPDATE", [reference]);
        await expect.poll(() => fake.accepted(token).length).toBe(1);
        const waiting = async () => Number((await db.query("SELECT count(*) AS n FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'")).rows[0].n);
        await expect.poll(waiting, { message: "the outcome's write waits for the row", intervals: [100] }).toBe(1);
        await expect.poll(waiting, { message: "the outcome's write gave up", intervals: [100] }).toBe(0);
        expect(sites.flatMap(delivered), "an outcome written").toEqual([]);
      } else await expect.poll(() => sites.flatMap(delivered).length, { message: "the outcome written" }).toBe(1);
      await postgres.restart({ mode: "immediate" });

      await expect.poll(async () => (await row(reference))?.status, { timeout: 30_000 }).toBe("delivered");
      // A second send would come from a claim running out (9 s after it was made) or a retry.
      await sleep(12_000);
      expect(fake.received(token).length, "sends").toBe(1);
      expect(sites.flatMap(delivered).map((e) => e.id)).toEqual([reference]);
    });
  }
});

test("sqlite: a site paused (SIGSTOP) past FORM_TIMEOUT_MS while the form service answers counts that answer on resume and sends nothing twice", async () => {
  // Over 30 s: the site is paused for 12 s, then watched past its first retry (1-2 s).
  test.setTimeout(60_000);
  const fake = await fakeService(opsPort(104));
  // The service takes 1.5 s to answer; the site gives up on it after 4 s of its own clock.
  fake.setMode("slow", 1_500);
  const served = site(opsPort(106), keyed(fake, dataDir(), { FORM_TIMEOUT_MS: "4000" }));
  await served.listening;
  const tokens = [1, 2, 3].map((i) => `paused-sqlite-${i}-`);
  for (const [i, token] of tokens.entries())
    expect((await postContact(served.url, `Sent while paused (${token}).`, { localAddress: `127.0.14.${i + 1}` })).status).toBe(303);
  // Mid-send: the service has every lead and has not answered yet.
  await expect.poll(() => tokens.every((t) => fake.received(t).length === 1)).toBe(true);
  served.child.kill("SIGSTOP");
  // The service answers each within 1.5 s, to a site that cannot read it until it resumes.
  await expect.poll(() => tokens.map((t) => fake.accepted(t).length)).toEqual([1, 1, 1]);
  // The fault: paused 12 s, three times its FORM_TIMEOUT_MS, and past its claim (9 s).
  await sleep(12_000);
  served.child.kill("SIGCONT");

  await expect.poll(() => events(served.stdout()).filter((e) => e.event === "lead_delivered").length).toBe(3);
  // A second send would come from a retry, 1-2 s after an attempt taken for failed.
  await deliveredOnce(fake, tokens);
  expect(
    tokens.map((t) => fake.received(t).length),
    "sends per lead",
  ).toEqual([1, 1, 1]);
  expect(events(served.stdout()).filter((e) => e.event === "lead_delivery_failed")).toEqual([]);
});

test("a site killed -9 after the webhook took a lead and before it answered sends it again on restart, with the lead's reference as the Idempotency-Key of both copies", async () => {
  // Over 30 s: the restarted site waits for the killed one's claim to run out (FORM_TIMEOUT_MS + 5 s).
  test.setTimeout(60_000);
  const fake = await fakeService(opsPort(107));
  fake.setMode("slow", 2_000);
  const env = keyed(fake, dataDir(), { FORM_PROVIDER: "webhook", FORM_TIMEOUT_MS: "3000" });
  const first = site(opsPort(108), env);
  await first.listening;
  const answer = await postContact(first.url, "Killed mid-send (idempotent-1).");
  expect(answer.status).toBe(303);
  await expect.poll(() => fake.received("idempotent-1").length).toBe(1);
  first.child.kill("SIGKILL");
  await first.exited;
  fake.setMode("ok");
  const second = site(opsPort(108), env);
  await second.listening;
  await expect.poll(() => fake.received("idempotent-1").length, { timeout: 20_000 }).toBe(2);
  const reference = /Reference: (\S+)$/.exec(String((fake.received("idempotent-1")[0] as { message: string }).message))?.[1];
  expect(reference).toMatch(/^\d{8}-[0-9A-Z]{8}$/);
  expect(fake.headers("idempotent-1").map((h) => h["idempotency-key"])).toEqual([reference, reference]);
});
