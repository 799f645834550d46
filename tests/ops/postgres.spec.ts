/**
 * Two sites on one PostgreSQL, in compose.yaml's shape (decision 0046; docs/operations.md, "How
 * leads flow" and "Scaling out"): drafts and funnel counts shared, a site killed -9 mid-send, and
 * PostgreSQL shut down at once, then paused. opsPort 13-14 and 76-77.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { estimate, formatUsd } from "../../app/calculator/pricing";
import { CONTACT_SENT } from "../../app/contact/action.server";
import { expiredNote } from "../../app/content/calculator";
import { messages } from "../../app/content/messages";
import { type FakeFormService } from "../support/fake-form-service";
import { accepts, type Answer, beacon, dataDir, deliveredOnce, keyed, leadsCommand, postContact, type Served, sleep } from "../support/server";
import { opsPort } from "../support/sites";
import { said, SOAK, startedByEachTest } from "../support/started";

const { fakeService, postgres, site, stop, undo } = startedByEachTest();

/** Thanked: without JavaScript a 303 to the thanks, with it Remix's 204 naming them. */
const thanked = (answer: Answer, js: boolean) =>
  answer.status === (js ? 204 : 303) && CONTACT_SENT.test(String(answer.headers[js ? "x-remix-redirect" : "location"] ?? ""));

/** The failure text with everything typed kept: the page again (503), or with JavaScript the action's JSON it is said from. */
function toldItFailed(answer: Answer, js: boolean, message: string) {
  expect(answer.status, `${message}: the answer's status`).toBe(503);
  if (js) expect(JSON.parse(answer.body), message).toMatchObject({ problem: "failed", values: { message } });
  else
    expect([answer.body.includes(messages.contactFailed), answer.body.includes(message)], `${message}: the failure text, what was typed`).toEqual([true, true]);
}

/** Each lead reached the service once (deliveredOnce), and every send of it carried one reference, its own. */
async function sentOnce(fake: FakeFormService, tokens: string[], options: { within?: number; settle?: number } = {}) {
  await deliveredOnce(fake, tokens, options);
  const references = (token: string) => new Set(fake.received(token).map((body) => /Reference: ([\w-]+)/.exec(JSON.stringify(body))?.[1]));
  for (const token of tokens) expect([...references(token)], `the references ${token}'s sends carried`).toEqual([expect.stringMatching(/^\d{8}-\w{8}$/)]);
}

/** Each site still runs: a database that fails or goes away costs visitors the failure text, never a site. */
const stillUp = (...sites: Served[]) => expect(sites.map(exitOf), "each site's exit").toEqual(sites.map(() => null));
const exitOf = (s: Served) => s.child.exitCode ?? s.child.signalCode;

/** Two sites of the test's own on one database, each its own data folder (`dirs`). */
async function twoSites(fake: FakeFormService, db: string, ports: [number, number], timeoutMs: number, dirs = [dataDir(), dataDir()]) {
  const sites = ports.map((port, i) => site(opsPort(port), keyed(fake, dirs[i]!, { DATABASE_URL: db, FORM_TIMEOUT_MS: String(timeoutMs) })));
  await Promise.all(sites.map((s) => s.listening));
  return sites as [Served, Served];
}

/** How long PostgreSQL stays paused: twice a post's bounds (2 s to connect, 3 s a statement); the soak, a minute. */
const PAUSE_MS = SOAK ? 60_000 : 12_000;

