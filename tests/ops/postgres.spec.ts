/**
 * With DATABASE_URL, on a real PostgreSQL each test starts (tests/support/postgres.ts: Debian's,
 * initdb in a folder of the run's): two sites share the leads (one killed -9 while its sends hang
 * or fail, the other delivers every lead once), PostgreSQL restarted with an immediate shutdown
 * and paused for a minute while posts arrive (the visitor gets the failure text, nothing thanked
 * is lost, delivery resumes by itself), and the calculator's drafts (for the browser that made
 * them only); a REDIS_URL left set stops the start. Decision 0046; docs/operations.md, "How leads
 * flow" and "Scaling out". Servers from build/ on opsPort 13-14, 16, 76-78 and 139-141; fake form
 * services on opsPort 51, 85 and 138.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { estimate, formatUsd } from "../../app/calculator/pricing";
import { CONTACT_SENT } from "../../app/contact/action.server";
import { calculatorText } from "../../app/content/calculator";
import { messages } from "../../app/content/messages";
import { type FakeFormService } from "../support/fake-form-service";
import { type Postgres } from "../support/postgres";
import { accepts, type Answer, dataDir, deliveredOnce, events, keyed, postContact, REPO, type Served, sleep } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";

const { fakeService, postgres, site, undo } = startedByEachTest();

/** A query on the sites' database, from a connection of the test's own. */
async function query(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

/** Thanked: without JavaScript a 303 to the thanks, with it Remix's 204 naming them. */
const thanked = (answer: Answer, js: boolean) =>
  answer.status === (js ? 204 : 303) && CONTACT_SENT.test(String(answer.headers[js ? "x-remix-redirect" : "location"] ?? ""));

/**
 * The spec's failure text with everything typed kept (docs/product.md, "What the visitor is
 * told"): without JavaScript the form again, saying it (503); with it, the action's answer the
 * page says it from (503, `problem: "failed"`, the values).
 */
function toldItFailed(answer: Answer, js: boolean, message: string) {
  expect(answer.status, `${message}: the answer's status`).toBe(503);
  if (js) expect(JSON.parse(answer.body), message).toMatchObject({ problem: "failed", values: { message } });
  else {
    expect(answer.body, message).toContain(messages.contactFailed);
    expect(answer.body, `${message}: what was typed, kept`).toContain(message);
  }
}

/** Each lead reached the service once (deliveredOnce), and every send of it carried one reference, its own. */
async function sentOnce(fake: FakeFormService, tokens: string[], options: { within?: number; settle?: number } = {}) {
  await deliveredOnce(fake, tokens, options);
  const references = (token: string) => new Set(fake.received(token).map((body) => /Reference: ([\w-]+)/.exec(JSON.stringify(body))?.[1]));
  for (const token of tokens) expect([...references(token)], `the references ${token}'s sends carried`).toEqual([expect.stringMatching(/^\d{8}-\w{8}$/)]);
}

/** Each site still runs: a database that fails or goes away costs visitors the failure text, never a site. */
const stillUp = (...sites: Served[]) =>
  expect(
    sites.map((s) => [s.child.exitCode, s.child.signalCode]),
    "exit code and signal of each site",
  ).toEqual(sites.map(() => [null, null]));

/** Claims that hold now, by how many processes: the sites' own names for them, on the database's clock. */
const claimants = async (url: string) =>
  Number(
    (
      await query(
        url,
        `SELECT count(DISTINCT claimed_by) AS n FROM leads
          WHERE status = 'pending' AND claimed_until > extract(epoch FROM clock_timestamp()) * 1000`,
      )
    )[0]!.n,
  );

test("two sites on one PostgreSQL: leads posted to either, one killed -9 while its sends hang or fail, the other delivers every lead exactly once", async () => {
  // Over 30 s: the leads the killed site had claimed wait for their claims to run out
  // (FORM_TIMEOUT_MS + 5 s), the others for retries on the real schedule; then 9 s to show a second send.
  test.setTimeout(120_000);
  const db = await (await postgres()).database("sites");
  const fake = await fakeService(opsPort(51));
  const tokens = Array.from({ length: 8 }, (_, i) => `pg-shared-${i}-`);
  for (const [i, token] of tokens.entries()) fake.setMode(i % 2 ? "hang" : "fail500", undefined, token);
  const env = { DATABASE_URL: db, FORM_TIMEOUT_MS: "2000" };
  const [a, b] = [site(opsPort(13), keyed(fake, dataDir(), env)), site(opsPort(14), keyed(fake, dataDir(), env))];
  await Promise.all([a.listening, b.listening]);
  for (const [i, token] of tokens.entries())
    expect((await postContact([a, b][i % 2]!.url, `Hello (${token}).`, { localAddress: `127.0.30.${i + 1}` })).status, token).toBe(303);
  await expect.poll(() => tokens.every((t) => fake.received(t).length > 0), { message: "every lead tried" }).toBe(true);
  // Both sites hold claims (a hanging send holds one for 2 s): site a dies with some of its own.
  await expect.poll(() => claimants(db), { message: "sites holding claims" }).toBe(2);
  a.child.kill("SIGKILL");
  await a.exited;

  for (const token of tokens) fake.setMode("ok", undefined, token);
  // No send had been taken before the kill: every delivery is the surviving site's.
  await sentOnce(fake, tokens, { within: 60_000, settle: 9_000 });
  expect(events(b.stdout()).filter((e) => e.event === "lead_delivered")).toHaveLength(tokens.length);
  expect(Number((await query(db, "SELECT count(*) AS n FROM leads WHERE status = 'delivered'"))[0]!.n)).toBe(tokens.length);
  stillUp(b);
});

test("PostgreSQL restarted with an immediate shutdown while leads are pending and posts arrive: a post meanwhile gets the failure text, nothing thanked is lost, delivery resumes by itself, each lead once", async () => {
  // Over 30 s: the pending leads' retries after a run of failures, on the real schedule.
  test.setTimeout(120_000);
  const postgresServer = await postgres();
  const db = await postgresServer.database("sites");
  const fake = await fakeService(opsPort(85));
  fake.setMode("fail500");
  const env = { DATABASE_URL: db, FORM_TIMEOUT_MS: "2000" };
  const sites = [site(opsPort(76), keyed(fake, dataDir(), env)), site(opsPort(77), keyed(fake, dataDir(), env))];
  await Promise.all(sites.map((s) => s.listening));
  const pending = Array.from({ length: 6 }, (_, i) => `pg-restart-${i}-`);
  for (const [i, token] of pending.entries())
    expect(thanked(await postContact(sites[i % 2]!.url, `Pending (${token}).`, { localAddress: `127.0.31.${i + 1}` }), false), token).toBe(true);
  await expect.poll(() => pending.every((t) => fake.received(t).length > 0), { message: "every lead tried once" }).toBe(true);

  // Visitors post all along, to both sites, with JavaScript and without, until after it is back.
  const stream: { token: string; js: boolean; answer: Answer }[] = [];
  let streaming = true;
  const posting = (async () => {
    for (let n = 0; streaming; n++) {
      const [token, js] = [`pg-stream-${n}-`, n % 2 === 1];
      const answer = await postContact(sites[n % 2]!.url, `Meanwhile (${token}).`, { localAddress: `127.0.32.${n + 1}`, js });
      stream.push({ token, js, answer });
      await sleep(150);
    }
  })();
  posting.catch(() => undefined); // awaited below, unless the test has failed first
  undo(() => (streaming = false));
  await sleep(1_000);

  await immediateShutdown(postgresServer);
  // While it is down: a post to each site, without JavaScript and with, gets the failure text.
  for (const [i, js] of [false, true].entries()) {
    const message = `During the outage (pg-down-${i}-).`;
    toldItFailed(await postContact(sites[i]!.url, message, { localAddress: `127.0.33.${i + 1}`, js }), js, message);
  }
  await postgresServer.restart();
  await sleep(2_000);
  streaming = false;
  await posting;

  // Every answer was the thanks or the failure text; none thanked is lost once the service is back.
  for (const { token, js, answer } of stream) if (!thanked(answer, js)) toldItFailed(answer, js, `Meanwhile (${token}).`);
  const thankedTokens = [...pending, ...stream.filter(({ answer, js }) => thanked(answer, js)).map(({ token }) => token)];
  expect(stream.filter(({ answer, js }) => thanked(answer, js)).length, "posts thanked around the outage").toBeGreaterThan(0);
  fake.setMode("ok");
  await sentOnce(fake, thankedTokens, { within: 90_000 });
  // A post told it failed may still have been committed (the answer to its COMMIT lost): sent at most once.
  for (const { token, js, answer } of stream) if (!thanked(answer, js)) expect(fake.accepted(token).length, token).toBeLessThanOrEqual(1);
  stillUp(...sites);
});

test("PostgreSQL unreachable for a minute (SIGSTOP): posts get the failure text within seconds, nothing thanked is lost, and delivery resumes by itself once it answers again, each lead once", async () => {
  // Over 30 s: a minute paused; then the loops' waits, which double while the store fails (up to a
  // minute), and the leads' retries; then a claim's length to show a second send.
  test.setTimeout(300_000);
  const postgresServer = await postgres();
  const db = await postgresServer.database("sites");
  const fake = await fakeService(opsPort(138));
  const env = { DATABASE_URL: db, FORM_TIMEOUT_MS: "4000" };
  const sites = [site(opsPort(16), keyed(fake, dataDir(), env)), site(opsPort(78), keyed(fake, dataDir(), env))];
  await Promise.all(sites.map((s) => s.listening));
  // Leads waiting for a retry when it stops answering.
  const failing = Array.from({ length: 6 }, (_, i) => `pg-paused-${i}-`);
  fake.setMode("fail500");
  for (const [i, token] of failing.entries())
    expect(thanked(await postContact(sites[i % 2]!.url, `Pending (${token}).`, { localAddress: `127.0.34.${i + 1}` }), false), token).toBe(true);
  await expect.poll(() => failing.every((t) => fake.received(t).length > 0), { message: "every lead tried once" }).toBe(true);

  postgresServer.pause();
  const pausedAt = Date.now();
  // Visitors post through the minute, to both sites, with and without JavaScript. The docs say
  // about 5 s (2 s to connect, 3 s a statement); 20 s is far past that on a slow, busy machine,
  // and far short of a visitor left waiting on a store that does not answer.
  const BOUND_MS = 20_000;
  const waits: number[] = [];
  for (const round of [0, 1, 2]) {
    await sleep(Math.max(0, pausedAt + round * 20_000 - Date.now()));
    await Promise.all(
      [false, true].flatMap((js, j) =>
        sites.map(async (s, i) => {
          const message = `While paused (pg-paused-post-${round}-${j}-${i}-).`;
          const sent = Date.now();
          const answer = await postContact(s.url, message, { localAddress: `127.0.36.${round * 4 + j * 2 + i + 1}`, js });
          waits.push(answer.at - sent);
          toldItFailed(answer, js, message);
        }),
      ),
    );
  }
  test.info().annotations.push({ type: "failure text while paused, after (ms)", description: waits.join(", ") });
  console.log(`failure text while paused, after (ms): ${waits.join(", ")}`);
  expect(Math.max(...waits), "the longest wait for the failure text (ms)").toBeLessThan(BOUND_MS);
  await sleep(Math.max(0, pausedAt + 60_000 - Date.now()));
  postgresServer.resume();

  fake.setMode("ok");
  // Nothing done by hand: a visitor sending again is thanked, and every thanked lead goes out.
  const after = ["pg-resumed-0-", "pg-resumed-1-"];
  for (const [i, token] of after.entries())
    await expect
      .poll(async () => thanked(await postContact(sites[i]!.url, `After (${token}).`, { localAddress: `127.0.37.${i + 1}` }), false), {
        message: `${token} thanked, sent again as a visitor would`,
        timeout: 30_000,
      })
      .toBe(true);
  await sentOnce(fake, [...failing, ...after], { within: 150_000, settle: 11_000 });
  stillUp(...sites);
});

test("with DATABASE_URL, a calculator step posted without JavaScript to one site is rendered by the other, for the same browser only", async () => {
  const db = await (await postgres()).database("sites");
  const [a, b] = [site(opsPort(139), { DATABASE_URL: db, DATA_DIR: dataDir() }), site(opsPort(140), { DATABASE_URL: db, DATA_DIR: dataDir() })];
  await Promise.all([a.listening, b.listening]);
  const body = new URLSearchParams({ formName: "calculator", "state.step": "1", service: "zoho" }).toString();
  const posted = await fetch(`${a.url}/?index`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: a.url, "Content-Type": "application/x-www-form-urlencoded" },
    body,
  });
  expect(posted.status).toBe(303);
  // The browser that posted, with the cookie it was given (decision 0020): any site renders its draft.
  const cookie = posted.headers.get("set-cookie")!.split(";")[0]!;
  const html = await (await fetch(b.url + posted.headers.get("location")!, { headers: { cookie } })).text();
  expect(html).toMatch(/Step (<!-- -->)?2(<!-- -->)? of/);
  expect(html).toContain(formatUsd(estimate({ service: "zoho" })));
  expect(html).not.toContain(calculatorText.expired);
  // Any other browser, on either site, gets nothing of it.
  for (const s of [a, b]) expect(await (await fetch(s.url + posted.headers.get("location")!)).text()).toContain(calculatorText.expired);
});