test("PostgreSQL shut down at once, then paused: posts get the failure text within seconds, nothing thanked is lost, delivery resumes, each lead once; killed, a site still stops cleanly", async () => {
  // Over 30 s: the outage and the pause, then the leads' retries on the real schedule.
  test.setTimeout(90_000 + PAUSE_MS * 2);
  const cluster = await postgres();
  const fake = await fakeService();
  fake.setMode("fail500");
  const sites = await twoSites(fake, await cluster.database("sites"), [76, 77], 2_000);
  // Leads waiting for a retry when it goes.
  const pending = Array.from({ length: 4 }, (_, i) => `pg-pending-${i}-`);
  for (const [i, token] of pending.entries())
    expect(thanked(await postContact(sites[i % 2]!.url, `Pending (${token}).`, { localAddress: `127.0.31.${i + 1}` }), false), token).toBe(true);
  await expect.poll(() => pending.every((t) => fake.received(t).length > 0), { message: "every lead tried once" }).toBe(true);

  // Visitors post all along, to both sites, with JavaScript and without, until after it is back.
  const stream: { token: string; js: boolean; answer: Answer }[] = [];
  let streaming = true;
  undo(() => (streaming = false));
  const posting = (async () => {
    for (let n = 0; streaming; n++) {
      const [token, js] = [`pg-stream-${n}-`, n % 2 === 1];
      stream.push({ token, js, answer: await postContact(sites[n % 2]!.url, `Meanwhile (${token}).`, { localAddress: `127.0.32.${n + 1}`, js }) });
      await sleep(150);
    }
  })();
  posting.catch(() => undefined); // awaited below, unless the test has failed first
  await sleep(1_000);

  // An immediate shutdown (SIGQUIT: the backends end at once, the next start recovers from the WAL), left down for a moment.
  process.kill(Number(readFileSync(join(cluster.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]), "SIGQUIT");
  await expect.poll(() => accepts(cluster.port), { message: "PostgreSQL still accepting connections" }).toBe(false);
  let post = 0;
  /** A post to each site, without JavaScript and with: each gets the failure text; resolves with how long each waited. */
  const refused = (when: string) =>
    Promise.all(
      [false, true].flatMap((js) =>
        sites.map(async (s) => {
          const message = `${when} (pg-refused-${++post}-).`;
          const sent = Date.now();
          const answer = await postContact(s.url, message, { localAddress: `127.0.33.${post}`, js });
          toldItFailed(answer, js, message);
          return answer.at - sent;
        }),
      ),
    );
  await refused("While it is down");
  await cluster.restart();

  // Then paused (SIGSTOP): connections accepted, nothing answered. The service answers from now on.
  await cluster.pause();
  fake.setMode("ok");
  const pausedAt = Date.now();
  // The docs say about 5 s; 20 s allows a slow, busy machine. A round every 20 s of the pause.
  const waits: number[] = [];
  for (let at = 0; at < PAUSE_MS - 5_000; at += 20_000) {
    await sleep(Math.max(0, pausedAt + at - Date.now()));
    waits.push(...(await refused("While it is paused")));
  }
  test.info().annotations.push({ type: "failure text while paused, after (ms)", description: waits.join(", ") });
  expect(Math.max(...waits), "the longest wait for the failure text (ms)").toBeLessThan(20_000);
  await sleep(Math.max(0, pausedAt + PAUSE_MS - Date.now()));
  cluster.resume();
  await sleep(2_000);
  streaming = false;
  await posting;

  // Nothing done by hand: a visitor sending again is thanked, and every thanked lead goes out.
  const after = ["pg-resumed-0-", "pg-resumed-1-"];
  for (const [i, token] of after.entries())
    await expect
      .poll(async () => thanked(await postContact(sites[i]!.url, `After (${token}).`, { localAddress: `127.0.37.${i + 1}` }), false), {
        message: `${token} thanked, sent again as a visitor would`,
        timeout: 30_000,
      })
      .toBe(true);
  // Every answer was the thanks or the failure text; none thanked is lost.
  for (const { token, js, answer } of stream) if (!thanked(answer, js)) toldItFailed(answer, js, `Meanwhile (${token}).`);
  const streamed = stream.filter(({ answer, js }) => thanked(answer, js)).map(({ token }) => token);
  expect(streamed.length, "posts thanked around the outage").toBeGreaterThan(0);
  // A claim's length: a lead confirmed while the store was paused is written at the first look that finds it back.
  await sentOnce(fake, [...pending, ...streamed, ...after], { within: 90_000 + PAUSE_MS, settle: 7_000 });
  // A post told it failed may still have been committed (the answer to its COMMIT lost): sent at most once.
  for (const { token, js, answer } of stream) if (!thanked(answer, js)) expect(fake.accepted(token).length, token).toBeLessThanOrEqual(1);
  stillUp(...sites);

  // The stop with the database gone (decision 0040): kill -9 of the cluster, connections cut, new ones refused.
  await cluster.kill();
  await stop(sites[0]);
  expect(said(sites[0]).filter((e) => e === "shutdown_error")).toEqual([]);
  expect(said(sites[0]).at(-1)).toBe("stopped");
});

test("two sites on one PostgreSQL share a browser's draft and one funnel total (none in a data folder); one killed -9 mid-send, the other delivers every lead once", async () => {
  // Over 30 s: the killed site's claims run out (FORM_TIMEOUT_MS + 5 s), then a claim's length to show a second send.
  test.setTimeout(120_000);
  const db = await (await postgres()).database("sites");
  const fake = await fakeService();
  const dirs = [dataDir(), dataDir()];
  const [a, b] = await twoSites(fake, db, [13, 14], 2_000, dirs);

  const step = await fetch(`${a.url}/?index`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: a.url, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ formName: "calculator", "state.step": "1", service: "zoho" }),
  });
  expect(step.status).toBe(303);
  // The browser that posted, with the cookie it was given (decision 0020): any site renders its draft.
  const [cookie, next] = [step.headers.get("set-cookie")!.split(";")[0]!, step.headers.get("location")!];
  const html = await (await fetch(b.url + next, { headers: { cookie } })).text();
  expect([/Step (<!-- -->)?2(<!-- -->)? of/.test(html), html.includes(formatUsd(estimate({ service: "zoho" }))), html.includes(expiredNote)]).toEqual([
    true,
    true,
    false,
  ]);
  // Any other browser, on either site, gets nothing of it.
  for (const s of [a, b]) expect(await (await fetch(s.url + next)).text()).toContain(expiredNote);

  expect(await Promise.all([beacon(a.url, "2"), beacon(b.url, "2"), beacon(b.url, "3")]), "the funnel's beacons").toEqual([204, 204, 204]);
  // The server counts a step without waiting for it: the last count may land a moment after the answer.
  const funnel = async () => JSON.parse((await leadsCommand(dirs[0]!, { DATABASE_URL: db })("funnel", "--json", "--days", "1")).stdout).days[0].reached;
  await expect.poll(funnel, { timeout: 30_000 }).toEqual({ 2: 2, 3: 1, 4: 0, 5: 0 });
  // Without DATABASE_URL the command would read a data folder's own file: the sites kept no counts there.
  const folderCounts = dirs.filter((dir) => existsSync(join(dir, "funnel.db")));
  expect(folderCounts, "data folders with a funnel.db").toEqual([]);

  const tokens = Array.from({ length: 6 }, (_, i) => `pg-shared-${i}-`);
  // Each site takes a lead that hangs and one that fails, so each holds claims (a hanging send one for 2 s).
  for (const [i, token] of tokens.entries()) fake.setMode(i % 4 < 2 ? "hang" : "fail500", undefined, token);
  for (const [i, token] of tokens.entries())
    expect((await postContact([a, b][i % 2]!.url, `Hello (${token}).`, { localAddress: `127.0.30.${i + 1}` })).status, token).toBe(303);
  await expect.poll(() => tokens.every((t) => fake.received(t).length > 0), { message: "every lead tried" }).toBe(true);
  // Both hold claims at once, on the database's clock: site a dies with some of its own.
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  undo(() => client.end());
  const claimants = async () =>
    Number(
      (
        await client.query(`SELECT count(DISTINCT claimed_by) AS n FROM leads
          WHERE status = 'pending' AND claimed_until > extract(epoch FROM clock_timestamp()) * 1000`)
      ).rows[0].n,
    );
  await expect.poll(claimants, { message: "sites holding claims" }).toBe(2);
  a.child.kill("SIGKILL");
  await a.exited;

  for (const token of tokens) fake.setMode("ok", undefined, token);
  // No send had been taken before the kill: every delivery is the surviving site's.
  await sentOnce(fake, tokens, { within: 60_000, settle: 7_000 });
  expect(said(b).filter((e) => e === "lead_delivered")).toHaveLength(tokens.length);
  stillUp(b);
});