test("REDIS_URL left set: the start stops, exit 1, with one JSON line naming DATABASE_URL and the migration's section, and nothing written", async () => {
  const dir = dataDir();
  const server = site(opsPort(141), { REDIS_URL: "redis://127.0.0.1:6379", DATA_DIR: dir });
  const exit = await Promise.race([server.exited, sleep(20_000).then(() => null)]);
  expect(exit, "still running 20 s after its start").not.toBeNull();
  expect(exit!.code).toBe(1);
  const lines = (server.stdout() + server.stderr()).split("\n").filter((line) => line.trim());
  expect(lines).toHaveLength(1);
  const [line] = events(lines[0]!);
  expect(line).toMatchObject({ event: "config_invalid", error: expect.stringContaining("DATABASE_URL") });
  const section = /docs\/operations\.md#([\w-]+)/.exec(String(line!.error))?.[1];
  expect(section, "the section it names").toBe("from-redis-to-postgresql");
  // The anchor is the heading's, as GitHub makes it.
  expect(readFileSync(join(REPO, "docs/operations.md"), "utf8")).toMatch(/^### From Redis to PostgreSQL$/m);
  expect(readdirSync(dir), "the data folder").toEqual([]);
});

/**
 * An immediate shutdown (SIGQUIT to the postmaster: its backends end at once, the next start
 * recovers from the WAL, as after a crash), left down until restart() starts it again, so the test
 * can post meanwhile. restart({ mode: "immediate" }) would start it again at once.
 */
async function immediateShutdown(server: Postgres) {
  const pid = Number(readFileSync(join(server.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  process.kill(pid, "SIGQUIT");
  await expect.poll(() => accepts(server.port), { message: "PostgreSQL still accepting connections" }).toBe(false);
}
